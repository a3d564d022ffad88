"""Worked arithmetic for any single number of an attention result.

Each function returns an :class:`Explanation`: the terms (with the numbers
they multiply and a role for colouring), the value, and the text a student
reads, in the style

    q1 = 0.5(0.1) + (-0.3)(0.2) + 0.8(-0.3) + 0.2(0.6) = 0.05 - 0.06 - 0.24 + 0.12 = -0.13

Indices in the text count from 1, as in the lessons; arguments count from 0.
When the scenario names its features or columns (``qkv_engine.feature_names``),
the worked line says them: each product is tagged with its feature, and the
left-hand side carries the column's name:

    q1 · looks for animate = 0(0) [animate] + 1(2) [pronoun] = 0.00 + 2.00 = 2.00
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from . import feature_names
from .attention import AttentionResult
from .errors import ScenarioError

#: Sums with more terms than this are shortened in the text (never in ``terms``) to their
#: ``LARGEST_SHOWN`` largest terms and the sum of the others.
MAX_SHOWN_TERMS = 8
LARGEST_SHOWN = 5
#: Scaled scores above this are shifted by their maximum in the shown softmax, as code does.
_SHIFT_ABOVE = 30.0

ROLE_OF = {"q": "query", "k": "key", "v": "value"}
GRID_OF = {"q": "W^Q", "k": "W^K", "v": "W^V"}


class Term(NamedTuple):
    """One term of a sum: the product of ``factors`` (one or two numbers). (A named tuple, not a frozen
    dataclass: a row of 512 keys makes 512 of them at each edit, and a tuple is made four times faster.)"""

    factors: tuple  # the numbers multiplied
    roles: tuple  # role of each factor: "x", "weight_grid", "bias", "query", "key", "value", "attention", "score"
    labels: tuple  # symbolic name of each factor, e.g. ("x1", "W^Q[1,1]")
    value: float  # the product


@dataclass(frozen=True)
class Explanation:
    kind: str  # "q", "k", "v", "score", "scaled", "weight", "output", "norm", "cosine"
    symbol: str  # the left-hand side, e.g. "q1"
    about: str  # whose number it is, e.g. "token 'cat'" or "query 'sat' -> key 'cat'"
    terms: tuple  # the Terms whose values add up to ``total``
    total: float  # sum of the term values (for a sum, equal to ``value``)
    value: float  # the number this explains
    decimals: int
    text: str  # the whole worked line(s), ready to show
    formula: str  # the rule in symbols, e.g. "q1 = x1 W^Q[1,1] + ... + x4 W^Q[4,1]"
    angle: float | None = None  # degrees, for "cosine"


#: A Term made straight from its four fields, as ``Term._make`` does (a row of 512 keys makes 512 of them at
#: each edit: the named tuple's own constructor is a Python call each).
_term = tuple.__new__


@functools.lru_cache(maxsize=8)
def _labels_s(count: int) -> tuple:
    """The labels of a softmax's terms: ("s1",), ("s2",), ..."""
    return tuple((f"s{m + 1}",) for m in range(count))


@functools.lru_cache(maxsize=64)
def _labels_av(count: int, c: int) -> tuple:
    """The labels of an output coordinate's terms: ("a1", "v1[c]"), ("a2", "v2[c]"), ..."""
    return tuple((f"a{j + 1}", f"v{j + 1}[{c + 1}]") for j in range(count))


@functools.lru_cache(maxsize=256)
def _labels_xw(count: int, grid: str, c: int) -> tuple:
    """The labels of a projection's terms: ("x1", "W^Q[1,c]"), ("x2", "W^Q[2,c]"), ..."""
    return tuple((f"x{r + 1}", f"{grid}[{r + 1},{c + 1}]") for r in range(count))


@functools.lru_cache(maxsize=8)
def _labels_qk(count: int) -> tuple:
    """The labels of a score's terms: ("q1", "k1"), ("q2", "k2"), ..."""
    return tuple((f"q{c + 1}", f"k{c + 1}") for c in range(count))


@functools.lru_cache(maxsize=16)
def _labels_sq(which: str, count: int) -> tuple:
    """The labels of a length's terms: ("q1", "q1"), ("q2", "q2"), ..."""
    return tuple((f"{which}{c + 1}", f"{which}{c + 1}") for c in range(count))


# ----- number formatting ---------------------------------------------------------------
def fixed(v: float, decimals: int) -> str:
    """``v`` with exactly ``decimals`` decimals; never prints -0.00."""
    s = f"{v:.{decimals}f}"
    if s.lstrip("-").strip("0.") == "":
        s = s.lstrip("-")
    return s


def trimmed(v: float, decimals: int) -> str:
    """``v`` to at most ``decimals`` decimals, trailing zeros dropped (0.50 -> 0.5)."""
    s = fixed(v, decimals)
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _factor(v: float, decimals: int, first: bool) -> str:
    s = trimmed(v, decimals)
    return s if first and not s.startswith("-") else f"({s})"


def _signed_sum(values, decimals: int) -> str:
    parts = []
    for idx, v in enumerate(values):
        s = fixed(v, decimals)
        if idx == 0:
            parts.append(s)
        elif s.startswith("-"):
            parts.append(f"- {s[1:]}")
        else:
            parts.append(f"+ {s}")
    return " ".join(parts)


def largest(values, count: int = LARGEST_SHOWN) -> tuple[list, float]:
    """The places of the ``count`` values largest in size (in their order) and the sum of all the others:
    what a long sum shows of itself (384 products of a real model's query, say)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) <= count:
        return list(range(len(values))), 0.0
    keep = sorted(np.argsort(-np.abs(values), kind="stable")[:count].tolist())
    rest = float(values.sum() - values[keep].sum())
    return keep, rest


class _Lazy:
    """A read-only list whose items are made when first read: a long sum shows only a few of its 384
    products, so only those are written out (``_shorten`` reads its items by index, slice and length)."""

    def __init__(self, count: int, make):
        self._count, self._make, self._made = count, make, {}

    def __len__(self) -> int:
        return self._count

    def __iter__(self):
        return (self._item(k) for k in range(self._count))

    def _item(self, k: int):
        if not 0 <= k < self._count:
            raise IndexError(k)
        if k not in self._made:
            self._made[k] = self._make(k)
        return self._made[k]

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self._item(m) for m in range(*k.indices(self._count))]
        return self._item(k if k >= 0 else self._count + k)


def _others(count: int) -> str:
    return f"the other {count} terms"


def _shorten(items: list[str], sep: str = " + ", values=None, labels=None, rest_decimals=None) -> str:
    """The items joined; a long list keeps only the terms of the largest ``values`` (each followed by
    its label, e.g. "[x17]") and says how many it left out (and, with ``rest_decimals``, what they add
    up to)."""
    if len(items) <= MAX_SHOWN_TERMS:
        return sep.join(items)
    if values is None:  # no sizes to choose by: the first and last few
        return sep.join(items[:3]) + f"{sep}... ({len(items) - 5} more){sep}" + sep.join(items[-2:])
    keep, rest = largest(values)
    shown = [items[k] + (f" {labels[k]}" if labels is not None else "") for k in keep]
    others = _others(len(items) - len(keep))
    tail = f"({others})" if rest_decimals is None else f"{fixed(rest, rest_decimals)} ({others})"
    return sep.join(shown) + f"{sep}{tail}"


def _signed_sum_short(values, decimals: int) -> str:
    """The signed sum of ``values``; a long one shows its largest terms and the rest as one number."""
    if len(values) <= MAX_SHOWN_TERMS:
        return _signed_sum(values, decimals)
    keep, rest = largest(values)
    text = _signed_sum([values[k] for k in keep], decimals)
    sign = "-" if fixed(rest, decimals).startswith("-") else "+"
    return f"{text} {sign} {fixed(abs(rest), decimals)} ({_others(len(values) - len(keep))})"


def _worked(symbol: str, products: str, terms, value: float, decimals: int) -> str:
    """``symbol = products = signed sum = value``, skipping the sum when there is one term."""
    if len(terms) == 1:
        return f"{symbol} = {products} = {fixed(value, decimals)}"
    return f"{symbol} = {products} = {_signed_sum_short([t.value for t in terms], decimals)} = {fixed(value, decimals)}"


def _tagged(products: list, tags) -> list:
    """``["1(2) [animate]", ...]``: each product followed by its tag; unchanged when ``tags`` is None."""
    return products if tags is None else [f"{p} [{t}]" for p, t in zip(products, tags)]


def _check(result: AttentionResult, i: int | None = None, j: int | None = None, col=None, width=None,
           i_is_key: bool = False):
    for name, idx, n in (("key" if i_is_key else "query", i, result.n_keys if i_is_key else result.n),
                         ("key", j, result.n_keys)):
        if idx is not None and not (0 <= idx < n):
            raise ScenarioError(f"{name} index {idx}: there are {n} tokens")
    if col is not None and not (0 <= col < width):
        raise ScenarioError(f"column {col}: the vector has {width} coordinates")


def _tok(result: AttentionResult, i: int) -> str:
    return f"'{result.tokens[i]}'"


def _ktok(result: AttentionResult, j: int) -> str:
    return f"'{result.key_tokens[j]}'"


_MASK_REASON = {
    1: "it comes later in the sentence (causal mask)",
    2: "it is marked as padding",
    3: "that cell is blocked by hand",
}


# ----- the explanations ------------------------------------------------------------------
def projection(result: AttentionResult, which: str, i: int, c: int, decimals: int = 2) -> Explanation:
    """Coordinate ``c`` of token ``i``'s query, key or value (``which`` = "q", "k" or "v").

    When the bias of that coordinate is not 0 it is named and added last, e.g.
    ``q1 = 0.5(0.1) + (-0.3)(0.2) + b^Q1 = 0.05 - 0.06 + 0.12 = 0.11``.
    """
    if which not in GRID_OF:
        raise ScenarioError(f"which: expected 'q', 'k' or 'v', got {which!r}")
    s = result.scenario
    grid = {"q": s.w_q, "k": s.w_k, "v": s.w_v}[which]
    target = {"q": result.q_unrotated, "k": result.k_unrotated, "v": result.v}[which]  # x W + b, before any turn
    keyside = which != "q"
    _check(result, i=i, col=c, width=grid.shape[1], i_is_key=keyside)
    x = np.asarray((s.key_x if keyside else s.x)[i])
    column = np.asarray(grid[:, c])
    # Python floats, the same products (a real model's 384 terms at each edit: made from lists, not one by one)
    x_values = (x * column).tolist()
    roles, labels = ("x", "weight_grid"), _labels_xw(s.d_model, GRID_OF[which], c)
    terms = tuple([_term(Term, ((a, b), roles, label, ab))
                   for a, b, label, ab in zip(x.tolist(), column.tolist(), labels, x_values)])
    products = _Lazy(s.d_model, lambda r: f"{_factor(terms[r].factors[0], decimals, True)}"
                                          f"{_factor(terms[r].factors[1], decimals, False)}")
    bias = float({"q": s.b_q, "k": s.b_k, "v": s.b_v}[which][c])
    bias_name = f"b^{GRID_OF[which][-1]}{c + 1}"
    if bias != 0.0:
        terms += (Term((bias,), ("bias",), (bias_name,), bias),)
    value = float(target[i, c])
    symbol = f"{which}{c + 1}"
    lhs = feature_names.header(s, which, c)
    named = feature_names.any_named(s, "x")
    tags = [feature_names.plain(s, "x", r) for r in range(s.d_model)] if named else None
    xs = _Lazy(s.d_model, lambda r: f"x{r + 1} ({tags[r]})" if named and feature_names.name(s, "x", r)
               else f"x{r + 1}")
    if s.d_model <= MAX_SHOWN_TERMS:
        products = _shorten(_tagged(products[:], tags))
    else:  # the largest products, each tagged with its dial
        products = _shorten(products, values=x_values,
                            labels=_Lazy(s.d_model, lambda r: f"[{xs[r].replace(' (', ' · ').rstrip(')')}]"))
    symbols = _shorten(_Lazy(s.d_model, lambda r: f"{xs[r]}·{GRID_OF[which]}[{r + 1},{c + 1}]"))
    if bias != 0.0:  # the bias is named, and stays visible even when a long sum is shortened
        sums = _signed_sum_short(x_values, decimals)
        sums += " " + _signed_sum([0.0, bias], decimals).split(" ", 1)[1]
        text = f"{lhs} = {products} + {bias_name} = {sums} = {fixed(value, decimals)}"
        formula = f"{lhs} = {symbols} + {bias_name}"
    else:
        text = _worked(lhs, products, terms, value, decimals)
        formula = f"{lhs} = {symbols}"
    who = _ktok(result, i) if keyside else _tok(result, i)
    total = sum(x_values) + bias if bias != 0.0 else sum(x_values)  # (in the order of the terms)
    return Explanation(which, symbol, f"{ROLE_OF[which]} of token {who}", terms,
                       float(total), value, decimals, text, formula)


def score(result: AttentionResult, i: int, j: int, decimals: int = 4) -> Explanation:
    """The raw score of query ``i`` against key ``j``: q_i . k_j."""
    _check(result, i=i, j=j)
    terms, sizes = _score_terms(result, i, j)
    count = len(terms)
    value = float(result.scores[i, j])
    s = result.scenario
    products = _shorten(_Lazy(count, lambda c: f"{_factor(terms[c].factors[0], decimals, False)}"
                                               f"{_factor(terms[c].factors[1], decimals, False)}"),
                        values=sizes, labels=_Lazy(count, lambda c: f"[d{c + 1}]"))
    text = _worked("score = q·k", products, terms, value, decimals)
    # the numbers stay short; the rule (shown as a tooltip) says what each named pair of columns does
    names = [feature_names.name(s, "q", c) or feature_names.name(s, "k", c) for c in range(count)]
    formula = "score = q·k = " + _shorten(_Lazy(count, lambda c: f"q{c + 1}·k{c + 1}"
                                                               + (f" ({names[c]})" if names[c] else "")))
    return Explanation("score", "score", f"query {_tok(result, i)} -> key {_ktok(result, j)}", terms,
                       float(sum(sizes)), value, decimals, text, formula)


def _score_terms(result: AttentionResult, i: int, j: int) -> tuple:
    """(terms, their values) of q_i . k_j: one product for each coordinate."""
    q, k = np.asarray(result.q[i]), np.asarray(result.k[j])
    sizes = (q * k).tolist()  # Python floats, the same products
    roles, labels = ("query", "key"), _labels_qk(len(sizes))
    return tuple([_term(Term, ((a, b), roles, label, ab)) for a, b, label, ab in zip(q.tolist(), k.tolist(), labels, sizes)]), sizes


def scaled(result: AttentionResult, i: int, j: int, decimals: int = 4) -> Explanation:
    """The score after dividing by sqrt(d_k) (if on) and the temperature, or -inf if masked."""
    _check(result, i=i, j=j)
    s = result.scenario
    raw = float(result.scores[i, j])
    about = f"query {_tok(result, i)} -> key {_ktok(result, j)}"
    terms = (Term((raw,), ("score",), ("score",), raw),)
    if not result.allowed[i, j]:
        reason = _MASK_REASON.get(int(result.masked_by[i, j]), "it is masked")
        text = (f"masked: {_tok(result, i)} may not look at {_ktok(result, j)} because {reason}, "
                f"so its score is set to -inf and its weight becomes 0")
        return Explanation("scaled", "scaled", about, terms, raw, float("-inf"), decimals, text,
                           "masked score = -inf")
    parts_sym, parts_num = [], []
    if s.scale:
        parts_sym.append(f"√{s.d_k}")
        parts_num.append(trimmed(math.sqrt(s.d_k), decimals))
    if s.temperature != 1.0:
        parts_sym.append(f"T={trimmed(s.temperature, decimals)}")
        parts_num.append(trimmed(s.temperature, decimals))
    value = float(result.scaled[i, j])
    if not parts_sym:
        text = f"scaled = score = {fixed(value, decimals)} (scaling is off)"
        formula = "scaled = score"
    else:
        sym = " × ".join(parts_sym)
        num = " × ".join(parts_num)
        den = f"({sym})" if len(parts_sym) > 1 else sym
        numden = f"({num})" if len(parts_num) > 1 else num
        text = f"scaled = score / {den} = {fixed(raw, decimals)} / {numden} = {fixed(value, decimals)}"
        formula = f"scaled = score / {den}"
    return Explanation("scaled", "scaled", about, terms, raw, value, decimals, text, formula)


def weight(result: AttentionResult, i: int, j: int, decimals: int = 4) -> Explanation:
    """The softmax weight of query ``i`` on key ``j``: e^(s_j) over the sum of e^(s_m).

    The sum runs over the keys of row i (or, in the column-wise teaching mode,
    over the queries of column j), skipping masked entries. ``terms`` are the
    exponentials; ``total`` is their sum; ``value`` is the weight.
    """
    _check(result, i=i, j=j)
    about = f"query {_tok(result, i)} -> key {_ktok(result, j)}"
    rowwise = result.scenario.softmax_over == "keys"
    line = result.scaled[i] if rowwise else result.scaled[:, j]
    ok = result.allowed[i] if rowwise else result.allowed[:, j]
    me = j if rowwise else i
    idx = np.flatnonzero(ok).tolist()
    value = float(result.weights[i, j])
    if not ok[me]:
        text = "masked: this weight is exactly 0"
        if not idx:
            side = "key of this row" if rowwise else "query of this column"
            text += (f" (every {side} is masked, so there is nothing to share the weight over: "
                     f"all its weights are 0{' and the output is the zero vector' if rowwise else ''})")
        return Explanation("weight", "weight", about, (), 0.0, value, decimals, text, "masked weight = 0")
    scores = line.tolist()  # Python floats
    top = max(scores[m] for m in idx)
    shift = top if top > _SHIFT_ABOVE or top < -_SHIFT_ABOVE else 0.0
    roles, labels = ("score",), _labels_s(len(scores))
    sizes = [math.exp(scores[m] - shift) for m in idx]
    terms = tuple([_term(Term, ((scores[m],), roles, labels[m], e)) for m, e in zip(idx, sizes)])
    total = float(sum(sizes))
    mine = math.exp(float(line[me]) - shift)
    over = "keys" if rowwise else "queries (column-wise: the classic bug)"

    def ex(v: float) -> str:
        return f"e^{_factor(v, decimals, True)}" if shift == 0.0 else f"e^({trimmed(v, decimals)} - {trimmed(shift, decimals)})"

    count = len(terms)  # a long row shows only its largest terms: only those are written out
    exps = _shorten(_Lazy(count, lambda t: ex(terms[t].factors[0])), values=sizes,
                    labels=_Lazy(count, lambda t: f"({_ktok(result, idx[t]) if rowwise else _tok(result, idx[t])})"))
    vals = _shorten(_Lazy(count, lambda t: fixed(terms[t].value, decimals)), values=sizes, rest_decimals=decimals)
    if len(terms) == 1:
        text = f"weight = {ex(float(line[me]))} / {ex(float(line[me]))} = {fixed(value, decimals)} (the only {'key' if rowwise else 'query'})"
    else:
        text = (f"weight = {ex(float(line[me]))} / ({exps}) = {fixed(mine, decimals)} / ({vals}) = "
                f"{fixed(mine, decimals)} / {fixed(total, decimals)} = {fixed(value, decimals)}")
    if shift:
        text += f"  (the largest score, {trimmed(shift, decimals)}, is subtracted first so nothing overflows)"
    formula = f"weight = e^(s_me) / sum of e^(s_m) over all {over}"
    return Explanation("weight", "weight", about, terms, total, value, decimals, text, formula)


def output(result: AttentionResult, i: int, c: int, decimals: int = 2) -> Explanation:
    """Coordinate ``c`` of token ``i``'s output: the sum over j of weight[i, j] * v_j[c]."""
    _check(result, i=i, col=c, width=result.v.shape[1])
    w, v = result.weights[i].tolist(), result.v[:, c].tolist()  # Python floats: the same products, made faster
    roles, labels = ("attention", "value"), _labels_av(result.n_keys, c)
    sizes = [a * b for a, b in zip(w, v)]
    terms = tuple([_term(Term, ((a, b), roles, label, ab)) for a, b, label, ab in zip(w, v, labels, sizes)])
    value = float(result.output[i, c])
    count = len(terms)  # many keys: only the largest products are written out
    products = _shorten(_Lazy(count, lambda j: f"{_factor(terms[j].factors[0], decimals, True)}"
                                               f"{_factor(terms[j].factors[1], decimals, False)}"),
                        values=sizes, labels=_Lazy(count, lambda j: f"({_ktok(result, j)})"))
    symbol = f"out{c + 1}"
    lhs = feature_names.header(result.scenario, "out", c)
    text = _worked(lhs, products, terms, value, decimals)
    formula = f"{lhs} = " + _shorten(_Lazy(count, lambda j: f"a{j + 1}·v{j + 1}[{c + 1}]"))
    return Explanation("output", symbol, f"output of token {_tok(result, i)}", terms,
                       float(sum(sizes)), value, decimals, text, formula)


def norm(result: AttentionResult, which: str, i: int, decimals: int = 4) -> Explanation:
    """The length |q|, |k| or |v| of token ``i``'s vector: the square root of the sum of squares."""
    if which not in GRID_OF:
        raise ScenarioError(f"which: expected 'q', 'k' or 'v', got {which!r}")
    keyside = which != "q"
    _check(result, i=i, i_is_key=keyside)
    vec = np.asarray({"q": result.q, "k": result.k, "v": result.v}[which][i])
    role = ROLE_OF[which]
    sizes = (vec * vec).tolist()  # Python floats, the same squares
    roles, labels = (role, role), _labels_sq(which, len(sizes))
    terms = tuple([_term(Term, ((a, a), roles, label, aa)) for a, label, aa in zip(vec.tolist(), labels, sizes)])
    count = len(terms)  # a long vector shows only its first and last squares: only those are written out
    total = float(sum(sizes))
    value = float(math.sqrt(total))
    squares = _shorten(_Lazy(count, lambda c: f"({trimmed(terms[c].factors[0], decimals)})²"))
    text = (f"|{which}| = √({squares}) = √({_shorten(_Lazy(count, lambda c: fixed(sizes[c], decimals)))}) = "
            f"√{fixed(total, decimals)} = {fixed(value, decimals)}")
    formula = f"|{which}| = √(" + _shorten(_Lazy(count, lambda c: f"{which}{c + 1}²")) + ")"
    who = _ktok(result, i) if keyside else _tok(result, i)
    return Explanation("norm", f"|{which}|", f"{role} of token {who}", terms, total, value, decimals,
                       text, formula)


def cosine(result: AttentionResult, i: int, j: int, decimals: int = 4) -> Explanation:
    """cos(theta) between query ``i`` and key ``j``, and theta in degrees (``angle``)."""
    _check(result, i=i, j=j)
    q, k = result.q[i], result.k[j]
    dot = float(result.scores[i, j])
    nq, nk = float(math.sqrt(np.dot(q, q))), float(math.sqrt(np.dot(k, k)))
    about = f"query {_tok(result, i)} -> key {_ktok(result, j)}"
    terms, sizes = _score_terms(result, i, j)
    total = float(sum(sizes))
    if nq == 0.0 or nk == 0.0:
        which = "q" if nq == 0.0 else "k"
        text = (f"|{which}| = 0: an arrow of length 0 has no direction, so θ is undefined "
                f"and cos θ is taken as 0 (the score is 0 too)")
        return Explanation("cosine", "cos θ", about, terms, total, 0.0, decimals, text, "cos θ = q·k / (|q| |k|)", None)
    value = max(-1.0, min(1.0, dot / (nq * nk)))
    angle = math.degrees(math.acos(value))
    text = (f"cos θ = q·k / (|q| |k|) = {fixed(dot, decimals)} / ({fixed(nq, decimals)} × {fixed(nk, decimals)}) = "
            f"{fixed(value, decimals)}, so θ = {angle:.1f}°")
    return Explanation("cosine", "cos θ", about, terms, total, value, decimals, text, "cos θ = q·k / (|q| |k|)", angle)


def cell(result: AttentionResult, kind: str, i: int, j: int, decimals: int | None = None) -> Explanation:
    """Dispatch by ``kind`` for a grid cell (row i, column j), e.g. a heatmap hover.

    kind: "q", "k", "v" (token i, coordinate j), "score", "scaled", "weight",
    "output" (token i, coordinate j), "cosine".
    """
    table = {
        "q": lambda d: projection(result, "q", i, j, d),
        "k": lambda d: projection(result, "k", i, j, d),
        "v": lambda d: projection(result, "v", i, j, d),
        "score": lambda d: score(result, i, j, d),
        "scaled": lambda d: scaled(result, i, j, d),
        "weight": lambda d: weight(result, i, j, d),
        "output": lambda d: output(result, i, j, d),
        "cosine": lambda d: cosine(result, i, j, d),
    }
    if kind not in table:
        raise ScenarioError(f"kind: unknown quantity {kind!r}")
    default = 2 if kind in ("q", "k", "v", "output") else 4
    return table[kind](default if decimals is None else decimals)


def significant(v: float, digits: int = 3) -> str:
    """``v`` to ``digits`` significant digits, without an exponent for the sizes a rotation has (0.000133)."""
    if v == 0.0 or not math.isfinite(v):
        return trimmed(v, 2)
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(v)))))
    return trimmed(v, min(decimals, 12))


def turns_text(angle: float) -> str:
    """An angle in radians, said with its whole turns when it has any: "7.00 rad (1 full turn + 0.72 rad)"."""
    whole = int(abs(angle) // (2 * math.pi))
    said = f"{significant(angle)} rad"
    if whole:
        rest = abs(angle) - whole * 2 * math.pi
        said += f" ({whole} full turn{'s' if whole > 1 else ''} + {significant(rest)} rad)"
    return said


def rotation(result: AttentionResult, i: int, j: int, pair: int) -> Explanation:
    """How rotary positions turned query ``i`` and key ``j`` in pair ``pair`` (0-based) before their dot
    product: each turns by its position × the pair's speed f. ``terms`` are the two turns (position, speed);
    ``value`` is the query's angle minus the key's, (m - n) f."""
    _check(result, i=i, j=j)
    s = result.scenario
    half = s.d_k // 2
    if not s.rotary or not 0 <= pair < half:
        raise ScenarioError(f"pair {pair + 1}: this head has {half if s.rotary else 0} turning pairs")
    f = float(np.asarray(s.frequencies)[pair])
    m, n = int(s.query_positions[i]), int(s.key_positions[j])
    a_q, a_k = float(result.q_angles[i, pair]), float(result.k_angles[j, pair])
    terms = (_term(Term, ((m, f), ("position", "speed"), ("m", f"f{pair + 1}"), a_q)),
             _term(Term, ((n, f), ("position", "speed"), ("n", f"f{pair + 1}"), a_k)))
    text = (f"q and k are turned by their positions before they meet. Pair {pair + 1} (numbers {pair + 1} and "
            f"{pair + half + 1}) turns {significant(f)} rad per position: q {_tok(result, i)} at position {m} turns by "
            f"{m} × {significant(f)} = {turns_text(a_q)}; k {_ktok(result, j)} at position {n} by {n} × {significant(f)} = "
            f"{turns_text(a_k)}. The angle between them changes by ({m} − {n}) × {significant(f)} = {significant(a_q - a_k)} rad: only "
            f"the distance counts.")
    formula = f"angle = position × f{pair + 1}, f{pair + 1} = 1 / θ^({2 * pair}/{2 * half})"
    return Explanation("rotation", f"pair {pair + 1}", f"query {_tok(result, i)} -> key {_ktok(result, j)}",
                       terms, a_q - a_k, a_q - a_k, 3, text, formula)


def rotation_brief(result: AttentionResult, i: int, j: int, pair: int) -> str:
    """``rotation`` in one short line, for a narrow panel: "Turned first (pair 1): q by 4 × 1 = 4 rad,
    k by 1 × 1 = 1 rad.\""""
    ex = rotation(result, i, j, pair)
    (m, f), (n, _f) = ex.terms[0].factors, ex.terms[1].factors
    return (f"Turned first (pair {pair + 1}): q by {m} × {significant(f)} = {significant(ex.terms[0].value)} rad, "
            f"k by {n} × {significant(f)} = {significant(ex.terms[1].value)} rad.")
