"""Numbers the multi-head pictures need: where each head sits in C, and the worked
arithmetic of one cell of the projected output Y = C W^O.

    C = [O_1 O_2 ... O_h]      n x (h d_v)   head h fills columns h d_v .. (h + 1) d_v - 1
    Y = C W^O                  n x d_out     y[i, c] = sum over r of C[i, r] W^O[r, c]

Indices in the text count from 1, as in the lessons; arguments count from 0.
"""
from __future__ import annotations

from .attention import MultiHeadResult
from .errors import ScenarioError
from .explain import Explanation, Term, _factor, _shorten, _worked, fixed


def head_columns(full: MultiHeadResult) -> tuple:
    """(start, stop) of each head's columns in C (and of its rows in W^O), head by head."""
    d_v = full.scenario.d_v
    return tuple((h * d_v, (h + 1) * d_v) for h in range(full.n_heads))


def head_of_column(full: MultiHeadResult, r: int) -> int:
    """Which head (0-based) column ``r`` of C (row ``r`` of W^O) belongs to."""
    width = full.concat.shape[1]
    if not 0 <= r < width:
        raise ScenarioError(f"column {r}: C has {width} columns")
    return r // full.scenario.d_v


def projection_cell(full: MultiHeadResult, i: int, c: int, decimals: int = 2) -> Explanation:
    """Cell (i, c) of Y = C W^O: query token ``i``'s output coordinate ``c``, as the sum over r of
    C[i, r] times W^O[r, c]. With no W^O the output is C itself and the text says so."""
    s = full.scenario
    n, width = full.concat.shape
    d_out = full.projected.shape[1]
    if not 0 <= i < n:
        raise ScenarioError(f"query index {i}: there are {n} tokens")
    if not 0 <= c < d_out:
        raise ScenarioError(f"column {c}: the output has {d_out} coordinates")
    value = float(full.projected[i, c])
    symbol = f"y{c + 1}"
    about = f"output of token '{full.tokens[i]}'"
    if s.w_o is None:
        text = f"{symbol} = C[{i + 1},{c + 1}] = {fixed(value, decimals)} (no W^O: the output is C itself)"
        term = Term((value,), ("value",), (f"C[{i + 1},{c + 1}]",), value)
        return Explanation("projection", symbol, about, (term,), value, value, decimals, text,
                           f"{symbol} = C[{i + 1},{c + 1}]")
    row, col = full.concat[i], s.w_o[:, c]
    terms = tuple(
        Term(
            factors=(float(row[r]), float(col[r])),
            roles=("value", "weight_grid"),
            labels=(f"C[{i + 1},{r + 1}]", f"W^O[{r + 1},{c + 1}]"),
            value=float(row[r] * col[r]),
        )
        for r in range(width)
    )
    products = _shorten([f"{_factor(t.factors[0], decimals, True)}{_factor(t.factors[1], decimals, False)}"
                         for t in terms])
    text = _worked(symbol, products, terms, value, decimals)
    formula = f"{symbol} = " + _shorten([f"C[{i + 1},{r + 1}]·W^O[{r + 1},{c + 1}]" for r in range(width)])
    return Explanation("projection", symbol, about, terms, float(sum(t.value for t in terms)), value,
                       decimals, text, formula)

