"""Lab · Rotary positions (RoPE): one query and one key moved apart, and their score q·k as they go.

The q and k are the chosen query's and key's from the sentence (before any turn, of the head every panel
shows) or numbers typed in the lab. Two sliders place the query at position m and the key at n; θ sets the
speeds of the pairs. Everything drawn comes from ``qkv_engine.rope_lab.lab_curves``:

* top: q·k over the distance m - n (the key at n, solid line), the same with both words 20 positions
  further on (hollow rings: they sit on the line, the relative-position property), one faint curve per pair
  of numbers (what each pair adds), and the chosen m - n marked;
* bottom: the score at the chosen distance with the query anywhere (m from 0 to 64): a flat line;
* a caption with the numbers.

The lab's choices live in ``session.lab_state["rope_lab"]`` so a figure export (a fresh copy) shows the same.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: F401  (PySide6 before pyqtgraph)
import numpy as np
import pyqtgraph as pg

from qkv_engine import ScenarioError, explain, parse_number, rope_lab

from ...look import colours, style
from ..base import Panel
from ...drawing.lazy_axes import set_title
from ...drawing.plot_marks import line_item
from ...labels.changed_text import set_text
from ...labels.rich_spans import no_break
from ...labels.steady_box import steady_box
from ...drawing.chart_view import chart_view

Qt = QtCore.Qt

LAB_STATE_KEY = "rope_lab"
SOURCES = (("chosen", "the chosen query and key"), ("typed", "numbers typed here"))
DEFAULT_Q, DEFAULT_K = "1, 0.5, 0, 0.5", "1, 0.5, 0.5, 0"
DEFAULT_THETA = 10000.0
DEFAULT_M, DEFAULT_N = 5, 2
#: The rings of the shifted curve: one every this many distances (all of them would hide the line).
RING_EVERY = 4
#: Per-pair curves drawn at most (a model's head of 128 numbers has 64 pairs: the first and last ones).
MAX_PAIR_CURVES = 16


def _quiet(plot: pg.PlotItem) -> None:
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(False, False)
    plot.hideButtons()
    for name in ("left", "bottom"):
        plot.getAxis(name).enableAutoSIPrefix(False)


def _words(body, layout, name: str, kind) -> QtWidgets.QLabel:
    """A wrapped label under the charts, in a box that keeps its height while the numbers change."""
    label = QtWidgets.QLabel(body)
    label.setObjectName(name)
    label.setTextFormat(kind)
    label.setWordWrap(True)
    label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
    layout.addWidget(steady_box(label))
    return label


def parse_vector(text: str, name: str) -> np.ndarray:
    """Numbers typed as "1, 0.5, -2" (commas or spaces between), at least 2 and at most 64."""
    parts = [p for p in text.replace(";", ",").replace(",", " ").split() if p]
    if not 2 <= len(parts) <= 64:
        raise ScenarioError(f"{name}: type 2 to 64 numbers, separated by commas (got {len(parts)})")
    try:
        return np.array([parse_number(p) for p in parts], dtype=np.float64)
    except (ScenarioError, ValueError):
        raise ScenarioError(f"{name}: '{text.strip()}' is not a list of numbers, such as 1, 0.5, -2") from None


class RopeLabPanel(Panel):
    object_name = "ropeLabPanel"
    title = "Lab · Rotary positions (RoPE)"
    follows_colours = True

    def build(self, body):
        state = self.session.lab_state.get(LAB_STATE_KEY) or {}
        self.curves = None  # what was drawn last (``rope_lab.LabCurves``)
        self.problem = ""  # why the lab's inputs were refused (shown under them)
        self._theta_problem = ""  # why the θ typed last was refused
        self._pair_items: list = []
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(3)
        form = QtWidgets.QGridLayout()
        form.setHorizontalSpacing(6)
        form.setVerticalSpacing(2)
        layout.addLayout(form)

        self.source_combo = QtWidgets.QComboBox(body)
        self.source_combo.setObjectName("ropeLabSource")
        for key, text in SOURCES:
            self.source_combo.addItem(text, key)
        self.source_combo.setToolTip("Where q and k come from: the query and key chosen in the other panels "
                                     "(before their turn), or numbers you type")
        self.theta_edit = QtWidgets.QLineEdit(body)
        self.theta_edit.setObjectName("ropeLabTheta")
        room = QtGui.QFontMetrics(self.theta_edit.font()).horizontalAdvance("5000000") + 14
        self.theta_edit.setMinimumWidth(room)  # "500000" whole (Llama 3's θ)
        self.theta_edit.setMaximumWidth(room + 20)
        self.source_combo.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.source_combo.setMinimumContentsLength(10)  # shortened with "…" in a narrow dock, whole in its list
        self.theta_edit.setToolTip("θ (theta): pair i turns 1 / θ^(2i / d) radians per position. Above 1; "
                                   "Llama uses 10000 or 500000.")
        form.addWidget(QtWidgets.QLabel("q and k:", body), 0, 0)
        form.addWidget(self.source_combo, 0, 1, 1, 3)
        form.addWidget(QtWidgets.QLabel("θ", body), 0, 4)
        form.addWidget(self.theta_edit, 0, 5)
        self.q_edit = QtWidgets.QLineEdit(body)
        self.q_edit.setObjectName("ropeLabQ")
        self.k_edit = QtWidgets.QLineEdit(body)
        self.k_edit.setObjectName("ropeLabK")
        self.typed_labels = (QtWidgets.QLabel("q", body), QtWidgets.QLabel("k", body))
        form.addWidget(self.typed_labels[0], 1, 0)
        form.addWidget(self.q_edit, 1, 1, 1, 2)
        form.addWidget(self.typed_labels[1], 1, 3)
        form.addWidget(self.k_edit, 1, 4, 1, 2)
        self.sliders, self.slider_values = {}, {}
        for row, (name, words, tip) in enumerate((
                ("m", "query at m", "The query's position in the sentence"),
                ("n", "key at n", "The key's position in the sentence"))):
            slider = QtWidgets.QSlider(Qt.Orientation.Horizontal, body)
            slider.setObjectName(f"ropeLab{name.upper()}Slider")
            slider.setRange(0, rope_lab.MAX_POSITION)
            slider.setToolTip(tip)
            slider.setMinimumWidth(60)
            value = QtWidgets.QLabel(body)
            value.setMinimumWidth(QtGui.QFontMetrics(value.font()).horizontalAdvance("64") + 4)
            form.addWidget(QtWidgets.QLabel(words, body), 2 + row, 0)
            form.addWidget(slider, 2 + row, 1, 1, 4)
            form.addWidget(value, 2 + row, 5)
            self.sliders[name], self.slider_values[name] = slider, value
        form.setColumnStretch(2, 1)
        form.setColumnStretch(4, 1)
        self.message = QtWidgets.QLabel(body)
        self.message.setObjectName("ropeLabMessage")
        self.message.setWordWrap(True)
        colours.sheet(self.message, "color: $error_ink;", self.colours)
        self.message.hide()
        layout.addWidget(self.message)

        self.view = chart_view(body, "ropeLabCharts", spacing=4, min_height=220)
        layout.addWidget(self.view, 1)
        pal = self.colours
        self.distance_plot = self.view.addPlot(row=0, col=0, enableMenu=False)
        self.along_plot = self.view.addPlot(row=1, col=0, enableMenu=False)
        self.view.ci.layout.setRowStretchFactor(0, 5)
        self.view.ci.layout.setRowStretchFactor(1, 2)
        for plot in (self.distance_plot, self.along_plot):
            _quiet(plot)
            plot.showGrid(x=True, y=True, alpha=0.15)
            plot.getAxis("left").setLabel("q·k")
        self.distance_plot.getAxis("bottom").setLabel("m − n (how far the query is after the key)")
        self.along_plot.getAxis("bottom").setLabel("m (the query's position)")
        self.zero_lines = [line_item(p, pg.mkPen(pal.muted, width=1)) for p in (self.distance_plot, self.along_plot)]
        self.now_line = line_item(self.distance_plot, pg.mkPen(pal.selected, width=1.5, style=Qt.PenStyle.DashLine))
        for line in self.zero_lines:
            colours.paint(line, pal, pen="muted")
        colours.paint(self.now_line, pal, pen="selected")
        self.score_curve = pg.PlotDataItem(pen=pg.mkPen(pal.foreground, width=2.5))
        colours.paint(self.score_curve, pal, pen="foreground")
        self.shifted_rings = pg.PlotDataItem(pen=None, symbol="o", symbolSize=8,
                                             symbolPen=pg.mkPen(pal.ink["query"], width=1.5),
                                             symbolBrush=pg.mkBrush(None))
        colours.paint(self.shifted_rings, pal, symbol_pen="ink_query")
        self.now_dot = pg.PlotDataItem(pen=None, symbol="d", symbolSize=13, symbolPen=pg.mkPen(pal.selected),
                                       symbolBrush=pg.mkBrush(pal.selected))
        colours.paint(self.now_dot, pal, symbol_pen="selected", symbol_brush="selected")
        self.along_curve = pg.PlotDataItem(pen=pg.mkPen(pal.foreground, width=2.5))
        colours.paint(self.along_curve, pal, pen="foreground")
        self.along_dot = pg.PlotDataItem(pen=None, symbol="d", symbolSize=13, symbolPen=pg.mkPen(pal.selected),
                                         symbolBrush=pg.mkBrush(pal.selected))
        colours.paint(self.along_dot, pal, symbol_pen="selected", symbol_brush="selected")
        for item in (self.score_curve, self.shifted_rings, self.now_dot):
            self.distance_plot.addItem(item)
        for item in (self.along_curve, self.along_dot):
            self.along_plot.addItem(item)
        self.legend = _words(body, layout, "ropeLabLegend", Qt.TextFormat.RichText)
        self.caption = _words(body, layout, "ropeLabCaption", Qt.TextFormat.PlainText)
        font = QtGui.QFont(self.font())
        font.setPointSizeF(style.BASE_POINT_SIZE)
        body.setFont(font)
        small = QtGui.QFont(font)
        small.setPointSizeF(font.pointSizeF() * 0.85)
        for plot in (self.distance_plot, self.along_plot):
            for name in ("left", "bottom"):
                plot.getAxis(name).setStyle(tickFont=small)
                plot.getAxis(name).label.setFont(small)

        # what the lab remembers (an export's fresh copy shows the same)
        source = state.get("source", "chosen")
        self.source_combo.setCurrentIndex(max(0, [k for k, _t in SOURCES].index(source)
                                              if source in dict(SOURCES) else 0))
        self.q_edit.setText(str(state.get("q", DEFAULT_Q)))
        self.k_edit.setText(str(state.get("k", DEFAULT_K)))
        scenario = self.session.scenario  # a rotary head (a Llama model's): the lab starts at its θ
        self.theta = float(state.get("theta", scenario.rope_theta if scenario.rotary else DEFAULT_THETA))
        self.theta_edit.setText(f"{self.theta:.10g}")
        for name, default in (("m", DEFAULT_M), ("n", DEFAULT_N)):
            self.sliders[name].setValue(int(state.get(name, default)))
        self.source_combo.currentIndexChanged.connect(self._changed)
        self.q_edit.editingFinished.connect(self._changed)
        self.k_edit.editingFinished.connect(self._changed)
        self.theta_edit.editingFinished.connect(self._theta_typed)
        for slider in self.sliders.values():
            slider.valueChanged.connect(self._changed)
        self._follow_source()

    # ----- the lab's own choices ---------------------------------------------------------------------
    @property
    def source(self) -> str:
        return self.source_combo.currentData()

    @property
    def positions(self) -> tuple:
        return self.sliders["m"].value(), self.sliders["n"].value()

    def set_positions(self, m: int, n: int) -> None:
        self.sliders["m"].setValue(int(m))
        self.sliders["n"].setValue(int(n))

    def _remember(self) -> None:
        m, n = self.positions
        self.session.lab_state[LAB_STATE_KEY] = {"source": self.source, "q": self.q_edit.text(),
                                                 "k": self.k_edit.text(), "theta": self.theta, "m": m, "n": n}

    def _follow_source(self) -> None:
        typed = self.source == "typed"
        for w in (self.q_edit, self.k_edit, *self.typed_labels):
            w.setVisible(typed)

    def _theta_typed(self) -> None:
        try:
            theta = rope_lab.parse_theta(self.theta_edit.text())
        except ScenarioError as exc:
            self._theta_problem = str(exc)  # the box keeps what was typed; the curves keep the last good θ
            self._say(self._theta_problem)
            return
        self._theta_problem = ""
        self.theta = theta
        self._changed()

    def _changed(self, *_):
        self._follow_source()
        self._remember()
        self.refresh()

    def _say(self, text: str) -> None:
        self.problem = text
        set_text(self.message, text)
        self.message.setVisible(bool(text))

    # ----- Panel hooks ----------------------------------------------------------------------------------
    def hint_for(self, result) -> str | None:
        return None  # typed numbers need no sentence

    def _vectors(self, result, selection) -> tuple:
        """(q, k, where they come from in words), or a ScenarioError saying why not."""
        if self.source == "typed":
            q, k = parse_vector(self.q_edit.text(), "q"), parse_vector(self.k_edit.text(), "k")
            if q.size != k.size:
                raise ScenarioError(f"q has {q.size} numbers and k has {k.size}: give both the same count")
            return q, k, "typed q and k"
        if result.n == 0 or result.n_keys == 0:
            raise ScenarioError("There is no sentence: type one, or choose 'numbers typed here'.")
        if result.scenario.d_k < 2:
            raise ScenarioError("This head's queries have one number: rotary positions turn pairs of numbers. "
                                "Raise d_k, or choose 'numbers typed here'.")
        i, j = selection.query, selection.key
        q, k = np.asarray(result.q_unrotated[i]), np.asarray(result.k_unrotated[j])
        said = f"q of '{result.tokens[i]}' and k of '{result.key_tokens[j]}'"
        if result.scenario.rotary and result.scenario.rope_theta != self.theta:
            said += f" (this head's own θ is {result.scenario.rope_theta:.10g})"
        return q, k, said

    def show_result(self, result, selection) -> None:
        m, n = self.positions
        for name, value in zip("mn", (m, n)):
            set_text(self.slider_values[name], str(value))
        try:
            q, k, said = self._vectors(result, selection)
        except ScenarioError as exc:
            self._say(str(exc))
            return
        self._say(self._theta_problem)
        lab = rope_lab.lab_curves(q, k, self.theta, m, n)
        self.curves = lab
        self._draw(lab, said)

    # ----- drawing ------------------------------------------------------------------------------------
    def _pair_curve(self, p: int) -> pg.PlotDataItem:
        while len(self._pair_items) <= p:
            item = pg.PlotDataItem(pen=pg.mkPen(QtGui.QColor(self.colours.muted), width=1))
            colours.paint(item, self.colours, pen=("muted", 150))
            self.distance_plot.addItem(item)
            item.setZValue(-1)
            self._pair_items.append(item)
        return self._pair_items[p]

    def shown_pairs(self, lab) -> list:
        """The pairs drawn as faint curves: all of them, or the first and last few of a long head."""
        count = lab.parts.shape[0]
        if count <= MAX_PAIR_CURVES:
            return list(range(count))
        half = MAX_PAIR_CURVES // 2
        return list(range(half)) + list(range(count - half, count))

    def _draw(self, lab, said: str) -> None:
        x = lab.distances.astype(np.float64)
        self.score_curve.setData(x, lab.scores)
        rings = np.arange(0, x.size, RING_EVERY)
        self.shifted_rings.setData(x[rings], lab.shifted[rings])
        shown = self.shown_pairs(lab)
        for p in range(max(len(self._pair_items), lab.parts.shape[0])):
            if p in shown:
                self._pair_curve(p).setData(x, lab.parts[p])
                self._pair_items[p].setVisible(True)
            elif p < len(self._pair_items):
                self._pair_items[p].setVisible(False)
        gap = lab.m - lab.n
        self.now_dot.setData([float(gap)], [lab.score])
        top = max(float(np.abs(lab.scores).max()), float(np.abs(lab.parts[shown]).max()), 1e-9) * 1.12
        self.distance_plot.setXRange(float(x[0]), float(x[-1]), padding=0.02)
        self.distance_plot.setYRange(-top, top, padding=0)
        self.now_line.setLine(float(gap), -top, float(gap), top)
        self.zero_lines[0].setLine(float(x[0]), 0.0, float(x[-1]), 0.0)
        along = lab.along.astype(np.float64)
        self.along_curve.setData(along, lab.along_scores)
        self.along_dot.setData([float(lab.m)], [lab.score])
        self.along_plot.setXRange(float(along[0]), float(along[-1]), padding=0.02)
        self.along_plot.setYRange(-top, top, padding=0)
        self.zero_lines[1].setLine(float(along[0]), 0.0, float(along[-1]), 0.0)
        pt = f"{round(style.BASE_POINT_SIZE * 0.9 * self.theme.font_scale, 1)}pt"
        set_title(self.distance_plot, "q·k over the distance m − n", size=pt)
        set_title(self.along_plot, f"m − n = {gap} kept, both moved along", size=pt)
        pal = self.colours
        pairs = lab.parts.shape[0]
        faint = ("1 pair: its part is the whole curve" if pairs == 1
                 else f"{pairs} faint lines: each pair's part" if len(shown) == pairs
                 else f"{len(shown)} of {pairs} pairs' parts (faint)")
        self.legend.setText(  # (a narrow panel wraps the legend between its items, not inside one)
            f"<span style='color:{pal.foreground}'><b>——</b>{no_break(f' q·k, key at n = {lab.n}')}</span>&nbsp;&nbsp; "
            f"<span style='color:{pal.ink['query']}'>{no_break(f'○ both {lab.shift} positions further on')}</span>"
            f"&nbsp;&nbsp; <span style='color:{pal.quiet_text}'>{no_break(faint)}</span>&nbsp;&nbsp; "
            f"<span style='color:{pal.selected}'>{no_break('◆ now')}</span>")
        set_text(self.caption, self.caption_text(lab, said))

    @staticmethod
    def caption_text(lab, said: str) -> str:
        gap = lab.m - lab.n
        d = lab.q.size
        fast, slow = explain.significant(float(lab.frequencies[0])), explain.significant(float(lab.frequencies[-1]))
        shifted = float(lab.shifted[int(np.flatnonzero(lab.distances == gap)[0])])
        turning = (f"1 pair, turning {fast} rad per position" if d // 2 == 1 else
                   f"{d // 2} pairs, turning {fast} (fastest) to {slow} (slowest) rad per position")
        apart = ("at the same place" if gap == 0 else f"{gap} apart" if gap > 0
                 else f"the key {-gap} after the query")
        return (f"{said}, {d} numbers each: {turning} with θ = {lab.theta:.10g}. The query at m = {lab.m} and the "
                f"key at n = {lab.n} ({apart}) score q·k = {explain.fixed(lab.score, 3)}; unturned they score "
                f"{explain.fixed(lab.unturned, 3)}. Move both {lab.shift} further on (m = {lab.m + lab.shift}, "
                f"n = {lab.n + lab.shift}): {explain.fixed(shifted, 3)} again. Only the distance counts: "
                f"the rings sit on the line and the lower line is flat.")
