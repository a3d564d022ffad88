"""A compact table of numbers whose refused entries are reported at their cell (``CellNote``), whose
cells are measured from their words alone (``TextSizeDelegate``, ``TextMeasure``), and whose sections
can be fitted to their words without measuring every cell at each edit (``fit_sections``)."""
from __future__ import annotations

import math

from PySide6 import QtCore, QtGui, QtWidgets

from ..look import colours
from .section_fit import SectionFitter, WordsHeader

Qt = QtCore.Qt

DISPLAY = int(QtCore.Qt.ItemDataRole.DisplayRole.value)


class CellNote(QtWidgets.QLabel):
    """A short note laid over a table, just under one cell (why typed text was refused). It is in no
    layout, so nothing moves when it shows; it goes after a few seconds, or at the next click or scroll."""

    SHOWN_MS = 8000

    def __init__(self, view: QtWidgets.QTableView):
        super().__init__(view)
        self.view = view
        self.setObjectName("cellNote")
        self.setWordWrap(True)
        colours.sheet(self, "background: $error_bg; color: $error_ink; border: 1px solid $error_ink; "
                            "border-radius: 3px; padding: 2px 4px;")
        self.timer = QtCore.QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.hide)
        view.verticalScrollBar().valueChanged.connect(self.hide)
        view.horizontalScrollBar().valueChanged.connect(self.hide)
        view.pressed.connect(self.hide)
        self.hide()

    def show_at(self, index: QtCore.QModelIndex, text: str) -> None:
        cell = self.view.visualRect(index)
        if not cell.isValid():
            return
        self.setText(text)
        corner = self.view.viewport().mapTo(self.view, cell.bottomLeft())
        width = min(max(cell.width() * 3, 220), self.view.width() - 4)
        self.setFixedWidth(max(60, width))
        height = self.heightForWidth(self.width())
        x = max(2, min(corner.x(), self.view.width() - self.width() - 2))
        y = corner.y() + 1
        if y + height > self.view.height():  # no room under the cell: above it
            y = max(0, corner.y() - cell.height() - height - 1)
        self.setGeometry(x, y, self.width(), height)
        self.show()
        self.raise_()
        self.timer.start(self.SHOWN_MS)


class TextMeasure:
    """How wide a cell is for its words in one font: the text's width plus the margins Qt's style gives a
    cell of plain text; ``height``: a cell's height (one line). Each text is measured once."""

    #: Past this many texts kept, the kept widths are dropped and measured again as they come.
    KEEP = 50_000

    def __init__(self, font: QtGui.QFont, margin: int, height: int):
        self.metrics = QtGui.QFontMetricsF(font)
        self.margin, self.height = margin, height
        self._widths: dict[str, int] = {}

    def text_width(self, text: str) -> int:
        """The width of ``text`` alone, in whole pixels (rounded up)."""
        return math.ceil(self.metrics.horizontalAdvance(text))

    def width(self, text) -> int:
        """The width of a cell showing ``text``."""
        w = self._widths.get(text)
        if w is None:
            if len(self._widths) >= self.KEEP:
                self._widths.clear()
            w = self._widths[text] = self.text_width("" if text is None else str(text)) + self.margin
        return w


class TextSizeDelegate(QtWidgets.QStyledItemDelegate):
    """Qt's own delegate, but a cell's size comes from its words alone: the width of its text plus the
    margins Qt's style gives a cell of plain text (measured once per font), the height of one line.

    Qt's delegate asks the model for seven kinds of data per cell to measure it, this one for the words only
    (the cells hold plain text: no icons, check boxes or fonts of their own). ``SectionFitter`` measures
    with the same ``TextMeasure``."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._measures: dict[str, TextMeasure] = {}  # font key -> its measure

    def measure(self, option, index) -> TextMeasure:
        """The measure for ``option``'s font (Qt's own answer for one cell, once per font: the margins)."""
        key = option.font.key()
        known = self._measures.get(key)
        if known is None:
            text = index.model().data(index, DISPLAY) if index.isValid() else None
            text = "" if text is None else str(text)
            size = super().sizeHint(option, index)
            known = TextMeasure(option.font, 0, size.height())
            known.margin = size.width() - known.text_width(text)
            self._measures[key] = known
        return known

    def sizeHint(self, option, index):  # noqa: N802 (Qt naming)
        measure = self.measure(option, index)
        return QtCore.QSize(measure.width(index.model().data(index, DISPLAY)), measure.height)


class NumberTableView(QtWidgets.QTableView):
    """A compact table of numbers; a refused entry is reported at its cell."""

    def __init__(self, model, object_name: str, parent=None):
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setHorizontalHeader(WordsHeader(Qt.Orientation.Horizontal, self))
        self.setVerticalHeader(WordsHeader(Qt.Orientation.Vertical, self))
        self.setModel(model)
        self.delegate = TextSizeDelegate(self)
        self.setItemDelegate(self.delegate)
        self.fitter: SectionFitter | None = None
        self.note = CellNote(self)
        model.refused.connect(lambda r, c, why: self.note.show_at(self.model().index(r, c), why))
        model.modelReset.connect(self.note.hide)
        model.dataChanged.connect(self.note.hide)  # a new value (a refused one shows its note after this)

    def fit_sections(self, what) -> SectionFitter:
        """Fit the columns (and rows) ``what()`` names to their words from now on (``SectionFitter``); the
        sections it fits should be in the Fixed or Interactive mode, not ResizeToContents."""
        self.fitter = SectionFitter(self, what)
        return self.fitter

    def text_measure(self) -> TextMeasure:
        """The measure of a cell's words in this table's font."""
        option = QtWidgets.QStyleOptionViewItem()
        self.initViewItemOption(option)
        return self.delegate.measure(option, self.model().index(0, 0))

    def changeEvent(self, event):  # noqa: N802 (Qt naming)
        super().changeEvent(event)
        if self.fitter is not None and event.type() in (QtCore.QEvent.Type.FontChange,
                                                        QtCore.QEvent.Type.StyleChange):
            self.fitter.refit()

    def fit_height(self, max_rows: int | None = None) -> None:
        rows = self.model().rowCount()
        if max_rows is not None:
            rows = min(rows, max_rows)
        h = self.horizontalHeader().height() + rows * self.verticalHeader().defaultSectionSize() + 4
        self.setMinimumHeight(h)
        self.setMaximumHeight(h)
