"""Derived numbers the pictures need, computed here so panels only lay them out.

Every function reads an AttentionResult and returns fresh arrays.
"""
from __future__ import annotations

import numpy as np

from .attention import AttentionResult


def weighted_values(result: AttentionResult, i: int) -> np.ndarray:
    """n x d_v: row j is weight[i, j] * v_j; the rows add up to output[i]."""
    return result.weights[i][:, None] * result.v


def row_sums(result: AttentionResult) -> np.ndarray:
    """The sum of each row of the weights (1 for every row in the correct, row-wise mode)."""
    return result.weights.sum(axis=1)


def column_sums(result: AttentionResult) -> np.ndarray:
    return result.weights.sum(axis=0)


def softmax_curve(result: AttentionResult, i: int, j: int, xs) -> np.ndarray:
    """The weight query i would give key j if j's scaled score were each value in ``xs``,
    every other (unmasked) score of the row staying as it is: e^x / (e^x + sum of the others).

    Flat near 0 for very low x and flat near 1 for very high x: the saturated zones.
    """
    xs = np.asarray(xs, dtype=np.float64)
    others = [float(result.scaled[i, m]) for m in range(result.n_keys) if m != j and result.allowed[i, m]]
    if not others:
        return np.ones_like(xs)
    others_arr = np.array(others)
    top = np.maximum(xs, others_arr.max())  # shift for stability
    e_x = np.exp(xs - top)
    e_rest = np.exp(others_arr[None, :] - top[:, None]).sum(axis=1)
    return e_x / (e_x + e_rest)
