"""The visual language: one colour per role, fonts, and the weights colormap.

    x (token embedding)  butter yellow
    query                lavender blue
    key                  coral
    value                mint
    attention weights    viridis (perceptually uniform)

``FILL`` colours are for bars, arrows and cell backgrounds; ``INK`` colours
are darker versions of the same hue, readable as text on a light background;
``PALE`` colours are light versions, for bands and boxes behind things. Every
colour a panel draws with is named here.
"""
from __future__ import annotations

from qkv_engine.explain import fixed

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
#: Light versions of the roles' colours: the band behind the selected token (x) or key, the summary's boxes.
PALE = {
    "x": "#FFF3C4",
    "key": "#FFF1EC",
    "weight": "#E8ECF6",
    "output": "#E3F5EE",
}
#: Outlines of bars wide enough to show one.
EDGE = {"x": "#C9A227", "output": "#0B4F37"}
#: Short names of the roles as they appear in labels.
ROLE_LABEL = {"x": "x", "query": "q", "key": "k", "value": "v", "output": "output"}

BACKGROUND = "#FFFFFF"
FOREGROUND = "#222222"
MUTED = "#8A8A8A"  # faint items: other keys, guide lines
GRID = "#D9D9D9"
SELECTED = "#111111"  # outline of the selected token / cell
TARGET = "#C2185B"  # dashed outline of a cell the training target asks for ("Learn the weights")
NEGATIVE_BG = "#FDE8E8"  # table cells holding a negative number
WARN = "#B00020"  # something is wrong or missing: a column-wise softmax, a row with no key left
SOFT_TEXT = "#333333"  # notes under a picture (in italics)
QUIET_TEXT = "#555555"  # second-rank words: a meter's title, a legend's aside
HINT_TEXT = "#666666"  # the message a panel shows instead of its picture
FAINT_TEXT = "#777777"  # a rule written under numbers
DARK_GREY = "#4A4A4A"  # text on the plane (θ), raw scores in the lab
GREY = "#6E6E6E"  # the angle's wedge, words on the flat ends of the softmax curve
CURVE = "#5A5A5A"  # the softmax curve
MID_GREY = "#7A7A7A"  # raw-score bars in the lab
HATCH = "#8C8C8C"  # hatching over masked keys
SHADE = (120, 120, 120, 38)  # the flat ends of the softmax curve
HOVER_BG = "#EDEDED"  # the output coordinate under the mouse
PLAIN_BOX = "#F4F4F4"  # a box with no role (the summary's scaling step)
DIAL = ("#D8D8D8", "#ECECEC")  # the relevance meter: negative half (hatched), positive half
NOTE_INK, NOTE_BG = "#5A4A00", "#FFF6D6"  # a note about the picture (a flat view of many dimensions)
LABEL_BOX = (255, 255, 255, 235)  # nearly opaque white behind a label drawn over lines
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
    return fixed(float(v), decimals)


from dataclasses import dataclass  # noqa: E402


@dataclass(frozen=True)
class Theme:
    """How panels are drawn: on screen, on a slide, or presented to a classroom."""

    name: str = "screen"
    font_scale: float = 1.0  # multiplies every font size
    line_scale: float = 1.0  # multiplies every line width
    background: str = BACKGROUND
    control_scale: float | None = None  # multiplies the font of buttons and choosers (None: font_scale)

    @property
    def controls(self) -> float:
        """The factor on the font of a panel's controls (buttons, choosers, tabs)."""
        return self.font_scale if self.control_scale is None else self.control_scale


SCREEN = Theme("screen")
#: For exported figures: light background, larger text and thicker lines than on screen.
SLIDE = Theme("slide", font_scale=1.6, line_scale=1.8)


#: In presenter mode a panel's controls grow with the text only up to this factor: a row of buttons at
#: twice the size would make the panel wider than a small projector's screen.
PRESENTER_CONTROLS_MAX = 1.25


def presenter(font_scale: float) -> Theme:
    """The theme of presenter mode at a given text size."""
    return Theme("presenter", font_scale=font_scale, line_scale=max(1.0, font_scale * 0.8),
                 control_scale=min(font_scale, PRESENTER_CONTROLS_MAX))
