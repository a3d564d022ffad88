"""The weight grids W^Q, W^K, W^V (and W^O with several heads), each with its bias row, and a way
around big grids.

    grids = WeightGridsWidget(session)
    grids.views["w_q"], grids.bias_views["b_q"]
    grids.go_to_row(16)              # every grid shows row x17 at the top, selected

Each grid's row and column headers carry the scenario's names ("x3 · animate →", "→ q1 · looks for
animate"); double-click one to rename it (``HeaderNameEditor``). Under W^Q, W^K and W^V a one-row grid
shows the bias b^Q, b^K, b^V (q = x W^Q + b^Q), editable like the grid. The bias rows show when a bias
is not zero or a trained model is open (its heads have biases); a hand-made example without biases
keeps the lesson's q = x W^Q.

A trained model's grids are big (384 rows, 32 columns): the columns get a fixed width, the rows a fixed
height, every grid scrolls, and a bar above them jumps to a row: by number, or to one of the selected
token's largest dials (where its x is furthest from 0, so its rows of the grids matter most).
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from qkv_engine import explain, feature_names

from ..look import colours, style
from ..drawing.token_labels import short_token
from ..labels.changed_text import set_tooltip
from ..state.session import Session
from .grid_models import BIAS_SYMBOL, GRID_ROLE, GRID_SYMBOL, OUT_SYMBOL, BiasRowModel, WeightGridModel
from .header_names import HeaderNameEditor
from .number_table import NumberTableView

Qt = QtCore.Qt
#: From this many rows (d_model) on, a grid is big: fixed sizes and the "go to row" bar.
BIG_ROWS = 16
#: How many of the selected token's largest dials the bar offers.
LARGEST_DIALS = 3
GRIDS = {"w_q": "weightsQ", "w_k": "weightsK", "w_v": "weightsV", "w_o": "weightsO"}
BIASES = {"w_q": "b_q", "w_k": "b_k", "w_v": "b_v"}
WORDS = {"w_q": "query", "w_k": "key", "w_v": "value"}


class BiasRowView(NumberTableView):
    """A bias under its grid: the same columns (widths and horizontal scroll follow the grid), no column
    header. While it shows, the scroll bar moves from under the grid to under the bias row, so that the
    row sits right under the grid's rows."""

    def __init__(self, model: BiasRowModel, object_name: str, grid: NumberTableView, parent=None):
        super().__init__(model, object_name, parent)
        self.grid = grid
        self.horizontalHeader().hide()
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Fixed)
        grid.horizontalScrollBar().valueChanged.connect(self.horizontalScrollBar().setValue)
        self.horizontalScrollBar().valueChanged.connect(grid.horizontalScrollBar().setValue)
        grid.horizontalHeader().sectionResized.connect(self._column_resized)
        self._fit(False)

    def _column_resized(self, column: int, _old: int, new: int) -> None:
        self.setColumnWidth(column, new)
        self._fit(self.isVisible())

    def _fit(self, shown: bool) -> None:
        """The scroll bar under the bias row (when the columns do not all fit), not under the grid."""
        Policy = Qt.ScrollBarPolicy
        wide = self.grid.horizontalHeader().length() > self.grid.viewport().width()
        self.grid.setHorizontalScrollBarPolicy(Policy.ScrollBarAlwaysOff if shown else Policy.ScrollBarAsNeeded)
        self.setHorizontalScrollBarPolicy(Policy.ScrollBarAlwaysOn if shown and wide else Policy.ScrollBarAlwaysOff)
        bar = self.horizontalScrollBar().sizeHint().height() if shown and wide else 0
        self.setFixedHeight(self.verticalHeader().defaultSectionSize() + 2 * self.frameWidth() + bar)

    def show_under_grid(self, shown: bool) -> None:
        """Show (and line up with the grid) or hide the bias row."""
        self.setVisible(shown)
        if shown:
            self.align()
        self._fit(shown)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if self.isVisible():
            self._fit(True)

    def align(self) -> None:
        """Columns as wide as the grid's; both row headers as wide as the wider of the two."""
        grid = self.grid
        for c in range(self.model().columnCount()):
            if c < grid.model().columnCount() and self.columnWidth(c) != grid.columnWidth(c):
                self.setColumnWidth(c, grid.columnWidth(c))
        for header in (grid.verticalHeader(), self.verticalHeader()):
            header.setMinimumWidth(0)
            header.setMaximumWidth(QWIDGETSIZE_MAX)
        width = max(grid.verticalHeader().sizeHint().width(), self.verticalHeader().sizeHint().width())
        for header in (grid.verticalHeader(), self.verticalHeader()):
            header.setFixedWidth(width)
        self.horizontalScrollBar().setValue(grid.horizontalScrollBar().value())


QWIDGETSIZE_MAX = (1 << 24) - 1


class RowJumpBar(QtWidgets.QWidget):
    """Go to a row of the grids: a row number, or one of the selected token's largest dials."""

    def __init__(self, session: Session, jump, parent=None):
        super().__init__(parent)
        self.session = session
        self.jump = jump
        # two short lines, so that the bar never makes the docks on the left wider than they are
        lines = QtWidgets.QVBoxLayout(self)
        lines.setContentsMargins(0, 0, 0, 0)
        lines.setSpacing(0)
        lay = QtWidgets.QHBoxLayout()
        lay.setSpacing(4)
        lines.addLayout(lay)
        lay.addWidget(QtWidgets.QLabel("Go to row x", self))
        self.rowSpin = QtWidgets.QSpinBox(self)
        self.rowSpin.setObjectName("gridRowSpin")
        self.rowSpin.setKeyboardTracking(False)
        self.rowSpin.setToolTip("Show this row (input dial) at the top of every grid")
        self.rowSpin.valueChanged.connect(lambda v: self.jump(v - 1))
        lay.addWidget(self.rowSpin)
        lay.addStretch(1)
        lay = QtWidgets.QHBoxLayout()
        lay.setSpacing(4)
        lines.addLayout(lay)
        self.largestLabel = QtWidgets.QLabel(self)
        self.largestLabel.setTextFormat(QtCore.Qt.TextFormat.PlainText)  # a token such as <s> is text, not a tag
        lay.addWidget(self.largestLabel)
        self.dialButtons: list[QtWidgets.QToolButton] = []
        for k in range(LARGEST_DIALS):
            b = QtWidgets.QToolButton(self)
            b.setObjectName(f"gridLargestDial{k + 1}")
            b.setAutoRaise(True)
            b.clicked.connect(lambda _=False, k=k: self._dial_clicked(k))
            lay.addWidget(b)
            self.dialButtons.append(b)
        lay.addStretch(1)
        self._dials: list[int] = []
        session.selectionChanged.connect(lambda _s: self.follow())
        session.scenarioChanged.connect(lambda _s: self.follow())

    def _dial_clicked(self, k: int) -> None:
        if k < len(self._dials):
            self.rowSpin.blockSignals(True)
            self.rowSpin.setValue(self._dials[k] + 1)
            self.rowSpin.blockSignals(False)
            self.jump(self._dials[k])

    def follow(self) -> None:
        """The row range and the selected token's largest dials, from the Session."""
        s = self.session.scenario
        self.rowSpin.blockSignals(True)
        self.rowSpin.setRange(1, max(1, s.d_model))
        self.rowSpin.blockSignals(False)
        i = self.session.selection.query
        if not (self.isVisibleTo(self.parentWidget()) and 0 <= i < s.n):
            self._dials = []
        else:
            row = s.x[i]
            keep, _rest = explain.largest(row, LARGEST_DIALS)
            self._dials = sorted(keep, key=lambda d: -abs(float(row[d])))
            self.largestLabel.setText(f"'{short_token(s.tokens[i], 8)}' is largest at")
        self.largestLabel.setVisible(bool(self._dials))
        for k, b in enumerate(self.dialButtons):
            if k < len(self._dials):
                d = self._dials[k]
                b.setText(feature_names.symbol(s, 'x', d))
                set_tooltip(b, f"Go to row {feature_names.header(s, 'x', d)}: "
                               f"'{s.tokens[i]}' has {explain.fixed(float(s.x[i, d]), 2)} there")
            b.setVisible(k < len(self._dials))


class WeightGridsWidget(QtWidgets.QWidget):
    """The three grids W^Q, W^K, W^V, each titled in its role's colour, with their bias rows."""

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 6)
        self.models: dict[str, WeightGridModel] = {}
        self.views: dict[str, NumberTableView] = {}
        self.bias_models: dict[str, BiasRowModel] = {}
        self.bias_views: dict[str, BiasRowView] = {}
        self.titles: dict[str, QtWidgets.QLabel] = {}
        self.namers: dict[str, HeaderNameEditor] = {}
        self.jumpBar = RowJumpBar(session, self.go_to_row, self)
        self.jumpBar.setObjectName("gridJumpBar")
        layout.addWidget(self.jumpBar)
        for matrix, obj in GRIDS.items():
            title = QtWidgets.QLabel(self.title_html(matrix), self)
            title.setWordWrap(True)
            model = WeightGridModel(session, matrix, self)
            view = NumberTableView(model, obj, self)
            view.fit_sections(lambda model=model: ("uniform", "uniform") if self.big(model.scenario) else ("all", True))
            self.models[matrix], self.views[matrix], self.titles[matrix] = model, view, title
            self.namers[matrix] = HeaderNameEditor(view)
            layout.addWidget(title)
            layout.addWidget(view, 1)
            if matrix in BIASES:
                bias = BIASES[matrix]
                bias_model = BiasRowModel(session, bias, self)
                bias_view = BiasRowView(bias_model, "bias" + obj[len("weights"):], view, self)
                bias_view.setToolTip(f"The bias {BIAS_SYMBOL[bias]}: added to every token's "
                                     f"{OUT_SYMBOL[matrix]} after the grid")
                self.bias_models[bias], self.bias_views[bias] = bias_model, bias_view
                layout.addWidget(bias_view)
        layout.addStretch(0)  # what small grids leave over goes under the last one, not between them
        colours.hub().changed.connect(self._palette_changed)
        self._big = None
        self._shape = None  # what the grids' heights were last fitted to: the sizes, W^O, the bias rows
        self._fit_timer = QtCore.QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(0)
        self._fit_timer.timeout.connect(self._fit_heights)
        session.scenarioChanged.connect(self._follow)
        session.modelChanged.connect(lambda _doc: self._follow(session.scenario))
        self._follow(session.scenario)

    @staticmethod
    def title_html(matrix: str, palette: style.Palette | None = None) -> str:
        """A grid's title: its symbol in its role's ink (of ``palette``, default: the one in use), and what it
        does."""
        ink = (palette or style.current()).ink[GRID_ROLE[matrix]]
        if matrix == "w_o":
            return (f"<b style='color:{ink}'>W^O</b>: mixes the heads' outputs (rows: every "
                    f"head's v coordinates side by side) into the final output (columns)")
        return (f"<b style='color:{ink}'>{GRID_SYMBOL[matrix]}</b>: each x dial (row) "
                f"feeds each {WORDS[matrix]} coordinate {OUT_SYMBOL[matrix]}1, {OUT_SYMBOL[matrix]}2, ... "
                f"(column)")

    def _palette_changed(self, palette) -> None:
        for matrix, title in self.titles.items():
            title.setText(self.title_html(matrix, palette))

    def biases_shown(self) -> bool:
        """Bias rows show when a bias is not zero, or a trained model is open."""
        return self.session.scenario.has_bias or self.session.model_doc is not None

    def _follow(self, s) -> None:
        shape = (s.d_model, s.d_k, s.d_v, s.w_o is not None, self.biases_shown())
        if shape == self._shape:
            return  # new numbers in grids of the same size: their heights stay as they are
        self._shape = shape
        has_o = s.w_o is not None
        self.titles["w_o"].setVisible(has_o)
        self.views["w_o"].setVisible(has_o)
        big = self.big(s)
        if big != self._big:
            self._big = big
            self._set_big(big)
        self.jumpBar.setVisible(big)
        self.jumpBar.follow()
        for view in self.views.values():
            # Room for a few rows each; the dock scrolls when the grids do not all fit.
            rows = min(view.model().rowCount(), 5)
            view.setMinimumHeight(view.horizontalHeader().sizeHint().height() + rows * 22 + 6
                                  + view.horizontalScrollBar().sizeHint().height())
        shown = self.biases_shown()
        for bias_view in self.bias_views.values():
            bias_view.show_under_grid(shown)
        self._fit_timer.start()  # once the rows have their heights

    @staticmethod
    def big(s) -> bool:
        """Big grids (a trained model's): fixed sizes, and the bar that goes to a row."""
        return s.d_model >= BIG_ROWS

    def _fit_heights(self) -> None:
        """A small grid is never taller than its rows (its bias row then sits right under them); a big one
        takes the room there is and scrolls."""
        for view in self.views.values():
            if self._big or not view.isVisibleTo(self):
                view.setMaximumHeight(QWIDGETSIZE_MAX)
                continue
            bar = view.horizontalScrollBar()
            bar_height = bar.sizeHint().height() \
                if view.horizontalScrollBarPolicy() != Qt.ScrollBarPolicy.ScrollBarAlwaysOff \
                and view.horizontalHeader().length() > view.viewport().width() else 0
            rows = view.horizontalHeader().sizeHint().height() + view.verticalHeader().length()
            height = rows + 2 * view.frameWidth() + bar_height + 2
            if view.model().rowCount() <= 5:
                view.setMinimumHeight(height)  # every row shows: no more room than they take
            view.setMaximumHeight(max(view.minimumHeight(), height))

    def _set_big(self, big: bool) -> None:
        """Big grids: columns and rows all alike (as wide as a number needs, a line high);
        small ones fit their words (a long name widens its column), each fitted by the view's fitter."""
        Mode = QtWidgets.QHeaderView.ResizeMode
        for view in self.views.values():
            rows, cols = view.verticalHeader(), view.horizontalHeader()
            rows.setSectionResizeMode(Mode.Fixed)
            cols.setSectionResizeMode(Mode.Interactive if big else Mode.Fixed)
            view.fitter.refit()

    def go_to_row(self, row: int) -> None:
        """Show row ``row`` (0-based, an input dial) at the top of W^Q, W^K and W^V, selected."""
        for matrix, view in self.views.items():
            model = view.model()
            if matrix == "w_o" or not 0 <= row < model.rowCount():
                continue
            column = max(0, view.columnAt(0))
            view.selectRow(row)
            view.scrollTo(model.index(row, column), QtWidgets.QAbstractItemView.ScrollHint.PositionAtTop)
