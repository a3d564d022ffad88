"""An independent reference implementation of scaled dot-product attention.

Written with explicit Python loops over plain lists and ``math`` only: no numpy
matrix products and nothing taken from ``qkv_engine``. The engine is tested
against it, so it is kept as close to the textbook equations as possible:

    Q = X W^Q + b^Q,  K = X W^K + b^K,  V = X W^V + b^V   (each bias added to every row)
    S[i][j] = q_i . k_j
    Z[i][j] = S[i][j] / (sqrt(d_k) if scale else 1) / temperature,  -inf where masked
    A = softmax of Z, row by row ("keys") or column by column ("queries")
    O = A V

The causal mask blocks key j for query i whenever j > i (a token may only look
at itself and the tokens before it); it applies to self-attention only. Padding
blocks a key for every query; ``blocked`` lists single (i, j) cells. Masked
weights are exactly 0, and a row with every key masked gets all zeros.

Cross-attention: keys and values come from ``source`` (another sentence's
embeddings) instead of ``x``. Many heads: ``multi_head`` slices each head's
columns out of the grids by hand, runs ``attention`` per head, puts the outputs
side by side and multiplies by W^O.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

NEG_INF = float("-inf")


def _rows(matrix) -> list[list[float]]:
    """Any 2-D grid (nested lists or an array) as a list of lists of Python floats."""
    return [[float(v) for v in row] for row in matrix]


def matmul(a, b) -> list[list[float]]:
    """a (n x m) times b (m x p), one multiply-add at a time."""
    a, b = _rows(a), _rows(b)
    n = len(a)
    m = len(b)
    p = len(b[0]) if m else 0
    out = []
    for i in range(n):
        assert len(a[i]) == m, "inner sizes differ"
        row = []
        for c in range(p):
            total = 0.0
            for r in range(m):
                total += a[i][r] * b[r][c]
            row.append(total)
        out.append(row)
    return out


def dot(u, v) -> float:
    total = 0.0
    for a, b in zip(u, v, strict=True):
        total += float(a) * float(b)
    return total


def softmax_list(values: list[float]) -> list[float]:
    """Softmax of one slice; -inf entries get exactly 0, and an all-masked slice gets all zeros."""
    finite = [v for v in values if v != NEG_INF]
    if not finite:
        return [0.0 for _ in values]
    top = max(finite)
    exps = [0.0 if v == NEG_INF else math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


@dataclass
class Reference:
    q: list
    k: list
    v: list
    scores: list
    scaled: list
    weights: list
    output: list
    allowed: list
    divisor: float


def add_bias(rows: list, bias) -> list:
    """Add ``bias`` (one number per column) to every row, one entry at a time; None adds nothing."""
    if bias is None:
        return rows
    bias = [float(b) for b in bias]
    out = []
    for row in rows:
        assert len(row) == len(bias), "bias length differs from the row"
        out.append([row[c] + bias[c] for c in range(len(row))])
    return out


def attention(x, w_q, w_k, w_v, *, scale=True, causal=False, temperature=1.0, softmax_over="keys",
              source=None, padding=(), blocked=(), b_q=None, b_k=None, b_v=None) -> Reference:
    """Every intermediate of attention, computed the slow and obvious way."""
    x = _rows(x)
    kv_rows = x if source is None else _rows(source)
    n = len(x)
    m = len(kv_rows)
    d_k = len(_rows(w_q)[0])
    q = add_bias(matmul(x, w_q), b_q)  # n x d_k
    k = add_bias(matmul(kv_rows, w_k), b_k)  # m x d_k
    v = add_bias(matmul(kv_rows, w_v), b_v)  # m x d_v
    d_v = len(_rows(w_v)[0])

    divisor = (math.sqrt(d_k) if scale else 1.0) * float(temperature)
    allowed = []
    for i in range(n):
        row = []
        for j in range(m):
            ok = True
            if causal and source is None and j > i:
                ok = False
            if j in padding:
                ok = False
            if (i, j) in blocked:
                ok = False
            row.append(ok)
        allowed.append(row)
    scores = [[dot(q[i], k[j]) for j in range(m)] for i in range(n)]
    scaled = [[scores[i][j] / divisor if allowed[i][j] else NEG_INF for j in range(m)] for i in range(n)]

    weights = [[0.0] * m for _ in range(n)]
    if softmax_over == "keys":
        for i in range(n):
            weights[i] = softmax_list(scaled[i])
    elif softmax_over == "queries":
        for j in range(m):
            column = softmax_list([scaled[i][j] for i in range(n)])
            for i in range(n):
                weights[i][j] = column[i]
    else:
        raise ValueError(f"softmax_over: {softmax_over!r}")

    output = []
    for i in range(n):
        row = []
        for c in range(d_v):
            total = 0.0
            for j in range(m):
                total += weights[i][j] * v[j][c]
            row.append(total)
        output.append(row)
    return Reference(q, k, v, scores, scaled, weights, output, allowed, divisor)


def columns(grid, start: int, stop: int) -> list[list[float]]:
    """Columns start .. stop-1 of a grid, copied by hand."""
    return [[row[c] for c in range(start, stop)] for row in _rows(grid)]


@dataclass
class MultiHeadReference:
    heads: list  # Reference per head
    concat: list  # n x (h d_v)
    projected: list  # n x d_out


def multi_head(x, w_q, w_k, w_v, n_heads: int, w_o=None, b_q=None, b_k=None, b_v=None,
               **options) -> MultiHeadReference:
    """Head h uses columns h*d_k .. (h+1)*d_k - 1 of W^Q and W^K (and likewise of W^V with d_v),
    and the same entries of the biases."""
    d_k = len(_rows(w_q)[0]) // n_heads
    d_v = len(_rows(w_v)[0]) // n_heads

    def part(bias, start, stop):
        return None if bias is None else [bias[c] for c in range(start, stop)]

    heads = []
    for h in range(n_heads):
        heads.append(attention(x, columns(w_q, h * d_k, (h + 1) * d_k), columns(w_k, h * d_k, (h + 1) * d_k),
                               columns(w_v, h * d_v, (h + 1) * d_v), b_q=part(b_q, h * d_k, (h + 1) * d_k),
                               b_k=part(b_k, h * d_k, (h + 1) * d_k), b_v=part(b_v, h * d_v, (h + 1) * d_v),
                               **options))
    concat = []
    for i in range(len(_rows(x))):
        row = []
        for head in heads:
            row.extend(head.output[i])
        concat.append(row)
    projected = concat if w_o is None else matmul(concat, w_o)
    return MultiHeadReference(heads, concat, projected)


def attention_of(scenario) -> Reference:
    """The reference run on a scenario's inputs and options (read as plain data)."""
    return attention(
        scenario.x.tolist(),
        scenario.w_q.tolist(),
        scenario.w_k.tolist(),
        scenario.w_v.tolist(),
        **options_of(scenario),
    )


def options_of(scenario) -> dict:
    return dict(
        scale=scenario.scale,
        causal=scenario.causal,
        temperature=scenario.temperature,
        softmax_over=scenario.softmax_over,
        source=None if scenario.source_x is None else scenario.source_x.tolist(),
        padding=tuple(scenario.padding),
        blocked=tuple(tuple(c) for c in scenario.blocked),
        b_q=scenario.b_q.tolist(),
        b_k=scenario.b_k.tolist(),
        b_v=scenario.b_v.tolist(),
    )


def multi_head_of(scenario) -> MultiHeadReference:
    return multi_head(scenario.x.tolist(), scenario.w_q.tolist(), scenario.w_k.tolist(), scenario.w_v.tolist(),
                      scenario.n_heads, None if scenario.w_o is None else scenario.w_o.tolist(),
                      **options_of(scenario))
