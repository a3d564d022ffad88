"""Colour tables of the cell grids, made once: values in [0, 1] -> 256 RGBA colours, and the ink that reads on each.

    "weights": viridis (perceptually uniform), for attention weights, 0 at the dark end;
    "signed":  red below zero, white at zero, blue above, for any signed numbers (X, Q, K, V, scores, W^O);
    "diff":    CET-D1 (blue, near-white, red), for a change B - A centred on 0.

The maps come from the palette (``style.Palette``: ``weights_map``, ``signed_map``, ``diff_map``; default:
the one in use), so a palette may change them; the ones above are the standard palette's. A table is a
256 x 4 uint8 array (RGBA; ``table_argb`` has the same colours in the byte order of Qt's fastest image
format, ARGB32 premultiplied, all opaque); ``ink(name)`` says, for each of its 256 colours, whether a number
written on it should be the palette's light ink (True) or its dark ink, whichever contrasts more (WCAG
relative luminance).
"""
from __future__ import annotations

import functools

import numpy as np
from PySide6 import QtGui  # noqa: F401  (PySide6 before pyqtgraph)
import pyqtgraph as pg

from . import style
from .contrast import luminance, relative_luminance

#: The standard palette's signed map and inks (kept for code that names them).
SIGNED = pg.ColorMap([0.0, 0.5, 1.0], list(style.STANDARD.signed_map))
LIGHT_INK = style.STANDARD.light_ink
DARK_INK = style.STANDARD.dark_ink
NAMES = ("weights", "signed", "diff")


def spec(name: str, palette: style.Palette | None) -> tuple:
    """What a table is made from in a palette: a hashable key for the caches."""
    p = palette or style.current()
    if name == "weights":
        return ("named", p.weights_map)
    if name == "signed":
        return ("stops", p.signed_map)
    if name == "diff":
        return ("named", p.diff_map)
    raise KeyError(f"no colour table {name!r} (known: {', '.join(NAMES)})")


def _map_of(spec: tuple) -> pg.ColorMap:
    kind, what = spec
    if kind == "named":
        return pg.colormap.get(what)
    return pg.ColorMap(np.linspace(0.0, 1.0, len(what)), list(what))


def colour_map(name: str, palette: style.Palette | None = None) -> pg.ColorMap:
    """The pyqtgraph ColorMap of a table (for colour bars), in ``palette`` (default: the one in use)."""
    return _map_of(spec(name, palette))


@functools.lru_cache(maxsize=None)
def _table(spec: tuple) -> np.ndarray:
    lut = np.asarray(_map_of(spec).getLookupTable(0.0, 1.0, nPts=256, alpha=True), dtype=np.ubyte)
    lut = np.ascontiguousarray(lut)
    lut.setflags(write=False)
    return lut


def table(name: str, palette: style.Palette | None = None) -> np.ndarray:
    """256 x 4 uint8 RGBA: entry k is the colour of k / 255 (read-only)."""
    return _table(spec(name, palette))


@functools.lru_cache(maxsize=None)
def _table_argb(spec: tuple) -> np.ndarray:
    rgba = _table(spec)
    order = [2, 1, 0, 3] if np.little_endian else [3, 0, 1, 2]
    out = np.ascontiguousarray(rgba[:, order])
    out.setflags(write=False)
    return out


def table_argb(name: str, palette: style.Palette | None = None) -> np.ndarray:
    """256 x 4 uint8: the table's colours as the bytes of QImage.Format_ARGB32_Premultiplied (B, G, R, A in
    memory on little-endian machines; the colours are opaque, so premultiplying changes nothing)."""
    return _table_argb(spec(name, palette))


@functools.lru_cache(maxsize=None)
def _ink(spec: tuple, light_ink: str, dark_ink: str) -> np.ndarray:
    lum = luminance(_table(spec)[:, :3])
    light, dark = relative_luminance(light_ink), relative_luminance(dark_ink)
    light_ratio = (light + 0.05) / (lum + 0.05)
    dark_ratio = (lum + 0.05) / (dark + 0.05)
    out = light_ratio > dark_ratio
    out.setflags(write=False)
    return out


def ink(name: str, palette: style.Palette | None = None) -> np.ndarray:
    """256 bool: True where the palette's light ink contrasts more with the table's colour than its dark ink."""
    p = palette or style.current()
    return _ink(spec(name, p), p.light_ink, p.dark_ink)
