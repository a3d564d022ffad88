"""What each head does, in one word: a label for every head by simple published criteria.

Scores, each averaged over the query rows that have a choice (more than one key allowed; under GPT-2's
causal mask row 0 may only look at itself and says nothing about the head):

    previous   weight on the token before,  w[i, i-1]       (rows 1 .. n-1)   Clark et al. 2019
    next       weight on the token after,   w[i, i+1]       (rows 0 .. n-2)   0 under a causal mask
    self       weight on itself,            w[i, i]
    first      weight on position 0,        w[i, 0]         ([CLS], BOS: a "sink")
    separator  weight summed over [SEP], </s> and punctuation tokens
    broad      normalised entropy, -sum_j w[i, j] log w[i, j] / log k_i over the k_i allowed keys

A head gets the label of the highest of previous, next, self, first, separator that is above its
threshold (FOCUSED_MIN = 0.5; an exact tie goes to the one named first); if none is, "broad" when
broad > BROAD_MIN = 0.8; otherwise "mixed". Over several sentences (head_labels_over) each score is first
averaged over the sentences, then the same rule applies.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ScenarioError
from .rollout import layer_weights
from .word_pieces import is_punctuation

#: A focused score (previous, next, self, first, separator) must be above this to give its label.
FOCUSED_MIN = 0.5
#: The normalised entropy a head must be above to be called "broad".
BROAD_MIN = 0.8
#: Tokens counted by the separator score besides punctuation.
SEPARATORS = ("[SEP]", "</s>")
#: The focused labels, in order of precedence for an exact tie.
FOCUSED = ("previous", "next", "self", "first", "separator")
SCORES = FOCUSED + ("broad",)
#: Every label and what it means, for the app's legend.
LEGEND = (
    ("previous", f"looks at the token just before (more than {FOCUSED_MIN:.0%} of its attention)"),
    ("next", f"looks at the token just after (more than {FOCUSED_MIN:.0%}; impossible with a causal mask)"),
    ("self", f"looks at the token itself (more than {FOCUSED_MIN:.0%})"),
    ("first", f"looks at the first token, [CLS] or the start: a resting place (more than {FOCUSED_MIN:.0%})"),
    ("separator", f"looks at [SEP] or punctuation (more than {FOCUSED_MIN:.0%} together)"),
    ("broad", f"spreads its attention evenly over many tokens (normalised entropy above {BROAD_MIN})"),
    ("mixed", "none of the above: a pattern these simple rules do not name"),
)


@dataclass(frozen=True, eq=False)
class HeadLabels:
    """A label for every head (labels[layer][head]) and the scores behind them (name -> L x H)."""

    labels: tuple  # L tuples of H names from LEGEND
    scores: dict  # SCORES name -> L x H float64, read-only
    legend: tuple = LEGEND  # (name, one-line description) for each label


def _inputs(weights, tokens, allowed) -> tuple:
    """(weights L x H x n x n float64, or float32 as given, tokens, allowed n x n bool), from a ModelTrace or
    given apart."""
    if tokens is None and hasattr(weights, "weights") and hasattr(weights, "tokens"):
        weights, tokens, allowed = weights.weights, weights.tokens, getattr(weights, "allowed", None)
    single = getattr(weights, "dtype", None) == np.float32  # a trace's: kept, a log in float32 is 6 times faster
    w = layer_weights(weights, np.float32 if single else np.float64)
    n = w.shape[-1]
    if tokens is None or len(tokens) != n:
        raise ScenarioError(f"tokens: expected {n}, one per row of the weights")
    allowed = np.ones((n, n), dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    if allowed.shape != (n, n):
        raise ScenarioError(f"allowed: expected shape {(n, n)}, got {allowed.shape}")
    return w, tuple(tokens), allowed


def _row_mean(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Mean of ``values`` (L x H x r) over the rows where ``rows`` (r, bool) holds; 0 when none does."""
    if not rows.any():
        return np.zeros(values.shape[:2])
    return values[..., rows].mean(axis=-1)


def head_scores(weights, tokens=None, allowed=None) -> dict:
    """Each score of the module docstring for every head: name -> L x H float64. ``weights`` L x H x n x n
    (or a ModelTrace, then tokens and allowed come from it), ``tokens`` as shown, ``allowed`` n x n bool."""
    w, tokens, allowed = _inputs(weights, tokens, allowed)
    keys = allowed.sum(axis=1)  # n: allowed keys of each row
    choice = keys > 1  # rows that say something about the head
    marks = np.array([t in SEPARATORS or is_punctuation(t) for t in tokens], dtype=w.dtype)  # n: 1 on a mark
    log_w = np.log(np.where((w > 0.0) & allowed, w, 1.0))  # 0 where w is 0 or the key is hidden
    entropy = -np.einsum("lhij,lhij->lhi", w, log_w)  # L x H x n: -sum over allowed j of w log w
    norm = np.log(np.maximum(keys, 2))  # n; rows with one key are left out below
    return {
        "previous": _row_mean(np.diagonal(w, offset=-1, axis1=2, axis2=3), choice[1:]),  # w[i, i-1]
        "next": _row_mean(np.diagonal(w, offset=1, axis1=2, axis2=3), choice[:-1]),  # w[i, i+1]
        "self": _row_mean(np.diagonal(w, axis1=2, axis2=3), choice),  # w[i, i]
        "first": _row_mean(w[..., 0], choice),  # w[i, 0]
        "separator": _row_mean(w @ marks, choice),  # sum of w[i, j] over marked j
        "broad": _row_mean(entropy / norm, choice),
    }


def labels_of(scores: dict) -> HeadLabels:
    """The label of every head from its scores (name -> L x H), by the rule of the module docstring."""
    focused = np.stack([scores[name] for name in FOCUSED])  # 5 x L x H
    best = focused.argmax(axis=0)  # the first of equal highest: the order of FOCUSED breaks ties
    passed = focused.max(axis=0) > FOCUSED_MIN
    broad = scores["broad"] > BROAD_MIN
    labels = tuple(
        tuple(FOCUSED[best[li, h]] if passed[li, h] else "broad" if broad[li, h] else "mixed"
              for h in range(best.shape[1]))
        for li in range(best.shape[0]))
    frozen = {}
    for name in SCORES:
        a = np.array(scores[name], dtype=np.float64)
        a.setflags(write=False)
        frozen[name] = a
    return HeadLabels(labels=labels, scores=frozen)


def head_labels(weights, tokens=None, allowed=None) -> HeadLabels:
    """A label and scores for every head of one sentence: ``head_labels(trace)`` or
    ``head_labels(weights, tokens, allowed)`` (weights L x H x n x n; allowed n x n bool, None: all)."""
    return labels_of(head_scores(weights, tokens, allowed))


def head_labels_over(sentences) -> HeadLabels:
    """Labels over several sentences: each score averaged over them, then the same rule. ``sentences``:
    ModelTraces or (weights, tokens, allowed) triples of one model (the same layers and heads)."""
    each = [head_scores(s) if not isinstance(s, (tuple, list)) else head_scores(*s) for s in sentences]
    if not each:
        raise ScenarioError("sentences: give at least one")
    shapes = {e["self"].shape for e in each}
    if len(shapes) != 1:
        raise ScenarioError(f"sentences: every one must have the same layers and heads, got {sorted(shapes)}")
    return labels_of({name: np.mean([e[name] for e in each], axis=0) for name in SCORES})
