"""Weights in the checkpoint's own width, widened to float32 when they are used.

A model whose float32 weights would pass WIDEN_LIMIT bytes keeps them as stored: float16
as float16, bfloat16 as its raw 16 bits (numpy has no bfloat16; such arrays are uint16).
``float32`` widens one array; the forward pass calls it on one layer's weights at a time.
"""
from __future__ import annotations

import numpy as np

F32 = np.float32
#: Float32 weights up to this size are widened once, when the model is opened.
WIDEN_LIMIT = 1_000_000_000


def bfloat16_bits_to_float32(bits: np.ndarray) -> np.ndarray:
    """bfloat16 is the top half of a float32: the 16 stored bits go there, the low 16 bits are zero."""
    wide = bits.astype(np.uint32)
    wide <<= 16
    return wide.view(F32)


def float32(a):
    """``a`` as float32 (itself when it already is; None stays None)."""
    if a is None or a.dtype == F32:
        return a
    if a.dtype == np.uint16:
        return bfloat16_bits_to_float32(a)
    return a.astype(F32)
