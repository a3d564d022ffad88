"""Numbers for the classroom lesson: placeholder values, exercise questions, answer checking.

    values = placeholder_values(result, i, j)     # {"q1_worked": "q1 = 0.5(0.1) + ...", ...}
    fill("Look: {q1_worked}", values)             # placeholders replaced, unknown ones marked
    ex = make_exercise(result, "score", i=0, j=0)  # one hidden number and its worked arithmetic
    check_answer("0.05", ex.value, ex.decimals)    # right to the shown precision?

Placeholders are ``{name}`` with ``name`` made of lower-case letters, digits
and underscores, starting with a letter. ``{{`` and ``}}`` stand for literal
braces. Every worked line comes from :mod:`qkv_engine.explain`; nothing here
redoes attention maths. Pure Python and numpy: no Qt.
"""
from __future__ import annotations

import functools
import math
import re
from collections.abc import MutableMapping
from dataclasses import dataclass

import numpy as np

from . import explain, feature_names, rope_lab
from .attention import AttentionResult, compute
from .errors import ScenarioError
from .numbers import parse_number

#: A placeholder: ``{name}``.
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")
_OPEN, _CLOSE = "\x00", "\x01"
#: At most this many tokens (or coordinates) are listed in a row of numbers; the rest are summarised.
MAX_LISTED = 8
#: Exercise kinds and the decimals the answer is checked to.
EXERCISE_DECIMALS = {"q": 2, "score": 3, "weight": 2, "output": 2}
EXERCISE_KINDS = tuple(EXERCISE_DECIMALS)


def unknown_marker(name: str) -> str:
    """What an unknown placeholder turns into: visible, never an error."""
    return f"\u27e8unknown placeholder: {name}\u27e9"


def fill(template: str, values: dict, on_unknown=unknown_marker, escape=None) -> str:
    """Replace each ``{name}`` of ``template`` by ``values[name]`` in one pass.

    Inserted values are never scanned again (a value holding ``{x}`` stays as
    it is). ``escape`` (e.g. an HTML escaper) is applied to each inserted
    value; ``on_unknown(name)`` gives the text for names not in ``values``
    (not escaped, so it may carry markup).
    """
    text = template.replace("{{", _OPEN).replace("}}", _CLOSE)

    def sub(m: re.Match) -> str:
        name = m.group(1)
        if name in values:
            v = str(values[name])
            return escape(v) if escape else v
        return on_unknown(name)

    return PLACEHOLDER.sub(sub, text).replace(_OPEN, "{").replace(_CLOSE, "}")


def names_in(template: str) -> list[str]:
    """The placeholder names used in ``template``, in order (duplicates kept once)."""
    text = template.replace("{{", "").replace("}}", "")
    seen: list[str] = []
    for m in PLACEHOLDER.finditer(text):
        if m.group(1) not in seen:
            seen.append(m.group(1))
    return seen


# ----- formatting rows of numbers ------------------------------------------------------------
def vector(values, decimals: int = 2) -> str:
    """``[0.50, -0.30, 0.80]`` with fixed decimals; long vectors are shortened."""
    vals = [explain.fixed(float(v), decimals) for v in values]
    if len(vals) > MAX_LISTED:
        vals = vals[:3] + [f"... ({len(vals) - 5} more)"] + vals[-2:]
    return "[" + ", ".join(vals) + "]"


def labelled_row(tokens, values, decimals: int = 2, skip=None) -> str:
    """``'The' 0.18, 'cat' 0.58, 'sat' 0.24``; entries where ``skip`` is True read 'masked'."""
    parts = []
    for m, (t, v) in enumerate(zip(tokens, values)):
        shown = "masked" if skip is not None and skip[m] else explain.fixed(float(v), decimals)
        parts.append(f"'{t}' {shown}")
    if len(parts) > MAX_LISTED:
        parts = parts[:4] + [f"... {len(parts) - 6} more ..."] + parts[-2:]
    return ", ".join(parts)


def named_row(scenario, values, decimals: int = 2) -> str:
    """``animate 1, noun 1, x3 0``: each embedding dimension's shown name and its value."""
    parts = [f"{feature_names.plain(scenario, 'x', c)} {explain.trimmed(float(v), decimals)}"
             for c, v in enumerate(values)]
    if len(parts) > MAX_LISTED:
        parts = parts[:4] + [f"... {len(parts) - 6} more ..."] + parts[-2:]
    return ", ".join(parts)


def _lines(texts, limit: int = 4) -> str:
    texts = list(texts)
    if len(texts) > limit:
        return "\n".join(texts[:limit] + [f"... and {len(texts) - limit} more coordinates, worked the same way"])
    return "\n".join(texts)


def _shape(rows: int, cols: int) -> str:
    return f"{rows} × {cols}"


# ----- placeholder values --------------------------------------------------------------------
class PlaceholderValues(MutableMapping):
    """Placeholder name -> its text, each worked out the first time it is asked for and then kept.

    A step of the lesson uses a few of the hundred or so names, and the pane is written again at every
    edit: working out only those is what keeps an edit in lesson mode inside one frame. It reads as a
    dict (``name in values``, ``values[name]``, ``update``)."""

    def __init__(self):
        self._make: dict = {}  # name -> a function giving its text
        self._done: dict = {}  # name -> its text, once asked for

    def define(self, name: str, make) -> None:
        """``name``'s text is ``make()``, worked out when first asked for."""
        self._make[name] = make
        self._done.pop(name, None)

    def __getitem__(self, name: str) -> str:
        try:
            return self._done[name]
        except KeyError:
            text = self._done[name] = self._make[name]()
            return text

    def __setitem__(self, name: str, text) -> None:
        self._make[name] = None
        self._done[name] = text

    def __delitem__(self, name: str) -> None:
        del self._make[name]
        self._done.pop(name, None)

    def __iter__(self):
        return iter(self._make)

    def __len__(self) -> int:
        return len(self._make)

    def __contains__(self, name) -> bool:
        return name in self._make


def placeholder_values(result: AttentionResult, i: int = 0, j: int = 0) -> PlaceholderValues:
    """Every value a lesson text may use, for query token ``i`` and key token ``j`` (0-based), each
    worked out when it is first read (``PlaceholderValues``).

    With no tokens only the sizes are given (the lesson then shows what is
    missing visibly instead of failing).
    """
    s = result.scenario
    n, m = result.n, result.n_keys  # queries; keys and values (the source's tokens in cross-attention)
    vals = PlaceholderValues()
    define = vals.define
    for name, make in {
        "n": lambda: str(n),
        "d_model": lambda: str(s.d_model),
        "d_k": lambda: str(s.d_k),
        "d_v": lambda: str(s.d_v),
        "sqrt_dk": lambda: explain.trimmed(math.sqrt(s.d_k), 4),
        "divisor": lambda: explain.trimmed(result.divisor, 4),
        "temperature": lambda: explain.trimmed(s.temperature, 3),
        "shape_x": lambda: _shape(n, s.d_model),
        "shape_wq": lambda: _shape(s.d_model, s.d_k),
        "shape_wk": lambda: _shape(s.d_model, s.d_k),
        "shape_wv": lambda: _shape(s.d_model, s.d_v),
        "shape_q": lambda: _shape(n, s.d_k),
        "shape_k": lambda: _shape(m, s.d_k),
        "shape_kt": lambda: _shape(s.d_k, m),
        "shape_v": lambda: _shape(m, s.d_v),
        "shape_scores": lambda: _shape(n, m),
        "shape_output": lambda: _shape(n, s.d_v),
        "tokens": lambda: ", ".join(f"'{t}'" for t in s.tokens[:MAX_LISTED])
        + (f", ... ({n - MAX_LISTED} more)" if n > MAX_LISTED else ""),
        "scaling_note": lambda: ("Scaling is on." if s.scale else
                                 "Scaling is switched off right now, so the scores go in unchanged."),
        "softmax_note": lambda: ("" if s.softmax_over == "keys" else
                                 "Careful: the app is set to the column-wise softmax (the bug) right now."),
        "feature_names": lambda: ", ".join(feature_names.header_names(s, "x")[:MAX_LISTED])
        + (f", ... ({s.d_model - MAX_LISTED} more)" if s.d_model > MAX_LISTED else ""),
    }.items():
        define(name, make)
    if n == 0 or m == 0:
        return vals
    i = max(0, min(int(i), n - 1))
    j = max(0, min(int(j), m - 1))
    for name, make in {
        "i": lambda: str(i + 1),
        "j": lambda: str(j + 1),
        "token_i": lambda: s.tokens[i],
        "token_j": lambda: s.key_tokens[j],
        "x_i": lambda: vector(s.x[i]),
        "x_j": lambda: vector(s.key_x[j]),
        "x1_i": lambda: explain.trimmed(float(s.x[i, 0]), 2),
        "q_i": lambda: vector(result.q[i]),
        "k_j": lambda: vector(result.k[j]),
        "v_j": lambda: vector(result.v[j]),
        "output_i": lambda: vector(result.output[i]),
        "features_i": lambda: named_row(s, s.x[i]),
        "features_j": lambda: named_row(s, s.key_x[j]),
    }.items():
        define(name, make)
    for c in range(s.d_k):
        define(f"q{c + 1}_worked", lambda c=c: explain.projection(result, "q", i, c).text)
        define(f"k{c + 1}_worked", lambda c=c: explain.projection(result, "k", j, c).text)
        define(f"q{c + 1}", lambda c=c: explain.fixed(float(result.q[i, c]), 2))
        define(f"k{c + 1}", lambda c=c: explain.fixed(float(result.k[j, c]), 2))
    for c in range(s.d_v):
        define(f"v{c + 1}_worked", lambda c=c: explain.projection(result, "v", j, c).text)
        define(f"output{c + 1}_worked", lambda c=c: explain.output(result, i, c).text)
    # the worked lines of every coordinate: those already asked for are not worked out again
    define("q_worked", lambda: _lines(vals[f"q{c + 1}_worked"] for c in range(s.d_k)))
    define("k_worked", lambda: _lines(vals[f"k{c + 1}_worked"] for c in range(s.d_k)))
    define("v_worked", lambda: _lines(vals[f"v{c + 1}_worked"] for c in range(s.d_v)))
    define("output_worked", lambda: _lines(vals[f"output{c + 1}_worked"] for c in range(s.d_v)))
    # the pair's score, scaled score and weight: each worked out once for its number and its worked line
    score = functools.cache(lambda: explain.score(result, i, j))
    scaled = functools.cache(lambda: explain.scaled(result, i, j))
    weight = functools.cache(lambda: explain.weight(result, i, j))
    define("score_worked", lambda: score().text)
    define("score", lambda: explain.fixed(score().value, 4))
    define("norm_q_worked", lambda: explain.norm(result, "q", i).text)
    define("norm_k_worked", lambda: explain.norm(result, "k", j).text)
    define("cosine_worked", lambda: explain.cosine(result, i, j).text)
    define("scaled_worked", lambda: scaled().text)
    define("scaled", lambda: "masked" if not result.allowed[i, j] else explain.fixed(scaled().value, 4))
    define("weight_worked", lambda: weight().text)
    define("weight", lambda: explain.fixed(weight().value, 4))
    blocked = ~result.allowed[i]
    define("scores_row", lambda: labelled_row(s.tokens, result.scores[i], 4))
    define("scaled_row", lambda: labelled_row(s.tokens, result.scaled[i], 4, skip=blocked))
    define("weights_row", lambda: labelled_row(s.tokens, result.weights[i], 2))
    define("weights_row_sum", lambda: explain.fixed(float(np.sum(result.weights[i])), 2))
    rope = functools.cache(lambda: rope_values(result, i, j))
    for name in ROPE_KEYS:
        define(name, lambda name=name: rope()[name])
    return vals


#: The placeholders of the appendix "Where does position come in?" (``rope_values``).
ROPE_KEYS = ("rope_state", "rope_m", "rope_n", "rope_distance", "rope_pairs", "rope_theta", "rope_f1",
             "rope_f_last", "rope_angle_q", "rope_angle_k", "rope_q_pair", "rope_q_pair_turned", "rope_turn_worked",
             "rope_score_plain", "rope_score_turned", "rope_shift", "rope_m_shifted", "rope_n_shifted",
             "rope_score_shifted")


def rope_values(result: AttentionResult, i: int, j: int) -> dict:
    """The rotary-position numbers of query ``i`` and key ``j`` (0-based): how pair 1 turns, and q·k without and
    with the turn, and with both words moved ``rope_lab.SHIFT`` places on. With rotary positions off they say
    what switching them on would give (the same head, its θ)."""
    s = result.scenario
    if s.d_k < 2:
        missing = "(d_k = 1: no pair of numbers to turn)"
        return {name: missing for name in ROPE_KEYS}
    turned = result if s.rotary else compute(s.with_options(rotary=True))
    plain = compute(s.with_options(rotary=False))
    ts = turned.scenario
    half = ts.d_k // 2
    f = np.asarray(ts.frequencies)
    m, n = int(ts.query_positions[i]), int(ts.key_positions[j])
    shift = rope_lab.SHIFT
    shifted = rope_lab.score_at(plain.q[i], plain.k[j], f, m + shift, n + shift)
    return {
        "rope_state": ("Rotary positions are on in this example." if s.rotary else
                       "Rotary positions are off in this example; the numbers here are what they would be if "
                       "you switched them on."),
        "rope_m": str(m), "rope_n": str(n), "rope_distance": str(m - n),
        "rope_pairs": str(half), "rope_theta": f"{ts.rope_theta:,.10g}",
        "rope_f1": explain.significant(float(f[0])), "rope_f_last": explain.significant(float(f[-1])),
        "rope_angle_q": explain.significant(float(turned.q_angles[i, 0])),
        "rope_angle_k": explain.significant(float(turned.k_angles[j, 0])),
        "rope_q_pair": vector([turned.q_unrotated[i, 0], turned.q_unrotated[i, half]]),
        "rope_q_pair_turned": vector([turned.q[i, 0], turned.q[i, half]]),
        "rope_turn_worked": explain.rotation(turned, i, j, 0).text,
        "rope_score_plain": explain.fixed(float(plain.scores[i, j]), 4),
        "rope_score_turned": explain.fixed(float(turned.scores[i, j]), 4),
        "rope_shift": str(shift), "rope_m_shifted": str(m + shift), "rope_n_shifted": str(n + shift),
        "rope_score_shifted": explain.fixed(shifted, 4),
    }


# ----- exercises -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Exercise:
    kind: str  # "q", "score", "weight" or "output"
    i: int  # query token (0-based)
    j: int  # key token, for "score" and "weight"
    c: int  # coordinate, for "q" and "output"
    value: float  # the hidden number
    decimals: int  # the answer is checked to this many decimals
    symbol: str  # e.g. "q1", "score", "weight", "out2"
    question: str  # what the student is asked, in plain words
    given: str  # the numbers the student works from
    worked: str  # the worked arithmetic (explain's text), shown after checking


def make_exercise(result: AttentionResult, kind: str, i: int = 0, j: int = 0, c: int = 0) -> Exercise:
    """Hide one number of ``result``: a q coordinate, a score, a softmax weight or an output cell."""
    if kind not in EXERCISE_DECIMALS:
        raise ScenarioError(f"exercise kind: expected one of {', '.join(EXERCISE_KINDS)}, got {kind!r}")
    n, m = result.n, result.n_keys
    _check_tokens(n, m)
    if not (0 <= i < n and 0 <= j < m):
        raise ScenarioError(f"token index out of range: there are {n} queries and {m} keys")
    s = result.scenario
    d = EXERCISE_DECIMALS[kind]
    keys = s.key_tokens  # the source's tokens in cross-attention
    ti, tj = f"'{s.tokens[i]}'", f"'{keys[j]}'"
    if kind == "q":
        if not 0 <= c < s.d_k:
            raise ScenarioError(f"coordinate {c + 1}: the query has {s.d_k} coordinates")
        e = explain.projection(result, "q", i, c)
        question = f"What is {feature_names.header(s, 'q', c)}, coordinate {c + 1} of the query of token {ti}?"
        col = [float(s.w_q[r, c]) for r in range(s.d_model)]
        given = f"x of {ti} = {vector(s.x[i])};  column {c + 1} of W^Q = {vector(col)}"
        if s.b_q[c] != 0.0:  # the query bias is part of the sum: the student needs it too
            given += f";  bias b^Q{c + 1} = {explain.trimmed(float(s.b_q[c]), 2)}"
    elif kind == "score":
        e = explain.score(result, i, j)
        question = f"What is the raw score of query {ti} against key {tj} (before scaling)?"
        given = f"q of {ti} = {vector(result.q[i])};  k of {tj} = {vector(result.k[j])}"
    elif kind == "weight":
        if not result.allowed[i, j]:
            raise ScenarioError(f"the mask hides key {tj} from query {ti}: its weight is simply 0")
        e = explain.weight(result, i, j)
        question = f"What softmax weight does query {ti} give to key {tj}?"
        if s.softmax_over == "keys":
            given = f"scaled scores of row {ti}: {labelled_row(keys, result.scaled[i], 4, skip=~result.allowed[i])}"
        else:
            given = (f"scaled scores of column {tj} (column-wise mode): "
                     f"{labelled_row(s.tokens, result.scaled[:, j], 4, skip=~result.allowed[:, j])}")
    else:
        if not 0 <= c < s.d_v:
            raise ScenarioError(f"coordinate {c + 1}: the output has {s.d_v} coordinates")
        e = explain.output(result, i, c)
        question = f"What is coordinate {c + 1} of the output of token {ti}?"
        given = (f"weights of {ti}: {labelled_row(keys, result.weights[i], 2)};  "
                 f"coordinate {c + 1} of each value: {labelled_row(keys, result.v[:, c], 2)}")
    return Exercise(kind, i, j, c, float(e.value), d, e.symbol, question, given, e.text)


def pick_exercise(result: AttentionResult, kind: str, seed: int) -> Exercise:
    """A question of ``kind`` about a token pair and coordinate drawn from ``seed`` (repeatable)."""
    n, m = result.n, result.n_keys
    _check_tokens(n, m)
    rng = np.random.default_rng(int(seed))
    s = result.scenario
    width = {"q": s.d_k, "output": s.d_v}.get(kind, 1)
    for _ in range(64):
        i, j, c = int(rng.integers(n)), int(rng.integers(m)), int(rng.integers(width))
        if kind != "weight" or result.allowed[i, j]:
            return make_exercise(result, kind, i, j, c)
    open_pairs = np.argwhere(result.allowed)  # a weight the masks leave open, if there is one
    if kind == "weight" and len(open_pairs):
        i, j = (int(v) for v in open_pairs[0])
        return make_exercise(result, kind, i, j, 0)
    return make_exercise(result, kind, 0, 0, 0)


def _check_tokens(n: int, m: int) -> None:
    if n == 0:
        raise ScenarioError("there are no tokens to ask about: type a sentence first")
    if m == 0:
        raise ScenarioError("there are no keys to ask about: type a source sentence first")


def check_answer(text: str, value: float, decimals: int) -> tuple[bool, str]:
    """Is ``text`` right to ``decimals`` decimals? Returns (right, a short message).

    Right means within half a unit of the last shown decimal of the true value
    (so both 0.05 and 0.047 are right for 0.0471 at 2 decimals). Text that is
    not a number is wrong, with the reason.
    """
    try:
        answer = parse_number(text)
    except ValueError as exc:
        return False, f"That is not a number ({exc})."
    tolerance = 0.5 * 10.0 ** (-decimals) * (1 + 1e-9) + 1e-12
    shown = explain.fixed(value, decimals)
    if abs(answer - value) <= tolerance:
        return True, f"Right: it is {shown} (to {decimals} decimals)."
    return False, f"Not quite: you gave {explain.trimmed(answer, decimals + 3)}, the number is {shown}."


#: How each kind of hidden number is worked out, in plain words (the first hint after a wrong answer).
METHOD_HINTS = {
    "q": "Multiply each number of x by the number beside it in that column of W^Q, then add up the products.",
    "score": "Multiply q and k number by number (first by first, second by second, ...), then add up the products.",
    "weight": "Take e to the power of each scaled score it is shared among, then divide this one's by their total.",
    "output": "Multiply each weight by the matching value number, then add up the products.",
}


def exercise_hint(ex: Exercise, answer: float, tries: int) -> str:
    """What to say after wrong answer number ``tries`` (1, 2, ...): a hint, never the number itself.

    First how the number is worked out; then also whether the answer is too high or too low;
    from the third try on, where to look, and that the answer can be shown."""
    method = METHOD_HINTS[ex.kind]
    side = "too high" if answer > ex.value else "too low"
    if tries <= 1:
        return f"Not quite. Try again. Hint: {method}"
    if tries == 2:
        return f"Not yet: your answer is {side}. {method}"
    return (f"Still not it: your answer is {side}. Check each product and the sum, and give "
            f"{ex.decimals} decimals. Or press Show answer.")
