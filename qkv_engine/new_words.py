"""What a newly typed word gets, and the one-line notes that say so.

In a designed example (``Scenario.new_tokens == "replaced-or-zero"``) a word
typed over another word takes that word's features (so 'dog' typed over
'animal' is still an animate noun); a word typed in between gets zeros. In
every other scenario a new word gets seeded random features.

    replaced_by(old_tokens, new_tokens)   new index -> index of the old token it replaced
    describe(before, after)               ("'dog' took the features of 'animal'", ...)

Which old word a new one replaced is found by lining the two token lists up
(``difflib``): inside a run of changed tokens the k-th new token replaced the
k-th old one; tokens beyond the shorter run were inserted.
"""
from __future__ import annotations

import difflib

import numpy as np


def replaced_by(old: tuple, new: tuple) -> dict:
    """``{new index: old index}`` for every new token typed over an old one."""
    out = {}
    matcher = difflib.SequenceMatcher(None, list(old), list(new), autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "replace":
            for t in range(min(i2 - i1, j2 - j1)):
                out[j1 + t] = i1 + t
    return out


def replacement_rows(old_tokens: tuple, old_x: np.ndarray, new_tokens: tuple) -> dict:
    """Token text -> the row it takes from the word it replaced (first occurrence wins)."""
    rows = {}
    for j, i in replaced_by(old_tokens, new_tokens).items():
        rows.setdefault(new_tokens[j], old_x[i])
    return rows


def _new_texts(before, tokens: tuple, x: np.ndarray, old_tokens: tuple, old_x) -> list:
    """(text, its row, the old token it replaced or None, that token's row) for each new text."""
    known = set(before.tokens) | set(before.source_tokens or ())
    pairs = replaced_by(old_tokens, tokens)
    seen, out = set(), []
    for j, (tok, row) in enumerate(zip(tokens, x)):
        if tok in known or tok in seen:
            continue
        seen.add(tok)
        i = pairs.get(j)
        out.append((tok, row, None if i is None else old_tokens[i], None if i is None else old_x[i]))
    return out


def describe(before, after) -> tuple:
    """One note per token text that ``after`` has and ``before`` had nowhere, saying what it got.

    ``before`` may be the scenario at the start of a burst of typing, so the note names the
    word that was there before the typing ('dog' took the features of 'animal'), not the
    half-typed word of the keystroke before.
    """
    found = _new_texts(before, after.tokens, after.x, before.tokens, before.x)
    if after.is_cross:
        old_src = before.source_tokens or ()
        old_sx = before.source_x if before.is_cross else np.zeros((0, after.d_model))
        found += [f for f in _new_texts(before, after.source_tokens, after.source_x, old_src, old_sx)
                  if f[0] not in {g[0] for g in found}]
    notes = []
    for tok, row, old_tok, old_row in found:
        if after.new_tokens == "random":
            notes.append(f"'{tok}' is new: it got random features (seed {after.seed}); edit them in the table")
        elif old_tok is not None and old_row.shape == row.shape and np.array_equal(row, old_row):
            notes.append(f"'{tok}' took the features of '{old_tok}'")
        elif not np.any(row):
            notes.append(f"'{tok}' is new: its features are 0; edit them in the table")
        else:
            notes.append(f"'{tok}' is new: edit its features in the table")
    return tuple(notes)
