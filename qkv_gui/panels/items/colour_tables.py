"""Colour tables of the cell grids, made once: values in [0, 1] -> 256 RGBA colours, and the ink that reads on each.

    "weights": viridis (perceptually uniform), for attention weights, 0 at the dark end;
    "signed":  red below zero, white at zero, blue above, for any signed numbers (X, Q, K, V, scores, W^O);
    "diff":    CET-D1 (blue, near-white, red), for a change B - A centred on 0.

A table is a 256 x 4 uint8 array (RGBA; ``table_argb`` has the same colours in the byte order of Qt's
fastest image format, ARGB32 premultiplied, all opaque); ``ink(name)`` says, for each of its 256 colours,
whether a number written on it should be light (True) or dark, whichever contrasts more (WCAG relative
luminance).
"""
from __future__ import annotations

import functools

import numpy as np
from PySide6 import QtGui  # noqa: F401  (PySide6 before pyqtgraph)
import pyqtgraph as pg

from ... import style

SIGNED = pg.ColorMap([0.0, 0.5, 1.0], [(178, 34, 34), (255, 255, 255), (40, 90, 160)])
#: Names of the tables and the colour maps they are made from.
MAPS = {"weights": lambda: style.colormap(), "signed": lambda: SIGNED, "diff": lambda: pg.colormap.get("CET-D1")}
LIGHT_INK = "#FFFFFF"
DARK_INK = "#111111"


def colour_map(name: str) -> pg.ColorMap:
    """The pyqtgraph ColorMap of a table (for colour bars)."""
    return MAPS[name]()


@functools.lru_cache(maxsize=None)
def table(name: str) -> np.ndarray:
    """256 x 4 uint8 RGBA: entry k is the colour of k / 255 (read-only)."""
    lut = np.asarray(colour_map(name).getLookupTable(0.0, 1.0, nPts=256, alpha=True), dtype=np.ubyte)
    lut = np.ascontiguousarray(lut)
    lut.setflags(write=False)
    return lut


@functools.lru_cache(maxsize=None)
def table_argb(name: str) -> np.ndarray:
    """256 x 4 uint8: the table's colours as the bytes of QImage.Format_ARGB32_Premultiplied (B, G, R, A in
    memory on little-endian machines; the colours are opaque, so premultiplying changes nothing)."""
    rgba = table(name)
    order = [2, 1, 0, 3] if np.little_endian else [3, 0, 1, 2]
    out = np.ascontiguousarray(rgba[:, order])
    out.setflags(write=False)
    return out


def _luminance(rgb: np.ndarray) -> np.ndarray:
    c = rgb / 255.0
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return c @ np.array([0.2126, 0.7152, 0.0722])


@functools.lru_cache(maxsize=None)
def ink(name: str) -> np.ndarray:
    """256 bool: True where light ink (white) contrasts more with the table's colour than dark ink."""
    lum = _luminance(table(name)[:, :3].astype(np.float64))
    light, dark = _luminance(np.array([[255.0, 255, 255]]))[0], _luminance(np.array([[17.0, 17, 17]]))[0]
    light_ratio = (light + 0.05) / (lum + 0.05)
    dark_ratio = (lum + 0.05) / (dark + 0.05)
    out = light_ratio > dark_ratio
    out.setflags(write=False)
    return out
