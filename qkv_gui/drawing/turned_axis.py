"""A bottom axis whose tick labels can stand upright: turned a quarter, reading upwards.

Under narrow columns a word written across covers several columns, so most names had to be left
out; stood upright, each name needs only a line's height of width, and many more of them fit.
"""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6 import QtCore, QtGui

Qt = QtCore.Qt


class TurnableAxis(pg.AxisItem):
    """``pg.AxisItem('bottom')`` plus ``set_turned(on, longest_px)``.

    Turned, the axis is as tall as the longest label (plus the axis title) and draws each tick
    label upright, ending just under its tick. Upright, the labels are not dropped at the ends of
    the axis as written-across ones are when they would stick out sideways.
    """

    def __init__(self, orientation: str = "bottom", **kwargs):
        super().__init__(orientation, **kwargs)
        self.turned = False
        self._across = 0.0
        self._flips = (None, 0)  # (the width and longest name the last flips were at, how many)
        self.turned_texts: list = []  # [(x in axis pixels, text)] drawn upright now

    def _text_top(self) -> float:
        return max(0, self.style["tickLength"]) + self.style["tickTextOffset"][1]

    def _title_height(self) -> float:
        return self.label.boundingRect().height() * 0.8 if self.label.isVisible() else 0.0

    def across_height(self) -> float:
        """The height the axis has (or had, when turned) with its labels written across."""
        return self._across if self.turned else self.height()

    def upright_height(self, longest_px: float) -> int:
        """The height the axis takes with upright labels up to ``longest_px`` pixels long."""
        return int(math.ceil(self._text_top() + longest_px + 3 + self._title_height()))

    def set_turned(self, on: bool, longest_px: float = 0.0) -> None:
        """Stand the labels upright (``on``), with room for ``longest_px`` pixels of text, or lay
        them back across. Does nothing when nothing would change."""
        if on:
            height = self.upright_height(longest_px)
            if self.turned and self.fixedHeight == height:
                return
            if not self.turned:
                self._across = self.height()
            self.turned = True
            self.setHeight(height)
        elif self.turned:
            self.turned = False
            self.setHeight(None)
        else:
            return
        self.picture = None
        self.update()

    def generateDrawSpecs(self, p):  # noqa: N802 (pyqtgraph naming)
        specs = super().generateDrawSpecs(p)
        if not self.turned or specs is None:
            return specs
        axis_spec, tick_specs, _across = specs
        lo, hi = self.range
        width = self.mapRectFromParent(self.geometry()).width()
        texts = []
        if hi != lo:
            for level in self._tickLevels or []:
                for value, text in level:
                    if min(lo, hi) <= value <= max(lo, hi) and text:
                        texts.append(((value - lo) * width / (hi - lo), text))
        self.turned_texts = texts
        return axis_spec, tick_specs, []

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):  # noqa: N802 (pyqtgraph naming)
        super().drawPicture(p, axisSpec, tickSpecs, textSpecs)  # line, ticks; sets font, pen, clip
        if not self.turned:
            return
        top = self._text_top()
        room = max(1.0, self.height() - top - self._title_height())
        line = QtGui.QFontMetricsF(p.font()).height()
        flags = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        for x, text in self.turned_texts:
            p.save()
            p.translate(x, top)
            p.rotate(-90)  # text runs upwards; its end sits just under the tick
            p.drawText(QtCore.QRectF(-room, -line / 2, room, line), flags, text)
            p.restore()


def stand_upright(axis: TurnableAxis, plot_height: float, longest_px: float, names) -> bool:
    """Stand ``axis``'s names upright when that shows more names in all, and say whether it did.

    ``names(upright, h)`` counts the key and query names shown when the plot is ``h`` pixels tall
    (upright names make the axis taller and the plot shorter). The choice is made from the height the
    plot (``plot_height`` now) and the axis share, the same whichever way the names stand now, so the
    layout settles instead of flipping back and forth."""
    shared = plot_height + axis.height()
    upright = (names(True, shared - axis.upright_height(longest_px))
               > names(False, shared - axis.across_height()))
    if upright != axis.turned:
        # A layout around the plot can hand it back the height it had before each turn (a panel that asks
        # for room by its axes, in a grid that gives it): after turning there and back at one width, the
        # names stay as they are until the width or the names change, so the layout always settles.
        key = (round(axis.width()), round(longest_px))
        last, count = axis._flips
        count = count + 1 if last == key else 1
        if count > 2:
            return axis.turned
        axis._flips = (key, count)
    axis.set_turned(upright, longest_px)
    return upright
