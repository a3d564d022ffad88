"""What the embedding and values panels share: bars in groups (one group per token) in a still plot,
names thinned to what fits, numbers at the bar tips and a name hanging over the selected group."""
from __future__ import annotations

import bisect

import numpy as np
from PySide6 import QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from ..look import colours, style
from .text_label import TextLabel
from .text_pool import TextPool

#: A bar label needs about this many pixels of bar width to be drawn.
VALUE_LABEL_MIN_PX = 34
#: Never draw more value labels than this at once.
MAX_VALUE_LABELS = 96
#: Bars at least this many pixels wide get an outline.
EDGE_MIN_PX = 5


def thin_labels(centres, widths_px, px_per_unit: float, keep=(), pad_px: float = 8.0) -> list:
    """Indices of labels (centred at ``centres``, in data units) that fit without overlapping.

    ``keep`` indices are placed first (e.g. the selected token), then the
    others from left to right, skipping any that would touch one already placed.
    """
    n = len(centres)
    lefts: list = []
    rights: list = []
    chosen = []
    order = [k for k in keep if 0 <= k < n]
    kept = set(order)
    order += [k for k in range(n) if k not in kept]
    for k in order:
        c = centres[k] * px_per_unit
        half = widths_px[k] / 2 + pad_px / 2
        lo, hi = c - half, c + half
        pos = bisect.bisect_left(lefts, lo)
        if pos > 0 and rights[pos - 1] > lo:
            continue
        if pos < len(lefts) and lefts[pos] < hi:
            continue
        lefts.insert(pos, lo)
        rights.insert(pos, hi)
        chosen.append(k)
    return sorted(chosen)


class TextWidths:
    """Pixel widths of texts in a font, remembered per font (the screen's and a theme's both stay): names and
    numbers mostly repeat from one edit to the next. A font's table is started afresh when it holds too many."""

    def __init__(self, limit: int = 8192):
        self.limit = limit
        self.tables: dict = {}  # font key -> (its metrics, {text: width})

    def __call__(self, font: QtGui.QFont, texts) -> list:
        key = font.key()
        table = self.tables.get(key)
        if table is None or len(table[1]) > self.limit:
            if len(self.tables) > 16:
                self.tables.clear()
            table = self.tables[key] = (QtGui.QFontMetricsF(font), {})
        metrics, known = table
        widths = []
        for t in texts:
            w = known.get(t)
            if w is None:
                w = known[t] = metrics.horizontalAdvance(t)
            widths.append(w)
        return widths


def value_pool(plot, role: str) -> TextPool:
    """Labels for the numbers at the bar tips, in the palette's colour ``role`` (they follow a new palette)."""
    return TextPool(plot, anchor=(0.5, 1.0), role=role)


def pointer_label(plot, palette: style.Palette, role: str) -> TextLabel:
    """The bold name that hangs from the top of the selected group ("query: cat"), in the palette's colour
    ``role``."""
    pointer = TextLabel("", anchor=(0.5, 0.0))
    colours.paint(pointer, palette, text=role)
    font = pointer.font()
    font.setBold(True)
    pointer.setFont(font)
    pointer.setZValue(30)
    plot.addItem(pointer, ignoreBounds=True)
    return pointer


def place_value_labels(pool: TextPool, xs, heights, ppu: float, decimals: int, rotate: bool = True,
                       at=None) -> None:
    """Numbers at the bar tips: upright when bars are wide, turned on their side when narrower
    (if ``rotate``), none when the bars are narrower still. ``at``: where each number goes instead of its
    own bar's tip (the tip of a taller bar drawn behind it, so the number crosses no bar's edge)."""
    count = len(heights)
    need = VALUE_LABEL_MIN_PX * pool.scale  # bigger text (slides, presenter mode) needs wider bars
    if count > MAX_VALUE_LABELS or ppu < need / (2.2 if rotate else 1.0):
        pool.take(0)
        return
    upright = ppu >= need
    fmt = style.fmt
    tips = np.asarray(heights if at is None else at, dtype=float).tolist()
    for item, x, h, tip in zip(pool.take(count), np.asarray(xs, dtype=float).tolist(),
                               np.asarray(heights, dtype=float).tolist(), tips):
        item.setText(fmt(h, decimals))
        item.setAngle(0 if upright else 90)
        up = tip > 0 or (tip == 0 and h >= 0)
        if upright:
            item.setAnchor((0.5, 1.0) if up else (0.5, 0.0))
        else:
            item.setAnchor((0.0, 0.5) if up else (1.0, 0.5))
        item.setPos(x, tip)


def place_pointer(pointer: TextLabel, g: "GroupedBars", k: int, top: float, ppu: float) -> None:
    """A name hanging from the top of group ``k``: centred over it, or flush with its inner edge when
    wider than the group (so it never runs off the plot)."""
    width = pointer.box_size().width()
    left, right = k * g.step - g.GAP / 2.0, (k + 1) * g.step - g.GAP / 2.0
    if width <= (right - left) * ppu:
        pointer.setAnchor((0.5, 0.0))
        pointer.setPos(float(g.centres[k]), top)
    elif g.centres[k] <= (g.x_range[0] + g.x_range[1]) / 2:
        pointer.setAnchor((0.0, 0.0))
        pointer.setPos(max(left, g.x_range[0]), top)
    else:
        pointer.setAnchor((1.0, 0.0))
        pointer.setPos(min(right, g.x_range[1]), top)


def make_plot(parent: QtWidgets.QWidget, palette: style.Palette = style.STANDARD) -> pg.PlotWidget:
    """A still (no pan/zoom, no menu) plot with a left value axis and a bottom name axis, in ``palette``
    (its axes follow a new one)."""
    w = pg.PlotWidget(parent=parent, background=palette.background, enableMenu=False)
    item = w.getPlotItem()
    item.setMenuEnabled(False)
    item.hideButtons()
    item.setMouseEnabled(x=False, y=False)
    item.getViewBox().setDefaultPadding(0.0)
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        colours.paint(axis, palette, pen="muted", text="foreground", label="foreground")
    item.getAxis("bottom").setStyle(tickLength=0)
    item.getAxis("left").setWidth(38)
    item.showGrid(x=False, y=True, alpha=0.15)
    w.setMinimumSize(120, 90)
    return w


class GroupedBars:
    """Bars in groups, one group per token: ``layout(n, d)`` gives every bar's x."""

    GAP = 1.0  # empty space between two groups, in bar widths

    def __init__(self, n: int = 0, d: int = 1):
        self.shape = None
        self.layout(n, d)

    def layout(self, n: int, d: int) -> None:
        if self.shape == (n, d):
            return  # the same groups as now
        self.shape = (n, d)
        self.n, self.d = n, d
        self.step = d + self.GAP
        starts = np.arange(n, dtype=np.float64) * self.step  # left edge of each group
        self.lefts = (starts[:, None] + np.arange(d, dtype=np.float64)[None, :]).reshape(-1)  # n*d
        self.lefts.flags.writeable = False  # handed to plots, which keep a view of it
        self.centres = starts + d / 2.0  # middle of each group
        self.centres.flags.writeable = False
        self.x_range = (-self.GAP / 2.0, max(n * self.step - self.GAP / 2.0, 1.0))

    def group_at(self, x: float) -> int | None:
        """Which group a data x falls in (the gap after a group counts as that group)."""
        if self.n == 0:
            return None
        g = int(np.floor((x + self.GAP / 2.0) / self.step))
        return g if 0 <= g < self.n else None


def tick_font(plot: pg.PlotWidget, name: str = "bottom") -> QtGui.QFont:
    """An axis's tick font as drawn now (the theme scales it)."""
    axis = plot.getPlotItem().getAxis(name)
    return QtGui.QFont(axis.style.get("tickFont") or axis.font())


def tick_metrics(plot: pg.PlotWidget, name: str = "bottom") -> QtGui.QFontMetricsF:
    """Metrics of an axis's tick labels as drawn now."""
    return QtGui.QFontMetricsF(tick_font(plot, name))


def fit_value_axis(plot: pg.PlotWidget) -> None:
    """Make the left (value) axis wide enough for its numbers in the tick font as drawn now
    (a fixed width would hide them when the theme makes the text bigger)."""
    fm = tick_metrics(plot, "left")
    plot.getPlotItem().getAxis("left").setWidth(int(max(38.0, fm.horizontalAdvance("-0.00") + 12)))


def px_per_unit(plot: pg.PlotWidget, x_range) -> float:
    width = plot.getPlotItem().getViewBox().boundingRect().width()
    return max(width, 1.0) / max(x_range[1] - x_range[0], 1e-9)


def y_limits(values: np.ndarray, room: float = 0.1) -> tuple:
    """A y range holding 0 and every value, with ``room`` (a fraction) above and below."""
    finite = values[np.isfinite(values)] if values.size else values
    lo = min(0.0, float(finite.min())) if finite.size else 0.0
    hi = max(0.0, float(finite.max())) if finite.size else 0.0
    span = hi - lo
    if span == 0.0:
        return -1.0, 1.0
    return lo - room * span - (0.02 * span if lo < 0 else 0.0), hi + room * span


def label_room(lo: float, hi: float, values: np.ndarray, height_px: float, pool: TextPool,
               decimals: int) -> tuple:
    """``(lo, hi)`` widened so that a number turned on its side fits above the highest bar (and below the
    lowest, when it is negative) in a view ``height_px`` pixels high: a number takes the same pixels in
    any view, so a short view needs more room in the numbers' units. A view too short to give that room
    keeps ``(lo, hi)``."""
    finite = values[np.isfinite(values)] if values.size else values
    if height_px <= 0 or not finite.size:
        return lo, hi
    top, bottom = float(finite.max()), float(finite.min())
    need = max(_NUMBER_WIDTHS(_number_font(pool), [style.fmt(v, decimals) for v in (top, bottom)])) + 6
    ends = (top > 0) + (bottom < 0)
    if ends == 0 or ends * need >= 0.75 * height_px:
        return lo, hi
    new_lo, new_hi = lo, hi
    for _ in range(4):  # the room widens the span, which makes a pixel more units: a few rounds settle it
        unit = (new_hi - new_lo) / height_px
        new_hi = max(hi, top + need * unit) if top > 0 else hi
        new_lo = min(lo, bottom - need * unit) if bottom < 0 else lo
    return new_lo, new_hi


#: The widths of the numbers written at bar tips (``label_room``).
_NUMBER_WIDTHS = TextWidths()


def _number_font(pool: TextPool) -> QtGui.QFont:
    """The font ``pool``'s labels write in: its font at its scale."""
    font = QtGui.QFont(pool.font) if pool.font is not None else QtGui.QFont()
    font.setPointSizeF((font.pointSizeF() if font.pointSizeF() > 0 else 9.0) * pool.scale)
    return font


_edges: dict = {}


def bar_edge(color: str, ppu: float):
    """The outline bars get at ``ppu`` pixels per bar: ``color`` when they are wide enough, else none."""
    if ppu < EDGE_MIN_PX:
        return None
    pen = _edges.get(color)
    if pen is None:  # one pen per colour, made once (a bar chart compares it with the pen it has)
        pen = _edges[color] = pg.mkPen(color, width=1)
    return QtGui.QPen(pen)
