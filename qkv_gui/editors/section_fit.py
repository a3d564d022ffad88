"""A number table's columns (and rows) fitted to their words as Qt's ``ResizeToContents`` fits them, but
measured only where something changed.

    view.fitter = SectionFitter(view, lambda: ("all", True))   # every column and row fitted
    SectionFitter(view, lambda: ("first", False))              # only the first column (token names)

Qt's ``ResizeToContents`` measures every cell of every fitted column again whenever any cell changes (80
measures an edit at 16 tokens, 2,560 at 512). Here the width of each fitted cell's text is kept, one number
per cell; a change of some cells measures those cells only (each text measured once per font), and a
section is resized only when it needs another size. A column comes out as wide as Qt makes it: its widest
text plus the style's margins around a cell's text (and the grid line), or its header's own width when
that is wider, within the header's smallest and largest section sizes; a fitted row as high as one line of
text or its header, whichever is higher.

``what()`` says what to fit, asked afresh at every refit (a model reset, a new font, a new style): the
columns ("all", "first" or None) and whether the rows are fitted too (True or False). Sections not fitted
all take their header's default size (none keeps a size fitted while the table was smaller). "uniform"
(columns or rows) makes every section alike without measuring each cell, for tables too big to measure:
a column as wide as a cell showing ``UNIFORM_TEXT``, a row one line high. The model must have
``texts(rows, column)``: the words its cells show.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from PySide6 import QtCore, QtWidgets

Qt = QtCore.Qt
DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
HORIZONTAL = Qt.Orientation.Horizontal
#: The number a "uniform" column is made wide enough for.
UNIFORM_TEXT = "-00.00"


class SectionFitter(QtCore.QObject):
    """Fits ``view``'s sections to their words; see the module's docstring."""

    def __init__(self, view: QtWidgets.QTableView, what: Callable[[], tuple]):
        super().__init__(view)
        self.view = view
        self.what = what
        self._columns: range = range(0)  # the fitted columns
        self._rows = False  # whether the rows are fitted
        self._cells = np.zeros((0, 0), np.int32)  # width of each fitted cell (with its margins): rows x columns
        self._heads: dict[int, int] = {}  # fitted column -> its header's own width
        self._measure = None  # the delegate's measure for the view's font (TextSizeDelegate.measure)
        model = view.model()
        model.modelReset.connect(self.refit)
        model.dataChanged.connect(self._cells_changed)
        model.headerDataChanged.connect(self._headers_changed)
        self.refit()

    def refit(self) -> None:
        """Measure every fitted cell and header again (a new model shape, font or style)."""
        view, model = self.view, self.view.model()
        view.ensurePolished()
        self._measure = view.text_measure()
        columns, rows_fit = self.what()
        self._rows = rows_fit is True
        count = model.columnCount()
        self._columns = range(count) if columns == "all" else range(min(1, count)) if columns == "first" \
            else range(0)
        grid = self._grid()
        horizontal, vertical = view.horizontalHeader(), view.verticalHeader()
        if columns == "uniform":
            horizontal.setDefaultSectionSize(self._measure.width(UNIFORM_TEXT) + grid)
        self._to_default(horizontal, (c for c in range(count) if c not in self._columns))
        if rows_fit == "uniform":
            vertical.setDefaultSectionSize(self._measure.height + grid)
        if not self._rows:
            self._to_default(vertical, range(model.rowCount()))
        rows = model.rowCount()
        self._cells = np.zeros((rows, len(self._columns)), np.int32)
        self._heads = {}
        header = view.horizontalHeader()
        for k, c in enumerate(self._columns):
            self._cells[:, k] = self._widths(range(rows), c)
            self._heads[c] = header.sectionSizeHint(c)
            self._resize_column(c)
        if self._rows:
            for r in range(rows):
                self._resize_row(r)

    @staticmethod
    def _to_default(header: QtWidgets.QHeaderView, sections) -> None:
        """Give ``sections`` of ``header`` its default size (they may keep a size fitted earlier)."""
        size = header.defaultSectionSize()
        for k in sections:
            if header.sectionSize(k) != size:
                header.resizeSection(k, size)

    # ----- what changed ----------------------------------------------------------------------------
    def _cells_changed(self, top_left, bottom_right, roles=()) -> None:
        if roles and DISPLAY not in roles:
            return  # colours only: no word changed
        first = self._columns.start
        columns = range(max(top_left.column(), first), min(bottom_right.column() + 1, self._columns.stop))
        if not columns:
            return
        rows = range(top_left.row(), bottom_right.row() + 1)
        for c in columns:
            self._cells[rows.start:rows.stop, c - first] = self._widths(rows, c)
            self._resize_column(c)

    def _headers_changed(self, orientation, first: int, last: int) -> None:
        if orientation == HORIZONTAL:
            header = self.view.horizontalHeader()
            for c in range(max(first, self._columns.start), min(last + 1, self._columns.stop)):
                self._heads[c] = header.sectionSizeHint(c)
                self._resize_column(c)
        elif self._rows:
            for r in range(first, min(last + 1, self.view.model().rowCount())):
                self._resize_row(r)

    # ----- sizes -----------------------------------------------------------------------------------
    def _widths(self, rows: range, column: int) -> list:
        width = self._measure.width
        return [width(t) for t in self.view.model().texts(rows, column)]

    def _grid(self) -> int:
        return 1 if self.view.showGrid() else 0

    def _resize_column(self, c: int) -> None:
        header = self.view.horizontalHeader()
        cells = self._cells[:, c - self._columns.start]
        widest = int(cells.max()) + self._grid() if len(cells) else 0
        width = max(widest, self._heads[c])
        width = min(max(width, header.minimumSectionSize()), header.maximumSectionSize())
        if header.sectionSize(c) != width:
            header.resizeSection(c, width)

    def _resize_row(self, r: int) -> None:
        header = self.view.verticalHeader()
        cells = self._measure.height + self._grid() if self.view.model().columnCount() else 0
        height = max(cells, header.sectionSizeHint(r))
        height = min(max(height, header.minimumSectionSize()), header.maximumSectionSize())
        if header.sectionSize(r) != height:
            header.resizeSection(r, height)


class WordsHeader(QtWidgets.QHeaderView):
    """Qt's header, whose own size (a column header's height, a row header's width) is measured again only
    when its words, its sections or its font change.

    Qt forgets a header's size at every change of a cell's number too, and measures the words of up to 200
    sections again at the next layout of the table (800 calls an edit for the 384 columns of a trained
    model's token table)."""

    def __init__(self, orientation, parent=None):
        super().__init__(orientation, parent)
        self.setSectionsClickable(True)  # as the headers a QTableView makes for itself
        self.setHighlightSections(True)
        self._hint: QtCore.QSize | None = None
        self.sectionCountChanged.connect(self.forget_size)

    def setModel(self, model):  # noqa: N802 (Qt naming)
        old = self.model()
        if old is not None:
            for signal, slot in ((old.headerDataChanged, self._words_changed), (old.modelReset, self.forget_size),
                                 (old.layoutChanged, self.forget_size)):
                try:
                    signal.disconnect(slot)
                except (RuntimeError, TypeError):
                    pass
        super().setModel(model)
        if model is not None:
            model.headerDataChanged.connect(self._words_changed)
            model.modelReset.connect(self.forget_size)
            model.layoutChanged.connect(self.forget_size)
        self.forget_size()

    def _words_changed(self, orientation, _first: int, _last: int) -> None:
        if orientation == self.orientation():
            self._hint = None

    def forget_size(self, *_args) -> None:
        """Measure the header's own size again when it is next asked for."""
        self._hint = None

    def changeEvent(self, event):  # noqa: N802 (Qt naming)
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange):
            self._hint = None
        super().changeEvent(event)

    def sizeHint(self):  # noqa: N802 (Qt naming)
        if self._hint is None:
            self._hint = super().sizeHint()
        return QtCore.QSize(self._hint)
