"""Qt table models over the Session's numbers: the token table (x) and the weight grids.

Models read the current Scenario and write edits back through the Session,
which validates typed text (``-0.5``, ``\u22120.5``, ``.5``, ``1e-3``). Text that
is not a finite number keeps the old value; the reason is shown at the cell
(``refused``), in its tooltip and on the status line.

Headers carry the scenario's names ("x3 · animate", "q1 · looks for animate"; see
``qkv_engine.feature_names``); ``name_target`` says which header section shows which name, so that
``HeaderNameEditor`` can rename it in place. ``BiasRowModel`` is the one-row grid of a bias (b^Q, b^K, b^V).

Colours (negative cells, the token column, the headers' role inks) come from the palette in use; a new
palette repaints the cells and headers (``colours.hub().changed``).
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from qkv_engine import feature_names, fixed

from ..look import colours, style
from ..state.session import Session

Qt = QtCore.Qt
# Roles as plain ints: Qt hands data() an int, and int comparisons are much cheaper than enum ones.
DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
EDIT = int(Qt.ItemDataRole.EditRole.value)
BACKGROUND = int(Qt.ItemDataRole.BackgroundRole.value)
FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
ALIGN = int(Qt.ItemDataRole.TextAlignmentRole.value)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)
#: A cell's flags, made once (the views ask for them for every cell they paint; a Python enum's "|" is slow)
_TEXT_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_NUMBER_FLAGS = _TEXT_FLAGS | Qt.ItemFlag.ItemIsEditable
RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
GRID_ROLE = {"w_q": "query", "w_k": "key", "w_v": "value", "w_o": "output"}
GRID_SYMBOL = {"w_q": "W^Q", "w_k": "W^K", "w_v": "W^V", "w_o": "W^O"}
OUT_SYMBOL = {"w_q": "q", "w_k": "k", "w_v": "v", "w_o": "out"}
BIAS_SYMBOL = {"b_q": "b^Q", "b_k": "b^K", "b_v": "b^V"}
BIAS_KIND = {"b_q": "q", "b_k": "k", "b_v": "v"}
HORIZONTAL = Qt.Orientation.Horizontal
VERTICAL = Qt.Orientation.Vertical
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
        #: The scenario the model shows now: headers read it, never ``session.scenario``, which may be a
        #: newer one of another shape while the views are still being told (mid-reset).
        self.scenario = session.scenario
        self._shown = self._matrix()
        self._shape = self._shown.shape
        self._names = self._header_names(session.scenario)
        self._brushes(style.current())
        self.rejected: dict[tuple[int, int], str] = {}  # cell -> why the last typed text was refused
        session.scenarioChanged.connect(self._on_scenario)
        colours.hub().changed.connect(self._on_palette)

    def _brushes(self, p: style.Palette) -> None:
        self._neg_bg = QtGui.QBrush(QtGui.QColor(p.negative_bg))
        self._neg_fg = QtGui.QBrush(QtGui.QColor(p.negative_ink))

    def _on_palette(self, p: style.Palette) -> None:
        """A new palette: every cell and header is drawn again in its colours."""
        self._brushes(p)
        rows, cols = self.rowCount(), self.columnCount()
        if rows and cols:
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, cols - 1), [BACKGROUND, FOREGROUND])
        for orientation, count in ((HORIZONTAL, cols), (VERTICAL, rows)):
            if count:
                self.headerDataChanged.emit(orientation, 0, count - 1)

    def _matrix(self):
        a = getattr(self.session.scenario, self.matrix)
        return _EMPTY if a is None else a

    def _on_scenario(self, scenario):
        new = self._matrix()
        old, self._shown = self._shown, new
        names = self._header_names(scenario)
        if new.shape != self._shape:
            self.beginResetModel()
            self.scenario, self._shape, self._names = scenario, new.shape, names
            self.rejected.clear()
            self.endResetModel()
            return
        self.scenario = scenario
        if names != self._names:
            self._names = names
            for orientation, count in ((HORIZONTAL, self.columnCount()), (VERTICAL, self.rowCount())):
                if count:
                    self.headerDataChanged.emit(orientation, 0, count - 1)
        rows = self.text_rows_changed()
        if new is not old:
            cells = np.argwhere(new != old)
            cells[:, 1] += self.first_number_column
            if len(rows):
                cells = np.concatenate([np.column_stack([rows, np.zeros_like(rows)]), cells])
        elif len(rows):
            cells = np.column_stack([rows, np.zeros_like(rows)])
        else:
            return
        self._cells_changed(cells)

    #: Up to this many changed cells are told one by one (each view repaints those cells only); more, as
    #: the one rectangle around them.
    CELLS_ONE_BY_ONE = 16

    def _cells_changed(self, cells: np.ndarray) -> None:
        """Tell the views which cells (rows of ``(row, column)``, view columns) show a new value."""
        if not len(cells):
            return
        if len(cells) <= self.CELLS_ONE_BY_ONE:
            for r, c in cells.tolist():
                index = self.index(r, c)
                self.dataChanged.emit(index, index)
            return
        (r0, c0), (r1, c1) = cells.min(axis=0).tolist(), cells.max(axis=0).tolist()
        self.dataChanged.emit(self.index(r0, c0), self.index(r1, c1))

    def text_rows_changed(self) -> np.ndarray:
        """The rows whose words in the first column changed with the new scenario (none: no such column)."""
        return np.zeros(0, np.int64)

    def number_text(self, value: float) -> str:
        """A number as a cell shows it."""
        return fixed(value, self.decimals) if abs(value) < 1e4 else f"{value:.4g}"

    def texts(self, rows: range, column: int) -> list:
        """The words the cells of ``rows`` in ``column`` (as the view counts columns) show."""
        c = column - self.first_number_column
        if c < 0:
            return [self.text_data(r, DISPLAY) for r in rows]
        text = self.number_text
        return [text(v) for v in self._shown[rows.start:rows.stop, c].tolist()]

    # ----- names in the headers (renamed in place by HeaderNameEditor) ---------------------------------
    #: orientation -> the kind of name its header sections show ("x", "q", ...), or None
    name_kinds: dict = {}

    def _header_names(self, scenario) -> tuple:
        return tuple(feature_names.names(scenario, k) for k in self.name_kinds.values() if k)

    def name_target(self, orientation, section: int):
        """``(kind, index)`` of the name that header ``section`` shows, e.g. ("x", 2), or None."""
        kind = self.name_kinds.get(orientation)
        index = section - (self.first_number_column if orientation == HORIZONTAL else 0)
        if kind is None or index < 0 or index >= len(feature_names.names(self.scenario, kind)):
            return None
        return kind, index

    def name_of(self, kind: str, index: int) -> str:
        """The name given now ("" when none)."""
        return feature_names.name(self.scenario, kind, index)

    def rowCount(self, parent=QtCore.QModelIndex()):
        return 0 if parent.isValid() else self._shape[0]

    def columnCount(self, parent=QtCore.QModelIndex()):
        return 0 if parent.isValid() else self._shape[1] + self.first_number_column

    def flags(self, index):
        return _NUMBER_FLAGS if index.column() >= self.first_number_column else _TEXT_FLAGS

    def number_data(self, r: int, c: int, role: int):
        if role not in (DISPLAY, EDIT, BACKGROUND, FOREGROUND, ALIGN, TOOLTIP):
            return None
        value = float(self._shown[r, c])
        if role == DISPLAY:
            return self.number_text(value)
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
            self.rejected[(r, c)] = next((m for m in reversed(messages) if m), "not a number")  # "": a note cleared
            self.dataChanged.emit(index, index)  # show the old value (and the tooltip) again
            self.refused.emit(index.row(), index.column(), self.rejected[(r, c)])
        return ok


def x_caption(session: Session) -> str:
    """What x is when a Llama-family model (Llama, Qwen2) is open: the RMSNorm output entering the layer shown;
    "" otherwise (the hand-made x is the token's own numbers)."""
    doc = session.model_doc
    if doc is None or doc.model.info.family != "llama":
        return ""
    return (f"x = the token's numbers after RMSNorm (input_layernorm) entering layer {session.model_layer + 1}")


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

    def text_rows_changed(self) -> np.ndarray:
        tokens = self._tokens_of(self.session.scenario)
        old, self._tokens = self._tokens, tokens
        if tokens == old:
            return np.zeros(0, np.int64)
        if self.scenario.d_model >= self.WIDE and self.rowCount():
            self.headerDataChanged.emit(VERTICAL, 0, self.rowCount() - 1)  # the rows name their tokens
        return np.array([r for r, (a, b) in enumerate(zip(tokens, old)) if a != b], np.int64)

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
            return QtGui.QBrush(QtGui.QColor(style.current().token_bg))
        return None

    name_kinds = {HORIZONTAL: "x"}
    #: From this many dials on, a row's header names its token too (the token column scrolls away).
    WIDE = 16

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        s = self.scenario
        if role == DISPLAY:
            if orientation == Qt.Orientation.Horizontal:
                return "token" if section == 0 else feature_names.header(s, "x", section - 1)
            if s.d_model >= self.WIDE and section < len(self._tokens):
                return f"{section + 1} {self._tokens[section]}"
            return str(section + 1)
        if role == TOOLTIP and orientation == Qt.Orientation.Horizontal and section > 0:
            given = feature_names.name(s, "x", section - 1)
            what = f": {given}" if given else ""
            said = x_caption(self.session)
            if said:
                return f"Dial {section} of {said}{what}. Double-click to name it."
            return f"Dial {section} of each token's embedding{what}. Double-click to name it."
        if role == FOREGROUND and orientation == Qt.Orientation.Horizontal:
            return QtGui.QBrush(QtGui.QColor(style.current().ink["x"]))
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

    @property
    def name_kinds(self) -> dict:
        if self.matrix == "w_o":
            return {VERTICAL: "v"}  # rows: every head's value coordinates
        return {VERTICAL: "x", HORIZONTAL: OUT_SYMBOL[self.matrix]}

    def _column_name(self, c: int, named: bool = False) -> str:
        """'q2', or 'h2·q1' (head 2's first coordinate) when there are several heads; ``named``:
        with its name, 'q2 · looks for a noun'."""
        s = self.scenario
        if self.matrix == "w_o":
            return f"out{c + 1}"
        kind = OUT_SYMBOL[self.matrix]
        return (feature_names.header if named else feature_names.symbol)(s, kind, c)

    def _row_name(self, r: int, named: bool = False) -> str:
        s = self.scenario
        kind = "v" if self.matrix == "w_o" else "x"
        return (feature_names.header if named else feature_names.symbol)(s, kind, r)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        role_name = GRID_ROLE[self.matrix]
        if role == DISPLAY:
            if orientation == Qt.Orientation.Horizontal:  # a name goes on a second line: narrower columns
                given = "" if self.matrix == "w_o" else feature_names.name(self.scenario,
                                                                           OUT_SYMBOL[self.matrix], section)
                return f"\u2192 {self._column_name(section)}" + (f" \u00b7\n{given}" if given else "")
            return f"{self._row_name(section, named=True)} \u2192"
        if role == TOOLTIP:
            rename = " Double-click to name it."
            if orientation == Qt.Orientation.Horizontal:
                return (f"Column {section + 1} makes {role_name} coordinate {self._column_name(section, named=True)}."
                        + ("" if self.matrix == "w_o" else rename))
            if self.matrix == "w_o":
                return (f"Row {section + 1} is how much {self._row_name(section, named=True)} (a head's output) "
                        f"feeds each final output.{rename}")
            return (f"Row {section + 1} is how much input dial {self._row_name(section, named=True)} feeds each "
                    f"output.{rename}")
        if role == FOREGROUND:
            inks = style.current().ink
            ink = (inks["value"] if self.matrix == "w_o" else inks["x"]) \
                if orientation == Qt.Orientation.Vertical else inks[role_name]
            return QtGui.QBrush(QtGui.QColor(ink))
        return None


class BiasRowModel(_NumberModel):
    """A bias as a grid of one row (b^Q, b^K or b^V): added to every token's q, k or v."""

    def __init__(self, session: Session, matrix: str, parent=None):
        self.matrix = matrix
        self._bias, self._row = None, _EMPTY  # the bias shown, and it as a row
        super().__init__(session, parent)

    def _matrix(self):
        bias = getattr(self.session.scenario, self.matrix)
        if bias is not self._bias:  # the same bias keeps its row: nothing to compare
            self._bias, self._row = bias, np.asarray(bias).reshape(1, -1)
        return self._row

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        kind = BIAS_KIND[self.matrix]
        if role == DISPLAY:
            return f"{BIAS_SYMBOL[self.matrix]} +" if orientation == VERTICAL \
                else f"\u2192 {feature_names.symbol(self.scenario, kind, section)}"
        if role == TOOLTIP and orientation == VERTICAL:
            return (f"The bias {BIAS_SYMBOL[self.matrix]}: added to every token's {GRID_ROLE['w_' + kind]} "
                    f"after the grid ({kind} = x W + {BIAS_SYMBOL[self.matrix]})")
        if role == FOREGROUND:
            return QtGui.QBrush(QtGui.QColor(style.current().ink[GRID_ROLE["w_" + kind]]))
        return None
