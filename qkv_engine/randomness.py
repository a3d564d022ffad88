"""Deterministic numbers for embeddings and weight grids.

Every value depends only on what it is for (a token's text, or a grid's name
and column) and the seed, through SHA-256 and numpy's legacy ``RandomState``
(whose streams numpy keeps fixed across versions). So the same inputs give
the same numbers on every machine, and growing a dimension keeps every value
that was already there.
"""
from __future__ import annotations

import hashlib

import numpy as np

#: Generated values are rounded to this many decimals, so worked arithmetic
#: on screen starts from exactly the numbers shown in the tables.
DECIMALS = 2


def _stream(*parts: object) -> np.random.RandomState:
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return np.random.RandomState(int.from_bytes(digest[:4], "little"))


def token_embedding(text: str, d_model: int, seed: int = 0) -> np.ndarray:
    """The embedding row of a token text: ``d_model`` values in [-1, 1]."""
    return np.round(_stream("token", seed, text).uniform(-1.0, 1.0, d_model), DECIMALS)


def weight_grid(name: str, rows: int, cols: int, seed: int = 0) -> np.ndarray:
    """A ``rows x cols`` weight grid in [-1, 1]; column c depends only on (name, c, seed)."""
    out = np.empty((rows, cols))
    for c in range(cols):
        out[:, c] = np.round(_stream("weights", seed, name, c).uniform(-1.0, 1.0, rows), DECIMALS)
    return out
