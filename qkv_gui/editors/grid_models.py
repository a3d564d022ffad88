"""Qt table models over the Session's numbers: the token table (x) and the weight grids.

Models read the current Scenario and write edits back through the Session,
which validates typed text (``-0.5``, ``\u22120.5``, ``.5``, ``1e-3``). Text that
is not a finite number keeps the old value; the reason is shown at the cell
(``refused``), in its tooltip and on the status line.
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from qkv_engine import fixed

from .. import style
from ..session import Session

Qt = QtCore.Qt
# Roles as plain ints: Qt hands data() an int, and int comparisons are much cheaper than enum ones.
DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
EDIT = int(Qt.ItemDataRole.EditRole.value)
BACKGROUND = int(Qt.ItemDataRole.BackgroundRole.value)
FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
ALIGN = int(Qt.ItemDataRole.TextAlignmentRole.value)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)
RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
GRID_ROLE = {"w_q": "query", "w_k": "key", "w_v": "value", "w_o": "output"}
GRID_SYMBOL = {"w_q": "W^Q", "w_k": "W^K", "w_v": "W^V", "w_o": "W^O"}
OUT_SYMBOL = {"w_q": "q", "w_k": "k", "w_v": "v", "w_o": "out"}
_EMPTY = np.zeros((0, 0))


class _NumberModel(QtCore.QAbstractTableModel):
    """Shared behaviour: show a matrix of the scenario, edit it through the Session."""

    #: Typed text was refused: (row, column, why). The table shows it at the cell.
    refused = QtCore.Signal(int, int, str)
    matrix = "x"
    first_number_column = 0
    decimals = 2

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self._shown = self._matrix()
        self._shape = self._shown.shape
        self._neg_bg = QtGui.QBrush(QtGui.QColor(style.NEGATIVE_BG))
        self._neg_fg = QtGui.QBrush(QtGui.QColor("#A11D1D"))
        self.rejected: dict[tuple[int, int], str] = {}  # cell -> why the last typed text was refused
        session.scenarioChanged.connect(self._on_scenario)

    def _matrix(self):
        a = getattr(self.session.scenario, self.matrix)
        return _EMPTY if a is None else a

    def _on_scenario(self, _scenario):
        new = self._matrix()
        old, self._shown = self._shown, new
        if new is old:
            return
        if new.shape != self._shape:
            self.beginResetModel()
            self._shape = new.shape
            self.rejected.clear()
            self.endResetModel()
            return
        off = self.first_number_column
        if self.text_changed():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1))
            return
        changed = np.argwhere(new != old)
        if len(changed):
            (r0, c0), (r1, c1) = changed.min(axis=0), changed.max(axis=0)
            self.dataChanged.emit(self.index(int(r0), int(c0) + off), self.index(int(r1), int(c1) + off))

    def text_changed(self) -> bool:
        return False

    def rowCount(self, parent=QtCore.QModelIndex()):
        return 0 if parent.isValid() else self._shape[0]

    def columnCount(self, parent=QtCore.QModelIndex()):
        return 0 if parent.isValid() else self._shape[1] + self.first_number_column

    def flags(self, index):
        f = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() >= self.first_number_column:
            f |= Qt.ItemFlag.ItemIsEditable
        return f

    def number_data(self, r: int, c: int, role: int):
        if role not in (DISPLAY, EDIT, BACKGROUND, FOREGROUND, ALIGN, TOOLTIP):
            return None
        value = float(self._shown[r, c])
        if role == DISPLAY:
            return fixed(value, self.decimals) if abs(value) < 1e4 else f"{value:.4g}"
        if role == EDIT:
            return repr(value) if value != round(value, 6) else f"{value:g}"
        if role == BACKGROUND:
            return self._neg_bg if value < 0 else None
        if role == FOREGROUND:
            return self._neg_fg if value < 0 else None
        if role == ALIGN:
            return RIGHT
        if role == TOOLTIP:
            why = self.rejected.get((r, c))
            full = f"{value!r}"
            return f"{full}\nLast entry refused: {why}" if why else full
        return None

    def data(self, index, role=DISPLAY):
        c = index.column() - self.first_number_column
        if c < 0:
            return self.text_data(index.row(), role)
        return self.number_data(index.row(), c, role)

    def text_data(self, r: int, role: int):
        return None

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole):
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        r, c = index.row(), index.column() - self.first_number_column
        if c < 0:
            return False
        messages: list[str] = []
        catch = messages.append
        self.session.message.connect(catch)
        try:
            ok = self.session.set_cell(self.matrix, r, c, value if isinstance(value, str) else float(value))
        finally:
            self.session.message.disconnect(catch)
        if ok:
            self.rejected.pop((r, c), None)
        else:
            self.rejected[(r, c)] = messages[-1] if messages else "not a number"
            self.dataChanged.emit(index, index)  # show the old value (and the tooltip) again
            self.refused.emit(index.row(), index.column(), self.rejected[(r, c)])
        return ok


class TokenTableModel(_NumberModel):
    """One row per token: its text, then its d_model embedding values x1..xd.

    With ``source=True`` it shows the source sentence of cross-attention instead.
    """

    matrix = "x"
    first_number_column = 1

    def __init__(self, session: Session, parent=None, source: bool = False):
        self.matrix = "source_x" if source else "x"
        self._tokens_of = (lambda s: s.source_tokens or ()) if source else (lambda s: s.tokens)
        self._tokens = self._tokens_of(session.scenario)
        super().__init__(session, parent)

    def text_changed(self) -> bool:
        tokens = self._tokens_of(self.session.scenario)
        changed, self._tokens = tokens != self._tokens, tokens
        return changed

    def _on_scenario(self, scenario):
        if self._matrix().shape != self._shape:
            self._tokens = self._tokens_of(scenario)
        super()._on_scenario(scenario)

    def text_data(self, r, role):
        if role in (DISPLAY, EDIT):
            return self._tokens[r]
        if role == TOOLTIP:
            return "Edit the sentence above to change the tokens."
        if role == BACKGROUND:
            return QtGui.QBrush(QtGui.QColor(style.FILL["x"]).lighter(135))
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole:
            if orientation == Qt.Orientation.Horizontal:
                return "token" if section == 0 else f"x{section}"
            return str(section + 1)
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal and section > 0:
            return f"Dial {section} of each token's embedding"
        if role == Qt.ItemDataRole.ForegroundRole and orientation == Qt.Orientation.Horizontal:
            return QtGui.QBrush(QtGui.QColor(style.INK["x"]))
        return None


class WeightGridModel(_NumberModel):
    """A weight grid: row r is input dial x_r, column c feeds output coordinate c."""

    def __init__(self, session: Session, matrix: str, parent=None):
        self.matrix = matrix
        self._split = (session.scenario.n_heads, session.scenario.d_k, session.scenario.d_v)
        super().__init__(session, parent)

    def _on_scenario(self, scenario):
        super()._on_scenario(scenario)
        split = (scenario.n_heads, scenario.d_k, scenario.d_v)
        if split != self._split:  # the same shape can split into heads differently: rename the headers
            self._split = split
            if self.columnCount():
                self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self.columnCount() - 1)
            if self.rowCount():
                self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, self.rowCount() - 1)

    def _column_name(self, c: int) -> str:
        """'q2', or 'h2·q1' (head 2's first coordinate) when there are several heads."""
        s = self.session.scenario
        sym = OUT_SYMBOL[self.matrix]
        if self.matrix == "w_o" or s.n_heads == 1:
            return f"{sym}{c + 1}"
        d = s.d_v if self.matrix == "w_v" else s.d_k
        return f"h{c // d + 1}\u00b7{sym}{c % d + 1}"

    def _row_name(self, r: int) -> str:
        if self.matrix != "w_o":
            return f"x{r + 1}"
        s = self.session.scenario
        return f"h{r // s.d_v + 1}\u00b7v{r % s.d_v + 1}"

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        role_name = GRID_ROLE[self.matrix]
        if role == Qt.ItemDataRole.DisplayRole:
            if orientation == Qt.Orientation.Horizontal:
                return f"\u2192 {self._column_name(section)}"
            return f"{self._row_name(section)} \u2192"
        if role == Qt.ItemDataRole.ToolTipRole:
            if orientation == Qt.Orientation.Horizontal:
                return f"Column {section + 1} makes {role_name} coordinate {self._column_name(section)}"
            if self.matrix == "w_o":
                return f"Row {section + 1} is how much {self._row_name(section)} (a head's output) feeds each final output"
            return f"Row {section + 1} is how much input dial x{section + 1} feeds each output"
        if role == Qt.ItemDataRole.ForegroundRole:
            ink = (style.INK["value"] if self.matrix == "w_o" else style.INK["x"]) \
                if orientation == Qt.Orientation.Vertical else style.INK[role_name]
            return QtGui.QBrush(QtGui.QColor(ink))
        return None
