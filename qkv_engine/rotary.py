"""Rotary position embedding (RoPE): each query and key is turned by angles that grow with its position.

A head of d numbers is read as d/2 pairs; pair i is coordinate i with coordinate i + d/2
(the transformers library's ``rotate_half`` layout, not (2i, 2i + 1)). Pair i turns at its
own speed, the inverse frequency

    f_i = 1 / theta^(2i / d)              i = 0 .. d/2 - 1   (fast first, slow last)

and a token at position p turns pair i by the angle a = p f_i:

    x'_i       = x_i cos a - x_{i+d/2} sin a
    x'_{i+d/2} = x_{i+d/2} cos a + x_i sin a

so q'_m . k'_n depends on the positions only through m - n. Frequencies and angles are
worked out in float32, as the transformers library does, so a model's numbers come out
the same; the turn itself is done in the dtype of the vectors.
"""
from __future__ import annotations

import numpy as np

F32 = np.float32
DEFAULT_THETA = 10000.0


def inverse_frequencies(d_head: int, theta: float) -> np.ndarray:
    """d_head/2 float32: f_i = 1 / theta^(2i / d_head), rounded as transformers' does it (the exponent in
    float32, the power rounded to float32, then 1 / power in float32)."""
    if d_head < 2 or d_head % 2:
        raise ValueError(f"rotary positions need an even number of numbers per head, got {d_head}")
    exponent = np.arange(0, d_head, 2, dtype=np.int64).astype(F32) / F32(d_head)
    power = (float(theta) ** exponent.astype(np.float64)).astype(F32)
    return (F32(1.0) / power).astype(F32)


def angles(positions, frequencies) -> np.ndarray:
    """n x d/2 float32: position p times frequency f_i (float32, as transformers does)."""
    p = np.asarray(positions, dtype=F32).reshape(-1, 1)
    return p * np.asarray(frequencies, dtype=F32).reshape(1, -1)


def rotate(x: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """``x`` (... x n x d) with each token's pairs (i, i + d/2) turned by ``turn`` (n x d/2 angles).
    Returns a new array of x's dtype."""
    half = x.shape[-1] // 2
    cos = np.cos(turn).astype(x.dtype, copy=False)  # n x d/2
    sin = np.sin(turn).astype(x.dtype, copy=False)
    first, second = x[..., :half], x[..., half:]
    out = np.empty_like(x)
    out[..., :half] = first * cos - second * sin
    out[..., half:] = second * cos + first * sin
    return out
