"""What every panel shares: its link to the Session, a hint page, and lazy repaint.

A panel subclass sets ``object_name`` and ``title``, builds its widgets and
plot items once in ``build(body)``, and fills them in ``show_result(result,
selection)``. It never computes attention maths: numbers come from the
result, ``qkv_engine.explain``, ``qkv_engine.geometry`` or ``qkv_engine.views``.

A hidden panel (say, a closed or tabbed-away dock) is not repainted; it
catches up when it is shown again. The panels in sight take a new result a few
at a time, one group per turn of the event loop (``update_queue``), so that
typing is read between them.

Colours: a panel draws in ``self.colours`` (a ``style.Palette``). A panel whose
class sets ``follows_colours = True`` takes the palette in use (View → Theme)
and follows a new one: ``build`` reads ``self.colours`` for the colours of the
items it makes and names their roles with ``colours.paint`` (and style sheets
with ``colours.sheet``), ``show_result`` reads ``self.colours`` for what it
colours on every repaint, and ``colours_changed`` does what else a new palette
needs (caches of colours kept by the panel). On a new palette the base class
sets the pictures' backgrounds, recolours the painted items, the grids of cells
and pyqtgraph's axes and titles, sets the style sheets again, calls
``colours_changed`` and draws again. A panel that does not follow keeps the
standard palette whatever the app uses (its widgets too).

In the panel grid (which scrolls, ``room_to_read``) a panel is never squeezed
below the size at which it reads: each picture asks for a readable size
(``picture_need``: a plot a few lines high, a grid of cells a row of pixels
per token, a drawing scaled to fit at least most of its own size), the panel
for a readable width, and its wrapped texts for the height they need.
"""
from __future__ import annotations

import math

from PySide6 import QtCore, QtGui, QtWidgets

from ..look import colours, style
from ..state.session import Selection, Session
from . import update_queue
from ..drawing.lazy_axes import cache_axes
from ..drawing.text_pool import BASE_FONT

_BASE_FONT = BASE_FONT  # QGraphicsItem.data key: the item's font size at theme scale 1
_BASE_PEN = 0x5147  # ... and its pen width

# What a panel asks for in the panel grid, in pixels (its readable width grows with the theme's text size).
#: The narrowest panel: its titles, numbers and captions read on a line or two.
READABLE_WIDTH = 280
#: Room beside a picture in its panel (margins, a scale on its side).
PICTURE_MARGIN = 8
#: The lowest plot: a few lines of a chart, its axis and its labels.
PICTURE_MIN_PX = 120
#: A grid of cells (a heatmap): this many pixels a row and a column (a token's name fits, at 8 pt or a
#: little smaller) ...
CELL_PX = 14
#: ... or in a drawing scaled to fit its view (the matrices, named along one side only) ...
FITTED_CELL_PX = 8
#: ... for up to this many rows and columns (beyond, zooming and hovering name the rest) ...
CELL_LINES_ASKED = 24
#: ... plus room for their axes: the names beside, the names standing below, the colour bar, a title ...
CELL_AXES_PX = (100, 85)
#: ... and for a title between two bands of grids, one above the other.
CELL_BAND_GAP = 30
#: A scene fitted whole into its view is shown at least at this share of its own size (its texts stay readable).
FIT_MIN_ZOOM = 0.8


def _shape(result) -> tuple:
    """The tokens and sizes of a result: what the room a panel's pictures ask for is worked out from."""
    sc = result.scenario
    return result.tokens, result.key_tokens, sc.d_model, sc.d_k, sc.d_v, result.n_heads


class Panel(QtWidgets.QWidget):
    object_name = "panel"
    title = "Panel"
    #: True: the panel draws in the palette in use and follows a new one (see the module's docstring).
    follows_colours = False
    #: Shown when there is nothing to draw (empty sentence).
    empty_hint = "Type a sentence to see this picture."
    no_source_hint = "Type a source sentence: its words give the keys and values this picture needs."
    #: (width, height) a dock showing the panel opens at, or None for what its layout asks.
    dock_size: tuple | None = None

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setObjectName(self.object_name)
        self.session = session
        self._stale = True
        self._listening: list = []  # (signal, slot) pairs connected with ``listen``; ``detach`` undoes them
        self._updates = update_queue.for_session(session)  # where it waits its turn to take new numbers
        self.theme = style.SCREEN
        self.colours = style.current() if self.follows_colours else style.STANDARD
        self.setProperty(colours.OWN_COLOURS_PROPERTY, True)  # the window's style sheets leave the panel to it
        self.paint_count = 0  # how many times show_result ran (tests, benchmarks)
        self._text_room = False  # ask for the room to read (the scrolling panel grid sets it)
        self.view_area: QtWidgets.QWidget | None = None  # what the panel is scrolled in (the grid sets it)
        self._pictures_stale = False  # the pictures' readable sizes are to be worked out when shown
        self._pictures_shape = None  # the tokens and sizes they were worked out for
        self._keeper = None  # keeps the standard palette on the widgets while another is in use (_own_palette)
        self._kept: list = []  # ... on these widgets
        self._stack = QtWidgets.QStackedLayout(self)
        self._stack.setContentsMargins(0, 0, 0, 0)
        self.body = QtWidgets.QWidget(self)
        self.hint = QtWidgets.QLabel(self.empty_hint, self)
        self.hint.setObjectName("panelHint")
        self.hint.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        colours.sheet(self.hint, "color: $hint_text; font-size: 12pt; padding: 12px;", self.colours)
        self._stack.addWidget(self.body)
        self._stack.addWidget(self.hint)
        self.build(self.body)
        cache_axes(self)  # axes are redrawn only when they change
        self._own_palette()
        if self.colours is not style.STANDARD:  # parts made in the standard colours (pyqtgraph's chrome, captions)
            colours.restyle(self, self.colours)
            colours.recolour_views(self, self.colours)
        self.listen(session.resultChanged, self._on_change)
        self.listen(session.selectionChanged, self._on_change)
        self.listen(colours.hub().changed, self.set_colours)

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        return super().sizeHint() if self.dock_size is None else QtCore.QSize(*self.dock_size)

    # ----- the session's signals ------------------------------------------------------------
    def listen(self, signal, slot) -> None:
        """Connect ``slot`` to a signal of the session; ``detach`` disconnects it again."""
        signal.connect(slot)
        self._listening.append((signal, slot))

    def detach(self) -> None:
        """Stop following the session: disconnect everything ``listen`` connected (a copy made for
        an export is detached before it is thrown away)."""
        self._updates.drop(self)
        while self._listening:
            signal, slot = self._listening.pop()
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):  # already gone with the session
                pass

    # ----- for subclasses -------------------------------------------------------------------
    def build(self, body: QtWidgets.QWidget) -> None:
        """Create every widget and plot item once, inside ``body``."""
        raise NotImplementedError

    def show_result(self, result, selection: Selection) -> None:
        """Put the numbers of ``result`` on the items made in ``build``."""
        raise NotImplementedError

    def hint_for(self, result) -> str | None:
        """A message to show instead of the picture, or None to draw it."""
        if result.n == 0:
            return self.empty_hint
        if result.n_keys == 0:
            return self.no_source_hint
        return None

    # ----- machinery --------------------------------------------------------------------------
    def _on_change(self, *_):
        self._stale = True
        if self._wants_result():
            self._updates.take(self)  # now, or in a later turn of the event loop (``update_queue``)

    def _wants_result(self) -> bool:
        """Whether the panel takes new numbers now: in sight, or out of sight with new tokens or sizes (they
        change the room a panel asks for: taken even out of sight, so that the rows do not move when it
        scrolls back into sight)."""
        return self.in_view() or (self._text_room and self.isVisible()
                                  and _shape(self.session.result) != self._pictures_shape)

    def in_view(self) -> bool:
        """Shown, and (in the scrolling panel grid) some of it inside the area the grid scrolls in. A panel
        scrolled out of sight takes the session's numbers when it comes back into sight (``catch_up``): on a
        small screen most panels are out of sight, and an edit need not wait for them."""
        if not self.isVisible():
            return False
        area = self.view_area
        if area is None:
            return True
        return QtCore.QRect(self.mapTo(area, QtCore.QPoint(0, 0)), self.size()).intersects(area.rect())

    def catch_up(self) -> None:
        """Take the session's numbers now if they changed since the panel last took them and it wants them
        (the grid calls it when it scrolls or changes size; the update queue when the panel's turn comes)."""
        if self._stale and self._wants_result():
            self.refresh()

    def refresh(self) -> None:
        """Repaint from the session now."""
        self._stale = False
        result = self.session.result
        message = self.hint_for(result)
        if message is not None:
            self.hint.setText(message)
            self._stack.setCurrentWidget(self.hint)
            return
        self._stack.setCurrentWidget(self.body)
        self.show_result(result, self.session.selection)
        self.paint_count += 1
        if self.theme != style.SCREEN:
            self._scale_items()  # items made or restyled by show_result follow the theme too
        if self._text_room:
            # a new number of tokens (or of dimensions): a grid of cells asks for another size
            shape = _shape(result)
            if shape != self._pictures_shape:
                self._pictures_shape = shape
                self.fit_pictures()
                # and once more when the new pictures have been laid out: a drawing's minimum size
                # follows its new shapes and names only then
                QtCore.QTimer.singleShot(0, self, self.fit_pictures)

    # ----- colours (View → Theme) ----------------------------------------------------------------------
    def set_colours(self, palette: "style.Palette") -> None:
        """Draw in ``palette`` (a panel that does not follow keeps the standard palette): backgrounds, painted
        items, grids of cells, axes and titles, style sheets, then ``colours_changed`` and a repaint."""
        new = palette if self.follows_colours else style.STANDARD
        self._own_palette()
        colours.restyle(self, new)
        if new is self.colours:
            return
        self.colours = new
        colours.recolour_views(self, new)
        self.colours_changed(new)
        self._stale = True
        if self.isVisible():
            self.refresh()

    def colours_changed(self, palette: "style.Palette") -> None:
        """Hook for panel-specific changes of palette (the generic recolouring has already run; a repaint
        follows)."""

    def _own_palette(self) -> None:
        """Qt's palette of the panel's widgets: the application's (which follows the palette in use), or,
        for a panel that does not follow while another palette is in use, the standard one."""
        keeper = self._keeper
        if not self.follows_colours and style.current() is not style.STANDARD:
            if keeper is None:
                # every widget of it, kept: a style sheet (its own, or the lesson's outline above) gives a
                # widget the application's palette whenever it is polished
                self._kept = [self, *self.findChildren(QtWidgets.QWidget)]
                self._keeper = colours.keep_palette(self._kept, style.STANDARD)
                self.setAutoFillBackground(True)  # its own light ground under its words, not the window's
        elif keeper is not None:
            colours.release_palette(self._kept, keeper)
            self._keeper, self._kept = None, []
            self.setAutoFillBackground(False)

    # ----- themes (slides, presenter mode) -------------------------------------------------------
    def set_theme(self, theme: "style.Theme") -> None:
        """Draw with ``theme``: every font and line scaled, then ``theme_changed`` for the rest."""
        self.theme = theme
        self._scale_widgets()
        self._scale_items(force=True)
        self.theme_changed(theme)
        self.refresh()
        self.fit_pictures()  # the readable sizes grow with the text
        self.updateGeometry()

    def theme_changed(self, theme: "style.Theme") -> None:
        """Hook for panel-specific changes of theme (the generic scaling has already run)."""

    def _scale_widgets(self) -> None:
        """Scale every widget's font from the size it had at theme scale 1.

        All base sizes are read before any font is set: a child that inherits
        its parent's font would otherwise read an already-scaled size.
        """
        widgets = [self, *self.findChildren(QtWidgets.QWidget)]
        bases = []
        for w in widgets:
            base = w.property("qkvBasePointSize")
            if base is None:
                base = w.font().pointSizeF()
                if base <= 0:
                    bases.append(None)
                    continue
                w.setProperty("qkvBasePointSize", base)
            bases.append(float(base))
        controls = (QtWidgets.QAbstractButton, QtWidgets.QComboBox, QtWidgets.QAbstractSpinBox,
                    QtWidgets.QAbstractSlider, QtWidgets.QTabBar, QtWidgets.QLineEdit)
        for w, base in zip(widgets, bases):
            if base is None:
                continue
            font = w.font()
            font.setPointSizeF(base * (self.theme.controls if isinstance(w, controls) else self.theme.font_scale))
            w.setFont(font)

    def _scale_items(self, force: bool = False) -> None:
        """Scale the fonts and pens of every item in this panel's graphics scenes.

        Each item remembers the size it was last given by the theme; a size that
        differs was set by the panel since, and becomes the new base. An item that
        still has the size the theme gave it is left alone (after an edit, most are:
        setting an axis' font again would lay it out and draw it afresh), unless
        ``force`` (a new theme).
        """
        import pyqtgraph as pg

        fs, ls = self.theme.font_scale, self.theme.line_scale

        def scaled(item, key, current, factor, minimum=0.0):
            """The size to give, or None when the item has it already."""
            base, done = item.data(key), item.data(key + 1)
            if base is None or done is None or abs(current - done) > 1e-6:
                base = current  # first time, or the panel has set a new size since
            elif not force:
                return None  # the theme's size, given before and not changed since
            new = max(base, minimum) * factor if base > 0 else (factor if factor != 1 and minimum else 0.0)
            item.setData(key, base)
            item.setData(key + 1, new)
            return new

        for view in self.findChildren(QtWidgets.QGraphicsView):
            scene = view.scene()
            if scene is None:
                continue
            for item in scene.items():
                if isinstance(item, pg.AxisItem):
                    f = QtGui.QFont(item.style.get("tickFont") or QtGui.QFont())
                    size = scaled(item, _BASE_FONT, f.pointSizeF() if f.pointSizeF() > 0 else 9.0, fs)
                    if size is not None:
                        f.setPointSizeF(size)
                        item.setStyle(tickFont=f)
                elif isinstance(item, (QtWidgets.QGraphicsTextItem, QtWidgets.QGraphicsSimpleTextItem)):
                    f = item.font()
                    size = scaled(item, _BASE_FONT, f.pointSizeF() if f.pointSizeF() > 0 else 9.0, fs)
                    if size is not None:
                        f.setPointSizeF(size)
                        item.setFont(f)
                if isinstance(item, (QtWidgets.QAbstractGraphicsShapeItem, QtWidgets.QGraphicsLineItem)):
                    pen = item.pen()
                    if pen.style() != QtCore.Qt.PenStyle.NoPen:
                        width = scaled(item, _BASE_PEN, pen.widthF(), ls, minimum=1.0)
                        if width is not None:
                            pen.setWidthF(width)
                            item.setPen(pen)

    def showEvent(self, event):
        super().showEvent(event)
        if self._stale:
            self.refresh()
        elif self._pictures_stale:
            self.fit_pictures()

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        """In the panel grid, at least the readable width, and the height the pictures (at their readable
        sizes) and the wrapped texts need at the panel's width now.

        Splitters ask widgets only for a minimum size, not for a height that suits their width; a
        narrow panel (a small screen) then got less height than its wrapped lines of arithmetic need,
        and they were drawn over the plot. The panel grid scrolls instead. Only where something scrolls
        (``text_room``, set by the grid): in a dock, the window would grow past the screen instead."""
        hint = super().minimumSizeHint()
        if not self._text_room:
            return hint
        hint.setWidth(max(hint.width(), self.readable_width()))
        layout = self.body.layout()
        if layout is not None and self.width() > 0 and not self.showing_hint() and layout.hasHeightForWidth():
            hint.setHeight(max(hint.height(), layout.minimumHeightForWidth(self.width())))
        return hint

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the wrapped texts' height follows the width: ask for it again
        self.catch_up()  # (a splitter gave it room: it may be in sight now)

    def showing_hint(self) -> bool:
        return self._stack.currentWidget() is self.hint

    # ----- room to read (the panel grid) ----------------------------------------------------------
    @property
    def text_room(self) -> bool:
        """True where something scrolls around the panel (the panel grid): the panel asks for the size at
        which it reads (its pictures' readable sizes, a readable width, its wrapped texts' height). In a
        dock it does not: the window would grow past the screen instead."""
        return self._text_room

    @text_room.setter
    def text_room(self, on: bool) -> None:
        self._text_room = bool(on)
        self.fit_pictures()
        self.updateGeometry()

    def readable_width(self) -> int:
        """The narrowest the panel reads at (pixels), at its theme's text size."""
        return round(READABLE_WIDTH * self.theme.font_scale)

    def room_width(self) -> int:
        """The width the panel asks the grid for: its readable width, or more for a wide picture.

        It depends only on the theme and the pictures, not on how the panel is laid out now: a panel
        that lays itself out differently when narrow (words or only icons on its buttons) asks for the
        same width either way, so the grid's rows do not change with the panel's last size."""
        pictures = [v.minimumWidth() + PICTURE_MARGIN for v in self.pictures() if v.isVisibleTo(self)]
        return max([self.readable_width(), *pictures])

    def pictures(self) -> list:
        """The panel's pictures: its graphics views (those not inside another one's scene)."""
        return [v for v in self.body.findChildren(QtWidgets.QGraphicsView)
                if v.graphicsProxyWidget() is None]

    def picture_need(self, view: QtWidgets.QGraphicsView) -> QtCore.QSize:
        """The smallest size at which ``view``'s picture reads, at the panel's theme.

        A grid of cells (a heatmap, a matrix) asks for ``CELL_PX`` a row and a column and room for its
        axes; the rows of grids stacked above one another, and the columns of grids side by side, add up
        (to ``CELL_LINES_ASKED`` at most). A drawing that scales itself to fit the view (a layout that shrinks when it has less
        than its minimum, or a whole scene fitted in) asks for its minimum, or for ``FIT_MIN_ZOOM`` of
        the scene's size.
        Any other plot asks for ``PICTURE_MIN_PX`` of height.

        These are the needs at the screen's text size. A larger theme (presenter mode) draws a picture
        larger where there is room but asks for no more: a panel shown alone keeps to a projector's screen
        at every text size, and names that no longer fit are thinned (hovering names the rest)."""
        from ..drawing.fit_view import FitLayoutWidget

        fitted = isinstance(view, FitLayoutWidget) or callable(getattr(view, "fit", None))
        need = self._cells_need(view, FITTED_CELL_PX if fitted else CELL_PX)
        if isinstance(view, FitLayoutWidget):
            own, zoom = view.ci.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize), 1.0
        elif callable(getattr(view, "fit", None)) and view.scene() is not None:
            own, zoom = view.sceneRect().size(), FIT_MIN_ZOOM
        else:
            return need if not need.isEmpty() else QtCore.QSize(0, PICTURE_MIN_PX)
        # The drawing is made at the theme's text size: it asks for the room it needs at the screen's size.
        zoom /= max(1.0, self.theme.font_scale)
        return QtCore.QSize(math.ceil(own.width() * zoom), math.ceil(own.height() * zoom)).expandedTo(need)

    def _cells_need(self, view: QtWidgets.QGraphicsView, px: int) -> QtCore.QSize:
        """What the grids of cells in ``view`` ask for, ``px`` pixels a cell (an empty size when there are
        none)."""
        from ..drawing.cell_grid import CellGridItem

        scene = view.scene()
        grids = [item for item in (scene.items() if scene is not None else ())
                 if isinstance(item, CellGridItem) and item.isVisible() and item.values.size]
        if not grids:
            return QtCore.QSize()

        def lines(axis: int) -> tuple[int, int]:
            """Cells needed along ``axis`` (0: rows, down; 1: columns, across), over the bands of grids
            that lie beside one another along it, and how many bands there are."""
            spans = []
            for g in grids:
                r = g.sceneBoundingRect()
                lo, hi = (r.top(), r.bottom()) if axis == 0 else (r.left(), r.right())
                spans.append((lo, hi, min(g.values.shape[axis], CELL_LINES_ASKED)))
            spans.sort()
            total, bands, end, most = 0, 0, None, 0
            for lo, hi, count in spans:
                if end is None or lo >= end - 0.5:  # a new band
                    total += most
                    bands += 1
                    end, most = hi, count
                else:
                    end, most = max(end, hi), max(most, count)
            return total + most, bands

        (rows, down), (cols, _across) = lines(0), lines(1)
        rows, cols = min(rows, CELL_LINES_ASKED), min(cols, CELL_LINES_ASKED)
        return QtCore.QSize(cols * px + CELL_AXES_PX[0], rows * px + CELL_AXES_PX[1] + CELL_BAND_GAP * (down - 1))

    def fit_pictures(self) -> None:
        """Give every picture at least its readable size (``picture_need``) while the panel has room to
        read (``text_room``); else only the minimum the panel gave it itself. Nothing is laid out again
        unless a minimum changes. A hidden panel waits until it is shown: the places of the items its
        needs are measured from are not kept up to date while it is hidden."""
        if self._text_room and not self.isVisible():
            self._pictures_stale = True
            return
        self._pictures_stale = False
        for view in self.pictures():
            own = view.property("qkvOwnMinimum")
            if own is None:
                own = view.minimumSize()
                view.setProperty("qkvOwnMinimum", own)
            target = own.expandedTo(self.picture_need(view)) if self._text_room else own
            target = target.boundedTo(view.maximumSize())
            if view.minimumSize() != target:
                view.setMinimumSize(target)
