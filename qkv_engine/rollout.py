"""Attention rollout (Abnar & Zuidema 2020): how much each token's information reaches each position
after several layers, following attention through the layers and the residual connections.

    W_l  = mean over heads of layer l's weights                    n x n
    A_l  = 0.5 W_l + 0.5 I, each row divided by its sum           (residual=False: W_l, each row divided)
    R_1  = A_1,   R_l = A_l R_(l-1)                                n x n, rows sum to 1

Entry [i, j] of R_l: the share of token j's information in position i after layer l. A row of W_l that
is all zero (a query that may look at nothing) becomes the identity's row: the token keeps only itself.
"""
from __future__ import annotations

import numpy as np

from .errors import ScenarioError


def layer_weights(weights, dtype=np.float64) -> np.ndarray:
    """``weights`` (L x H x n x n) as ``dtype`` (None: as they are), checked: a ScenarioError says what is wrong.
    The checks make no array of the stack's size (a long sentence's stack of every head's weights is large)."""
    w = np.asarray(weights) if dtype is None else np.asarray(weights, dtype=dtype)
    if w.ndim != 4 or w.shape[2] != w.shape[3]:
        raise ScenarioError(f"weights: expected layers x heads x n x n, got shape {w.shape}")
    if w.size:
        low, high = w.min(), w.max()  # a number that is not one makes both NaN
        if not (np.isfinite(low) and np.isfinite(high)):
            raise ScenarioError("weights: every number must be finite")
        if low < 0.0:
            raise ScenarioError("weights: attention weights cannot be negative")
    return w


def rollout_steps(weights, residual: bool = True) -> np.ndarray:
    """A_l for every layer (L x n x n, rows sum to 1): the mean over heads, plus 0.5 I when ``residual``
    (0.5 W_l + 0.5 I), each row divided by its sum; a row that is all zero becomes the identity's row."""
    w = layer_weights(weights, dtype=None)
    step = w.mean(axis=1, dtype=np.float64)  # L x n x n: W_l, added up in float64 without a float64 copy of w
    n = step.shape[-1]
    if residual:
        step = 0.5 * step + 0.5 * np.eye(n)
    total = step.sum(axis=-1, keepdims=True)  # L x n x 1
    step = np.divide(step, total, out=np.zeros_like(step), where=total > 0.0)
    layer_i, row_i = np.nonzero(total[..., 0] <= 0.0)  # rows with nothing to share
    step[layer_i, row_i, :] = 0.0
    step[layer_i, row_i, row_i] = 1.0
    return step


def rollout(weights, residual: bool = True) -> np.ndarray:
    """R_l for l = 1 .. L (L x n x n float64): entry l is the rollout through layers 1 .. l (the module
    docstring). ``residual``: mix in the identity, 0.5 W_l + 0.5 I, as Abnar & Zuidema do."""
    step = rollout_steps(weights, residual)  # L x n x n
    out = np.empty_like(step)
    if len(step):
        out[0] = step[0]  # R_1 = A_1
    for li in range(1, len(step)):
        out[li] = step[li] @ out[li - 1]  # R_l = A_l R_(l-1)
    return out
