"""A compact table of numbers whose refused entries are reported at their cell (``CellNote``), and whose
cells are measured from their words alone (``TextSizeDelegate``)."""
from __future__ import annotations

import math

from PySide6 import QtCore, QtGui, QtWidgets

from .. import colours

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


class TextSizeDelegate(QtWidgets.QStyledItemDelegate):
    """Qt's own delegate, but a cell's size comes from its words alone: the width of its text plus the
    margins Qt's style gives a cell of plain text (measured once per font), the height of one line.

    Columns and rows fitted to their contents measure every cell after each edit; Qt's delegate asks the
    model for seven kinds of data per cell to do so, this one for the words only (the cells hold plain text:
    no icons, check boxes or fonts of their own)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._margins: dict = {}  # font key -> (its metrics, the width a cell adds to its text, a cell's height)

    def sizeHint(self, option, index):  # noqa: N802 (Qt naming)
        text = index.model().data(index, DISPLAY)
        text = "" if text is None else str(text)
        key = option.font.key()
        known = self._margins.get(key)
        if known is None:  # Qt's own answer for this font, once: what it adds to a text's width
            metrics = QtGui.QFontMetricsF(option.font)
            size = super().sizeHint(option, index)
            known = self._margins[key] = (metrics, size.width() - math.ceil(metrics.horizontalAdvance(text)),
                                          size.height())
        metrics, margin, height = known
        return QtCore.QSize(math.ceil(metrics.horizontalAdvance(text)) + margin, height)


class NumberTableView(QtWidgets.QTableView):
    """A compact table of numbers; a refused entry is reported at its cell."""

    def __init__(self, model, object_name: str, parent=None):
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setModel(model)
        self.setItemDelegate(TextSizeDelegate(self))
        self.note = CellNote(self)
        model.refused.connect(lambda r, c, why: self.note.show_at(self.model().index(r, c), why))
        model.modelReset.connect(self.note.hide)
        model.dataChanged.connect(self.note.hide)  # a new value (a refused one shows its note after this)

    def fit_height(self, max_rows: int | None = None) -> None:
        rows = self.model().rowCount()
        if max_rows is not None:
            rows = min(rows, max_rows)
        h = self.horizontalHeader().height() + rows * self.verticalHeader().defaultSectionSize() + 4
        self.setMinimumHeight(h)
        self.setMaximumHeight(h)
