"""The visual language: one colour per role, fonts, and the weights colormap.

    x (token embedding)  butter yellow
    query                lavender blue
    key                  coral
    value                mint
    attention weights    viridis (perceptually uniform)

``FILL`` colours are for bars, arrows and cell backgrounds; ``INK`` colours
are darker versions of the same hue, readable as text on a light background.
"""
from __future__ import annotations

FILL = {
    "x": "#F2C94C",
    "query": "#8C9EFF",
    "key": "#FF8A65",
    "value": "#5FC9A0",
    "output": "#5FC9A0",
    "weight": "#3B528B",
}
INK = {
    "x": "#7A5C00",
    "query": "#2F3FA8",
    "key": "#B23C12",
    "value": "#146B4C",
    "output": "#146B4C",
    "weight": "#24345E",
}
#: Short names of the roles as they appear in labels.
ROLE_LABEL = {"x": "x", "query": "q", "key": "k", "value": "v", "output": "output"}

BACKGROUND = "#FFFFFF"
FOREGROUND = "#222222"
MUTED = "#8A8A8A"  # faint items: other keys, guide lines
GRID = "#D9D9D9"
SELECTED = "#111111"  # outline of the selected token / cell
NEGATIVE_BG = "#FDE8E8"  # table cells holding a negative number
COLORMAP = "viridis"

#: Base point size for panel text on screen; the lesson presenter mode scales it.
BASE_POINT_SIZE = 10


def configure_pyqtgraph() -> None:
    """Light background, dark text, antialiasing: readable on screens and projectors."""
    import pyqtgraph as pg

    pg.setConfigOptions(background=BACKGROUND, foreground=FOREGROUND, antialias=True, imageAxisOrder="row-major")


def scaled_font(base, w: int, h: int, scale: float = 1.0):
    """``base`` at the house size in the 3 x 3 grid, growing (up to 1.6x) when a panel of size
    ``w`` x ``h`` is shown large, times the theme's ``scale``."""
    from PySide6 import QtGui

    f = QtGui.QFont(base)
    grow = max(1.0, min(1.6, min(w / 420.0, h / 300.0)))
    f.setPointSizeF(BASE_POINT_SIZE * grow * scale)
    return f


def colormap():
    import pyqtgraph as pg

    return pg.colormap.get(COLORMAP)


def fmt(v: float, decimals: int = 2) -> str:
    """A number as shown in panels: fixed decimals, never '-0.00'."""
    from qkv_engine.explain import fixed

    return fixed(float(v), decimals)


from dataclasses import dataclass  # noqa: E402


@dataclass(frozen=True)
class Theme:
    """How panels are drawn: on screen, on a slide, or presented to a classroom."""

    name: str = "screen"
    font_scale: float = 1.0  # multiplies every font size
    line_scale: float = 1.0  # multiplies every line width
    background: str = BACKGROUND


SCREEN = Theme("screen")
#: For exported figures: light background, larger text and thicker lines than on screen.
SLIDE = Theme("slide", font_scale=1.6, line_scale=1.8)


def presenter(font_scale: float) -> Theme:
    """The theme of presenter mode at a given text size."""
    return Theme("presenter", font_scale=font_scale, line_scale=max(1.0, font_scale * 0.8))
