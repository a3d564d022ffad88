"""Attention weights written out independently of the engine, for GUI tests to compare with."""
import numpy as np


def numpy_weights(s) -> np.ndarray:
    """softmax((X W^Q)(X W^K)^T / (sqrt(d_k) if scaling) / T, masked) along the chosen axis."""
    z = (s.x @ s.w_q) @ (s.x @ s.w_k).T
    if s.scale:
        z = z / np.sqrt(s.d_k)
    z = z / s.temperature
    n = z.shape[0]
    allowed = np.tril(np.ones((n, n), dtype=bool)) if s.causal else np.ones((n, n), dtype=bool)
    z = np.where(allowed, z, -np.inf)
    axis = 1 if s.softmax_over == "keys" else 0
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
