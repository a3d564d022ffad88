"""One grid of coloured cells, pyqtgraph style: a GraphicsObject that owns its drawing, hit-testing and signals.

The heatmap, compare, heads, concat, matrices and model-view panels all draw their grids with it:

    grid = CellGridItem("weights")                 # or "signed", "diff" (see colour_tables)
    plot.addItem(grid)                              # in a ViewBox with invertY: row 0 at the top
    grid.setData(weights, levels=(0.0, 0.31), masked_by=result.masked_by)
    grid.set_outlines({"cell": Outline(QRectF(j, i, 1, 1), style.SELECTED, 2.5, halo=True)})
    grid.cellClicked.connect(lambda i, j: session.select(query=i, key=j))

Cell (i, j) covers [j, j + 1] x [i, i + 1] in the item's own units (``setRect`` places the whole grid
elsewhere, as ``ImageItem.setRect`` does). Values become colours through a colour table made once
(``levels``: the value of the bottom and of the top colour; either may be an array that broadcasts
against the values, for one scale per row or per tile) into one RGBA image that is drawn as it is. A NaN
cell is empty: transparent, no number, not hit; several grids can so be tiled into one item. Masked cells
get the one mask look (``mask_look``). Numbers are written in the cells only when they fit
(``NUMBER_MIN_PX``, ``MAX_NUMBERS``), in the ink that contrasts with each cell. Outlines (selected cell,
row and column bands, frames) and numbers are drawn in view pixels, so they keep their width at any
zoom and need no cosmetic pens (which some SVG renderers draw hundreds of pixels wide).

Colours (the tables, the mask look, the inks of the numbers, the veil and cross, the halo under outlines)
come from the grid's palette, ``set_colours(palette)`` (the standard one until a panel sets another);
outlines bring their own colour.

Signals: ``cellHovered(i, j)`` when the mouse comes onto a cell, ``cellLeft()`` when it leaves the cells,
``cellClicked(i, j)`` on a left click. With ``set_header_cells(left, top)`` the strips just left of and
above the cells count too, as (i, -1) for a row's strip and (-1, j) for a column's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
import pyqtgraph as pg

from qkv_engine import fixed

from ..look import style
from ..look.colour_tables import ink, table_argb
from ..look.mask_look import mask_paths, paint_mask

Qt = QtCore.Qt

#: A cell needs at least this many view pixels (wide, tall) to hold its number (and the number's own size).
NUMBER_MIN_PX = (30.0, 14.0)
#: Never write more numbers than this in one grid at once.
MAX_NUMBERS = 400
#: Point size of the numbers at theme scale 1.
NUMBER_PT = 8.0
#: In SVG and PDF files the cells are an image of about this many pixels a side (see _export_image).
EXPORT_PX = 1024
#: A knocked-out tile (model view) is veiled with this and crossed (the standard palette's colours).
VEIL = QtGui.QColor(*style.STANDARD.veil)
CROSS = style.STANDARD.cross


@dataclass(frozen=True)
class Outline:
    """A rectangle drawn around cells: ``rect`` in cell units, ``width`` in view pixels (times the theme's
    line scale); ``halo``: a line in the palette's halo colour (white, or black on dark) under it, so that it
    reads on any colour."""

    rect: QtCore.QRectF
    color: str
    width: float = 2.0
    dashed: bool = False
    halo: bool = False  # a line in the palette's halo colour under it


def _equal(a, b) -> bool:
    """The same number, or the same numbers (levels are either)."""
    if np.ndim(a) == 0 and np.ndim(b) == 0:
        return float(a) == float(b)
    return bool(np.array_equal(a, b))


def same_numbers(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two float64 grids of one shape hold the same numbers, bit for bit (an empty cell, NaN, is then
    the same as an empty cell): an array of 512 x 512 numbers compared as numbers, NaN-aware, took 2.4 ms; as
    64-bit words, 0.16 ms. A big grid is looked at in a sparse sample first: new numbers are usually found
    there. Grids of other number types are compared as numbers."""
    if a.dtype != np.float64 or b.dtype != np.float64:
        return bool(np.array_equal(a, b, equal_nan=True))
    new, old = a.view(np.uint64), b.view(np.uint64)
    if new.size > 4096:
        k = int(np.sqrt(new.size / 1024))
        if not np.array_equal(new[::k, ::k], old[::k, ::k]):
            return False
    return bool(np.array_equal(new, old))


def two_decimals(v: float) -> str:
    return fixed(v, 2)


#: The paint engines that write vector files (SVG, PDF, print), not pixels.
_VECTOR_ENGINES = frozenset((QtGui.QPaintEngine.Type.SVG, QtGui.QPaintEngine.Type.Pdf, QtGui.QPaintEngine.Type.Picture))


def _draws_vectors(p: QtGui.QPainter) -> bool:
    """True when the painter writes a vector file (SVG, PDF, print), not pixels."""
    engine = p.paintEngine()
    return engine is not None and engine.type() in _VECTOR_ENGINES


class CellGridItem(pg.GraphicsObject):
    cellHovered = QtCore.Signal(int, int)
    cellLeft = QtCore.Signal()
    cellClicked = QtCore.Signal(int, int)

    def __init__(self, colormap: str = "weights", parent=None):
        super().__init__(parent)
        self.colormap = colormap
        self.values = np.zeros((0, 0))
        self.low, self.high = 0.0, 1.0
        self.masked_by = None  # n x m int8 reasons, or None when nothing is masked
        self.fmt = two_decimals  # value -> the text written in its cell
        self.numbers = True  # write numbers where they fit
        self.soften = None  # diverging maps: pull colours this much towards the middle when numbers are written
        self.hovered = None  # (i, j) under the mouse, or None
        self.font = QtGui.QFont()
        self.font.setPointSizeF(NUMBER_PT)
        self.line_scale = 1.0
        self.colours = style.STANDARD  # the palette (set_colours)
        self._metrics = QtGui.QFontMetricsF(self.font)
        self._index = None  # n x m uint8 colour-table index of every cell
        self._nan = None  # n x m bool of the empty cells, or None when there are none
        self._rgba = None  # the pixels of _image (the image reads them, so they are kept)
        self._image = None
        self._softened = False
        self._mask_key = None
        self._cover = QtGui.QPainterPath()
        self._hatches: dict = {}
        self._runs: dict = {}
        self._outlines: dict = {}
        self._pens: dict = {}  # (colour, width, dashed, line scale) -> QPen (``_pen``)
        self._veils: list = []
        self._headers = (0.0, 0.0)
        self._pad = (0.0, 0.0)
        self.drawn_numbers = 0  # how many numbers the last paint wrote

    # ----- data -----------------------------------------------------------------------------------------
    def setData(self, values, levels=(0.0, 1.0), masked_by=None, colormap: str | None = None) -> None:
        """Show ``values`` (n x m; NaN: empty) coloured from ``levels`` = (bottom, top); ``masked_by``: n x m
        mask reasons (0 open) drawn in the mask look."""
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 2:
            raise ValueError(f"values: expected a 2-D array, got shape {values.shape}")
        if masked_by is not None and np.shape(masked_by) != values.shape:
            raise ValueError(f"masked_by: expected shape {values.shape}, got {np.shape(masked_by)}")
        if self._same(values, levels, masked_by, colormap):
            return  # what is shown already (a weight grid when a token's number changed): nothing to draw
        if values.shape != self.values.shape:
            self.prepareGeometryChange()
        self.values = values
        self.low, self.high = levels
        if colormap is not None:
            self.colormap = colormap
        self._set_mask(masked_by)
        self._recolour()
        if self.hovered is not None and not self._holds(*self.hovered):
            self._set_hover(None)
        # the cells and the outlines around them: not the header strips beside them (names drawn by other
        # items there, a title above, would be painted again for nothing)
        n, m = values.shape
        px, py = self._pad
        self.update(QtCore.QRectF(-px, -py, m + 2 * px, n + 2 * py))

    def _same(self, values: np.ndarray, levels, masked_by, colormap) -> bool:
        """True when ``setData`` with these would show exactly what is shown now."""
        if self._index is None or values is self.values or values.shape != self.values.shape:
            return False  # (the same array again may have been changed in place)
        if colormap is not None and colormap != self.colormap:
            return False
        low, high = levels  # (numbers, or arrays of them)
        if not (_equal(low, self.low) and _equal(high, self.high)):
            return False
        if masked_by is None:
            if self.masked_by is not None:
                return False
        elif self.masked_by is None:
            if np.any(masked_by):
                return False
        elif not np.array_equal(masked_by, self.masked_by):
            return False
        return same_numbers(values, self.values)

    def setRect(self, rect: QtCore.QRectF) -> None:
        """Place the grid's n x m cells in ``rect`` of the parent's coordinates."""
        n, m = self.values.shape
        tr = QtGui.QTransform()
        tr.translate(rect.left(), rect.top())
        tr.scale(rect.width() / max(1, m), rect.height() / max(1, n))
        self.setTransform(tr)
        self.viewTransformChanged()

    @property
    def image(self) -> np.ndarray:
        """The values shown (named as pyqtgraph's ImageItem names its data)."""
        return self.values

    @property
    def levels(self) -> tuple:
        return self.low, self.high

    def getLevels(self) -> tuple:  # noqa: N802 (pyqtgraph naming)
        return self.levels

    def _set_mask(self, masked_by) -> None:
        why = None if masked_by is None else np.asarray(masked_by)
        if why is not None and not why.any():
            why = None
        key = None if why is None else (why.shape, why.tobytes())
        self.masked_by = why
        if key != self._mask_key:
            self._mask_key = key
            self._cover, self._hatches, self._runs = mask_paths(why) if why is not None else (
                QtGui.QPainterPath(), {}, {})

    def _recolour(self) -> None:
        v = self.values
        if v.size == 0:
            self._index = self._nan = self._rgba = self._image = None
            return
        span = np.subtract(self.high, self.low)
        span = np.where(span > 0, span, 1.0)
        # (v - low) / span * 255, clipped to 0..255 (an empty cell, NaN, to 0): worked out in one array, in
        # place (a 512 x 512 grid made five new arrays of it); in 32-bit floats when the levels are not much
        # bigger than their span (the usual case), which halves the memory walked: a level differs from the
        # 64-bit sum's at most where the sum lies within a millionth of a level of a half
        reach = max(float(np.max(np.abs(self.low))), float(np.max(np.abs(self.high))))
        kind = np.float32 if reach < 1e30 and reach <= 1000.0 * float(np.min(span)) else np.float64
        with np.errstate(invalid="ignore", over="ignore"):
            t = np.subtract(v, self.low, dtype=kind)
            np.divide(t, np.asarray(span, dtype=kind), out=t)
            np.multiply(t, kind(255.0), out=t)
            np.fmax(t, kind(0.0), out=t)  # (fmax and fmin, unlike clip, turn NaN into the bound)
            np.fmin(t, kind(255.0), out=t)
        np.rint(t, out=t)
        nan = np.isnan(v)
        self._index = t.astype(np.uint8)
        self._nan = nan if nan.any() else None
        self._build_image(self._softened)

    def _build_image(self, softened: bool) -> None:
        index = self._index
        if softened and self.soften:
            index = np.rint(127.5 + (index - 127.5) / self.soften).astype(np.uint8)
        # one 32-bit pixel per cell, in the painter's own format: a new n x m array (gathering whole pixels
        # is four times fewer steps than gathering their bytes)
        table = table_argb(self.colormap, self.colours)
        words = np.take(np.ascontiguousarray(table).view(np.uint32).reshape(-1), index)
        if self._nan is not None:
            words[self._nan] = 0  # empty: transparent, the background shows
        n, m = index.shape
        pixels = words.view(np.uint8).reshape(n, m, 4)
        self._rgba = pixels
        self._image = QtGui.QImage(pixels.data, m, n, 4 * m, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        self._softened = softened

    def mask_path(self, reason: int | None = None) -> QtGui.QPainterPath:
        """The cells covered by the mask look (cell units): all of them, or those hatched for ``reason``."""
        if reason is None:
            return QtGui.QPainterPath(self._cover)
        return QtGui.QPainterPath(self._hatches.get(reason, QtGui.QPainterPath()))

    # ----- what is drawn on top ---------------------------------------------------------------------------
    def set_outlines(self, outlines: dict) -> None:
        """Name -> Outline (or None to drop it); the outlines not named stay. The same outlines again draw
        nothing."""
        changed = False
        for name, outline in outlines.items():
            if outline is None:
                changed |= self._outlines.pop(name, None) is not None
            elif self._outlines.get(name) != outline:
                self._outlines[name] = outline
                changed = True
        if changed:
            self.update()

    @property
    def outlines(self) -> dict:
        return dict(self._outlines)

    @property
    def veils(self) -> list:
        return list(self._veils)

    def set_veils(self, rects) -> None:
        """Cover these rectangles (cell units) with a white veil and a cross: something switched off."""
        rects = list(rects)
        if rects != self._veils:
            self._veils = rects
            self.update()

    def set_header_cells(self, left: float = 0.0, top: float = 0.0) -> None:
        """Let the strips ``left`` cells wide left of the cells and ``top`` cells tall above them be hit too."""
        if (left, top) != self._headers:
            self.prepareGeometryChange()
            self._headers = (float(left), float(top))

    def set_colours(self, palette: style.Palette) -> None:
        """Draw in ``palette``: its colour tables, mask look, inks, veil and halo."""
        if palette is self.colours:
            return
        self.colours = palette
        if self._index is not None:
            self._build_image(self._softened)
        self.update()

    def set_theme_scale(self, font_scale: float, line_scale: float) -> None:
        self.font.setPointSizeF(NUMBER_PT * font_scale)
        self._metrics = QtGui.QFontMetricsF(self.font)
        self.line_scale = line_scale
        self.viewTransformChanged()
        self.update()

    # ----- geometry ---------------------------------------------------------------------------------------
    def _device(self) -> QtGui.QTransform | None:
        """Item units -> pixels of the view that shows the item, or None when it is not shown."""
        view = self.getViewWidget()
        if view is None:
            return None
        tr = QtWidgets.QGraphicsItem.deviceTransform(self, view.viewportTransform())
        return tr if abs(tr.determinant()) > 0 else None

    def cell_px(self) -> tuple:
        """(wide, tall) view pixels of one cell now; (0, 0) when not shown."""
        tr = self._device()
        return (0.0, 0.0) if tr is None else (abs(tr.m11()), abs(tr.m22()))

    def viewTransformChanged(self):  # noqa: N802 (pyqtgraph naming)
        super().viewTransformChanged()
        px, py = self.cell_px()
        margin = 5.0 * self.line_scale  # the widest outline with its halo sticks out this far
        pad = (margin / px if px > 0 else 0.0, margin / py if py > 0 else 0.0)
        if pad != self._pad:
            self.prepareGeometryChange()
            self._pad = pad

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802 (Qt naming)
        n, m = self.values.shape
        left, top = self._headers
        px, py = self._pad
        return QtCore.QRectF(-left - px, -top - py, m + left + 2 * px, n + top + 2 * py)

    def _holds(self, i: int, j: int) -> bool:
        n, m = self.values.shape
        return -1 <= i < n and -1 <= j < m and not (i < 0 and j < 0)

    def _cell_at_local(self, p: QtCore.QPointF):
        n, m = self.values.shape
        x, y = p.x(), p.y()
        left, top = self._headers
        if 0 <= x < m and 0 <= y < n:
            i, j = int(y), int(x)
            if self._nan is not None and self._nan[i, j]:
                return None
            return i, j
        if -left <= x < 0 and 0 <= y < n:
            return int(y), -1
        if -top <= y < 0 and 0 <= x < m:
            return -1, int(x)
        return None

    def cell_at(self, scene_pos: QtCore.QPointF):
        """The cell (i, j) under a scene position, or None outside the cells, on an empty one or where the
        view cuts the grid off; (i, -1) / (-1, j) on a header strip."""
        p = self.mapFromScene(scene_pos)
        shown = self.viewRect()
        if shown is not None and not shown.contains(p):
            return None
        return self._cell_at_local(p)

    def scene_pos_of(self, i: int, j: int) -> QtCore.QPointF:
        """The scene position of the centre of cell (i, j)."""
        return self.mapToScene(QtCore.QPointF(j + 0.5, i + 0.5))

    # ----- numbers ----------------------------------------------------------------------------------------
    def number_cells(self, px: tuple | None = None) -> list:
        """[(i, j)] of the cells whose numbers are written now: every open, non-empty cell in view, when
        each is big enough for its number and there are at most MAX_NUMBERS of them; else none."""
        v = self.values
        if not self.numbers or v.size == 0:
            return []
        px_x, px_y = self.cell_px() if px is None else px
        fm = self._metrics
        if px_y < max(NUMBER_MIN_PX[1], fm.height()) or px_x < NUMBER_MIN_PX[0]:
            return []
        n, m = v.shape
        shown = self.viewRect()
        if shown is None:
            i0, i1, j0, j1 = 0, n, 0, m
        else:
            i0, i1 = max(0, int(np.floor(shown.top()))), min(n, int(np.ceil(shown.bottom())))
            j0, j1 = max(0, int(np.floor(shown.left()))), min(m, int(np.ceil(shown.right())))
        if i1 <= i0 or j1 <= j0 or (i1 - i0) * (j1 - j0) > MAX_NUMBERS:
            return []
        part = v[i0:i1, j0:j1]
        open_ = ~np.isnan(part)
        if self.masked_by is not None:
            open_ &= self.masked_by[i0:i1, j0:j1] == 0
        if not open_.any():
            return []
        # the widest text is the smallest or the largest number's (most digits, or a minus sign)
        lo, hi = float(part[open_].min()), float(part[open_].max())
        widest = max(fm.horizontalAdvance(self.fmt(lo)), fm.horizontalAdvance(self.fmt(hi)))
        if px_x < widest + 4:
            return []
        rows, cols = np.nonzero(open_)
        return list(zip((rows + i0).tolist(), (cols + j0).tolist()))

    @property
    def shown_numbers(self) -> int:
        return len(self.number_cells())

    def number_texts(self) -> list:
        """[(i, j, text)] of the numbers written now."""
        return [(i, j, self.fmt(float(self.values[i, j]))) for i, j in self.number_cells()]

    # ----- painting ---------------------------------------------------------------------------------------
    def paint(self, p: QtGui.QPainter, *args) -> None:
        if self._image is None:
            return
        n, m = self.values.shape
        dev = self._device()
        px = (abs(dev.m11()), abs(dev.m22())) if dev is not None else (0.0, 0.0)
        cells = self.number_cells(px) if dev is not None else []
        softened = bool(cells) and bool(self.soften)
        if softened != self._softened:
            self._build_image(softened)
        vector = _draws_vectors(p)
        p.save()
        try:  # the painter's state is restored whatever happens (a painter left saved crashes the view)
            p.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform, False)
            p.drawImage(QtCore.QRectF(0, 0, m, n), self._export_image() if vector else self._image)
            paint_mask(p, self._cover, self._hatches, self._runs, dev if vector else None, self.colours)
            if self._veils:
                veil = QtGui.QColor(*self.colours.veil)
                for rect in self._veils:
                    p.fillRect(rect, veil)
            if dev is not None:
                # the rest in view pixels: the painter maps them onto its device (the screen, or an export)
                p.setTransform(dev.inverted()[0] * p.transform())
                origin = dev.map(QtCore.QPointF(0.0, 0.0))
                self._paint_numbers(p, cells, origin, dev)
                self._paint_lines(p, dev)
        finally:
            p.restore()
        self.drawn_numbers = len(cells)

    def _export_image(self) -> QtGui.QImage:
        """The cells as an image of about EXPORT_PX pixels a side, each cell a block of (up to 64 x 64) pixels:
        SVG and PDF readers smooth an image they enlarge, which blurred a whole 3 x 3 grid into one gradient."""
        n, m = self._index.shape
        k = max(1, min(64, int(np.ceil(EXPORT_PX / max(n, m)))))
        big = np.ascontiguousarray(np.repeat(np.repeat(self._rgba, k, axis=0), k, axis=1))
        image = QtGui.QImage(big.data, m * k, n * k, 4 * m * k, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        return image.copy()  # its own pixels: ``big`` goes when this returns

    def _paint_numbers(self, p, cells, origin, dev) -> None:
        if not cells:
            return
        sx, sy = dev.m11(), dev.m22()
        light = ink(self.colormap, self.colours)
        index = self._index
        if self._softened and self.soften:
            index = np.rint(127.5 + (index - 127.5) / self.soften).astype(np.uint8)
        p.setFont(self.font)
        flags = int(Qt.AlignmentFlag.AlignCenter)
        ox, oy = origin.x(), origin.y()
        values, fmt = self.values, self.fmt
        for want, colour in ((True, self.colours.light_ink), (False, self.colours.dark_ink)):
            p.setPen(QtGui.QColor(colour))
            for i, j in cells:
                if bool(light[index[i, j]]) != want:
                    continue
                rect = QtCore.QRectF(ox + j * sx, oy + i * sy, sx, sy).normalized()
                p.drawText(rect, flags, fmt(float(values[i, j])))

    def _pen(self, color, width: float, dashed: bool = False) -> QtGui.QPen:
        """A pen of ``width`` view pixels times the theme's line scale (made once, kept while the scale
        stays: the outlines are drawn at every paint)."""
        key = (color if isinstance(color, (str, tuple)) else QtGui.QColor(color).rgba(), width, dashed,
               self.line_scale)
        pen = self._pens.get(key)
        if pen is None:
            if len(self._pens) > 64:
                self._pens.clear()
            pen = QtGui.QPen(QtGui.QColor(color))
            pen.setWidthF(width * self.line_scale)
            if dashed:
                pen.setStyle(Qt.PenStyle.DashLine)
            self._pens[key] = pen
        return pen

    def _paint_lines(self, p, dev) -> None:
        p.setBrush(Qt.BrushStyle.NoBrush)
        for rect in self._veils:
            r = dev.mapRect(rect)
            p.setPen(self._pen(self.colours.cross, 1.5))
            p.drawLine(r.topLeft(), r.bottomRight())
            p.drawLine(r.topRight(), r.bottomLeft())
        for outline in self._outlines.values():
            r = dev.mapRect(outline.rect)
            if outline.halo:
                p.setPen(self._pen(self.colours.halo, outline.width + 2.5))
                p.drawRect(r)
            p.setPen(self._pen(outline.color, outline.width, outline.dashed))
            p.drawRect(r)

    # ----- the mouse --------------------------------------------------------------------------------------
    def _set_hover(self, cell) -> None:
        if cell == self.hovered:
            return
        self.hovered = cell
        if cell is None:
            self.cellLeft.emit()
        else:
            self.cellHovered.emit(*cell)

    def hover_at(self, scene_pos) -> None:
        """What the mouse at ``scene_pos`` does (hover events call it; so can a test)."""
        self._set_hover(None if scene_pos is None else self.cell_at(scene_pos))

    def hoverEvent(self, ev):  # noqa: N802 (pyqtgraph naming)
        if ev.isExit():
            self._set_hover(None)
            return
        cell = self.cell_at(ev.scenePos())
        if cell is not None:
            ev.acceptClicks(Qt.MouseButton.LeftButton)
        self._set_hover(cell)

    def mouseClickEvent(self, ev):  # noqa: N802 (pyqtgraph naming)
        if ev.button() != Qt.MouseButton.LeftButton or ev.double():
            return  # a double click is the view's (show all)
        cell = self.cell_at(ev.scenePos())
        if cell is None:
            ev.ignore()
            return
        ev.accept()
        self.cellClicked.emit(*cell)


class GridHolder:
    """For a panel part that draws one matrix with a CellGridItem in ``self.image``: its outlines by name and
    how many numbers it writes now."""

    image: CellGridItem

    @property
    def highlights(self) -> dict:
        return self.image.outlines

    @property
    def shown_numbers(self) -> int:
        return self.image.shown_numbers
