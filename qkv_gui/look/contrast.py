"""WCAG 2 contrast, with no Qt: the relative luminance of a colour and the contrast ratio of two colours.

    relative_luminance("#8C9EFF")          # 0.0 (black) .. 1.0 (white)
    contrast_ratio("#2F3FA8", "#FFFFFF")   # 1.0 .. 21.0; AA asks 4.5 for text, 3 for large text and graphics
    luminance(rgb)                         # the same for an array of 0-255 RGB rows (colour tables)

A colour is '#RRGGBB', '#RGB' or an (r, g, b) or (r, g, b, a) tuple of 0-255 numbers; a colour with alpha is
first laid over the background it is compared with (``over``).
"""
from __future__ import annotations

import numpy as np

#: WCAG AA: normal text, large text (18 pt, or 14 pt bold) and graphical objects that carry meaning.
AA_TEXT = 4.5
AA_LARGE = 3.0
AA_GRAPHICS = 3.0


def rgba(colour) -> tuple:
    """(r, g, b, a) as 0-255 numbers of '#RRGGBB', '#RRGGBBAA', '#RGB' or a 3- or 4-tuple."""
    if isinstance(colour, str):
        h = colour.strip().lstrip("#")
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        if len(h) not in (6, 8):
            raise ValueError(f"colour: expected '#RRGGBB', got {colour!r}")
        parts = [int(h[k:k + 2], 16) for k in range(0, len(h), 2)]
        return tuple(parts) if len(parts) == 4 else (*parts, 255)
    parts = tuple(float(c) for c in colour)
    if len(parts) not in (3, 4):
        raise ValueError(f"colour: expected 3 or 4 numbers, got {colour!r}")
    return parts if len(parts) == 4 else (*parts, 255.0)


def over(colour, background) -> tuple:
    """``colour`` laid over an opaque ``background``: the (r, g, b) seen."""
    r, g, b, a = rgba(colour)
    br, bg, bb, _ = rgba(background)
    t = a / 255.0
    return (r * t + br * (1 - t), g * t + bg * (1 - t), b * t + bb * (1 - t))


def luminance(rgb) -> np.ndarray:
    """Relative luminance of 0-255 (r, g, b) rows (any leading shape), as WCAG 2 defines it."""
    c = np.asarray(rgb, dtype=np.float64)[..., :3] / 255.0
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return c @ np.array([0.2126, 0.7152, 0.0722])


def relative_luminance(colour) -> float:
    """The relative luminance of one opaque colour: 0 for black, 1 for white."""
    return float(luminance(rgba(colour)[:3]))


def contrast_ratio(a, b) -> float:
    """(L1 + 0.05) / (L2 + 0.05) of the lighter over the darker: 1 (the same) to 21 (black on white). A
    colour with alpha is laid over the other one first (which must be opaque)."""
    if rgba(a)[3] < 255:
        a = over(a, b)
    if rgba(b)[3] < 255:
        b = over(b, a)
    la, lb = relative_luminance(a), relative_luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)
