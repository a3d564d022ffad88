"""Lab · Why √d_k? — random queries and keys show why attention divides its scores by √d_k.

Driven by its own controls, not by the sentence: a d_k slider (1 to 512)
with a spin box, and the random seed of the draws. Everything it shows
comes from ``qkv_engine.scaling_lab``:

* top: histograms of 2000 raw scores q·k (grey, hatched) and of the same
  scores divided by √d_k (navy, solid) on one shared score axis, each with
  its measured variance next to the predicted one (d_k and 1) and dotted
  lines at ± the predicted spread;
* middle: one softmax row (query 1 against 16 keys) without and with
  scaling, as bars of its weights, and a small table of its largest weight,
  spread (entropy, in bits) and largest gradient (largest entry of the
  softmax Jacobian);
* bottom: the same row quantities averaged over many rows for d_k = 1 .. 512,
  with the chosen d_k marked;
* a caption in plain words with the numbers to notice.

Raw and scaled differ by more than colour: hatched bars and dashed lines
with square dots are raw; solid bars and lines with round dots are scaled;
every chart says which is which. Dragging the slider recomputes at most once
per turn of the event loop.
"""
from __future__ import annotations

import math
import time

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: F401  (PySide6 before pyqtgraph)
import numpy as np
import pyqtgraph as pg

from qkv_engine import scaling_lab as lab_engine

from ...look import colours, style
from ..base import Panel
from ...drawing.plot_marks import Bars, line_item
from ...drawing.lazy_axes import set_ticks, set_title
from ...labels.changed_text import set_text
from ...labels.rich_spans import no_break
from ...labels.steady_box import steady_box
from ...drawing.text_label import TextLabel
from ...drawing.chart_view import chart_view

Qt = QtCore.Qt

DEFAULT_DK = 64
DEFAULT_SEED = 0
#: The lab keeps its d_k and seed in ``session.lab_state[LAB_STATE_KEY]``, so that a fresh copy (a figure
#: export) shows what the lab on screen shows.
LAB_STATE_KEY = "scaling_lab"
RAW_LABEL = "raw q·k"
#: Room above the tallest bar for the text on a chart.
HIST_HEADROOM = 1.7
ROW_TOP = 1.45
SCALED_LABEL = "q·k ÷ √d_k"
#: The palette roles of raw and scaled: bars and lines, and words.
RAW_COLOUR = "mid_grey"
SCALED_COLOUR = "fill_weight"
RAW_INK = "dark_grey"
SCALED_INK = "ink_weight"


def variance_text(v: float, predicted: float) -> str:
    """A variance with the precision its sampling error allows: 515 / 63.2 / 1.01."""
    decimals = max(0, 2 - int(math.floor(math.log10(max(predicted, 1e-9)))))
    return style.fmt(v, decimals)


def _brush(colour: str, alpha: int = 255, pattern=None) -> QtGui.QBrush:
    c = QtGui.QColor(colour)
    c.setAlpha(alpha)
    return QtGui.QBrush(c, pattern) if pattern is not None else QtGui.QBrush(c)


def _quiet(plot: pg.PlotItem) -> None:
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(False, False)
    plot.hideButtons()
    plot.enableAutoRange(False)
    for name in ("left", "bottom"):
        plot.getAxis(name).enableAutoSIPrefix(False)


class ScalingLabPanel(Panel):
    object_name = "scalingLabPanel"
    title = "Lab · Why √d_k?"
    follows_colours = True

    # ----- building -------------------------------------------------------------------------------
    def build(self, body):
        d_k, seed = self._remembered()
        self.lab = None
        self.recompute_count = 0
        self.last_update_ms = 0.0
        self._pending = False
        self._grow = None
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(3)

        controls = QtWidgets.QHBoxLayout()
        controls.setSpacing(6)
        dk_label = QtWidgets.QLabel("d_k:", body)
        dk_label.setToolTip("How many numbers each query and key has")
        self.dk_slider = QtWidgets.QSlider(Qt.Orientation.Horizontal, body)
        self.dk_slider.setObjectName("labDkSlider")
        self.dk_slider.setRange(lab_engine.MIN_DK, lab_engine.MAX_DK)
        self.dk_slider.setValue(d_k)
        self.dk_slider.setPageStep(16)
        self.dk_slider.setMinimumWidth(50)
        self.dk_slider.setToolTip("How many numbers each query and key has")
        self.dk_spin = QtWidgets.QSpinBox(body)
        self.dk_spin.setObjectName("labDkSpin")
        self.dk_spin.setRange(lab_engine.MIN_DK, lab_engine.MAX_DK)
        self.dk_spin.setValue(d_k)
        seed_label = QtWidgets.QLabel("seed:", body)
        self.seed_spin = QtWidgets.QSpinBox(body)
        self.seed_spin.setObjectName("labSeedSpin")
        self.seed_spin.setRange(0, 99999)
        self.seed_spin.setValue(seed)
        self.seed_spin.setToolTip("The random draws come from this seed: the same seed gives the same numbers")
        self.new_draw = QtWidgets.QPushButton("New draw", body)
        self.new_draw.setObjectName("labNewDrawButton")
        self.new_draw.setToolTip("Draw new random queries and keys (next seed)")
        controls.addWidget(dk_label)
        controls.addWidget(self.dk_slider, 1)
        controls.addWidget(self.dk_spin)
        controls.addSpacing(4)
        controls.addWidget(seed_label)
        controls.addWidget(self.seed_spin)
        controls.addWidget(self.new_draw)
        controls.addStretch(0)  # takes the room only when the slider is not shown (an exported figure)
        layout.addLayout(controls)

        self.view = chart_view(body, "labCharts", spacing=4, min_height=240)
        # Charts and words: the words go under the charts, or beside them when the panel is wide and short
        # (a 16:10 slide).
        self.main = QtWidgets.QBoxLayout(QtWidgets.QBoxLayout.Direction.TopToBottom)
        self.main.setSpacing(4)
        layout.addLayout(self.main, 1)
        self.main.addWidget(self.view, 1)
        self.words = QtWidgets.QWidget(body)
        self.words.setObjectName("labWords")
        words = QtWidgets.QVBoxLayout(self.words)
        words.setContentsMargins(0, 0, 0, 0)
        words.setSpacing(3)
        self.main.addWidget(self.words)

        # Row 0: the two histograms on one score axis.
        self.raw_hist = self.view.addPlot(row=0, col=0, enableMenu=False)
        self.scaled_hist = self.view.addPlot(row=0, col=1, enableMenu=False)
        pal = self.colours
        self.raw_bars = Bars(x0=[], width=[], height=[], pen=pg.mkPen(pal.colour(RAW_INK), width=1),
                             brush=_brush(pal.colour(RAW_COLOUR), 255, Qt.BrushStyle.BDiagPattern))
        self.scaled_bars = Bars(x0=[], width=[], height=[], pen=pg.mkPen(pal.colour(SCALED_INK), width=1),
                                brush=_brush(pal.colour(SCALED_COLOUR), 200))
        self.hist_text = {}
        for name, plot, bars, ink in (("raw", self.raw_hist, self.raw_bars, RAW_INK),
                                      ("scaled", self.scaled_hist, self.scaled_bars, SCALED_INK)):
            _quiet(plot)
            plot.addItem(bars)
            text = TextLabel("", color=pal.colour(ink), anchor=(0, 0))
            colours.paint(text, pal, text=ink)
            plot.addItem(text, ignoreBounds=True)
            self.hist_text[name] = text
            plot.getAxis("left").setLabel("how many")
        self.scaled_hist.setXLink(self.raw_hist)  # one score axis: the scaled scores look as narrow as they are
        self.raw_hist.getAxis("bottom").setLabel("score")
        self.scaled_hist.getAxis("bottom").setLabel("score")
        self.scaled_hist.getAxis("left").setLabel(None)

        # Row 1: one softmax row, without and with scaling.
        self.raw_row_plot = self.view.addPlot(row=1, col=0, enableMenu=False)
        self.scaled_row_plot = self.view.addPlot(row=1, col=1, enableMenu=False)
        self.raw_row_bars = Bars(x=[], width=0.8, height=[], pen=pg.mkPen(pal.colour(RAW_INK), width=1),
                                 brush=_brush(pal.colour(RAW_COLOUR), 255, Qt.BrushStyle.BDiagPattern))
        self.scaled_row_bars = Bars(x=[], width=0.8, height=[], pen=pg.mkPen(pal.colour(SCALED_INK), width=1),
                                    brush=_brush(pal.colour(SCALED_COLOUR), 200))
        for bars, pen, brush in ((self.raw_bars, RAW_INK, RAW_COLOUR), (self.scaled_bars, SCALED_INK, SCALED_COLOUR),
                                 (self.raw_row_bars, RAW_INK, RAW_COLOUR),
                                 (self.scaled_row_bars, SCALED_INK, SCALED_COLOUR)):
            colours.paint(bars, pal, pen=pen, brush=brush if brush == RAW_COLOUR else (brush, 200))
        self.row_text = {}
        for name, plot, bars, ink in (("raw", self.raw_row_plot, self.raw_row_bars, RAW_INK),
                                      ("scaled", self.scaled_row_plot, self.scaled_row_bars, SCALED_INK)):
            _quiet(plot)
            plot.addItem(bars)
            plot.setYRange(0.0, ROW_TOP, padding=0)
            plot.getAxis("left").setTicks([[(0.0, "0"), (0.5, "0.5"), (1.0, "1")], []])
            plot.getAxis("bottom").setLabel("key")
            text = TextLabel("", color=pal.colour(ink), anchor=(0, 0))
            colours.paint(text, pal, text=ink)
            text.setPos(0.4, ROW_TOP)
            plot.addItem(text, ignoreBounds=True)
            self.row_text[name] = text
        self.raw_row_plot.getAxis("left").setLabel("weight")

        # Row 2: the sweep over d_k.
        self.weight_sweep = self.view.addPlot(row=2, col=0, enableMenu=False)
        self.grad_sweep = self.view.addPlot(row=2, col=1, enableMenu=False)
        ticks = [[(i, str(d)) for i, d in enumerate(lab_engine.SWEEP_DKS) if i in (0, 2, 4, 6, 9)],
                 [(i, "") for i in range(len(lab_engine.SWEEP_DKS))]]
        self.sweep_lines = {}
        self.dk_marks = {}
        for name, plot in (("weight", self.weight_sweep), ("grad", self.grad_sweep)):
            _quiet(plot)
            plot.showGrid(y=True, alpha=0.15)
            plot.getAxis("bottom").setTicks(ticks)
            plot.getAxis("bottom").setLabel("d_k")
            plot.setXRange(-0.4, len(lab_engine.SWEEP_DKS) - 0.4, padding=0)
            raw_ink, scaled_fill = pal.colour(RAW_INK), pal.colour(SCALED_COLOUR)
            raw = pg.PlotDataItem(pen=pg.mkPen(raw_ink, width=2, style=Qt.PenStyle.DashLine), symbol="s",
                                  symbolSize=6, symbolPen=pg.mkPen(raw_ink), symbolBrush=pg.mkBrush(pal.background))
            scaled = pg.PlotDataItem(pen=pg.mkPen(scaled_fill, width=2), symbol="o", symbolSize=6,
                                     symbolPen=pg.mkPen(pal.colour(SCALED_INK)), symbolBrush=pg.mkBrush(scaled_fill))
            colours.paint(raw, pal, pen=RAW_INK, symbol_pen=RAW_INK, symbol_brush="background")
            colours.paint(scaled, pal, pen=SCALED_COLOUR, symbol_pen=SCALED_INK, symbol_brush=SCALED_COLOUR)
            plot.addItem(raw)
            plot.addItem(scaled)
            mark = line_item(plot, pg.mkPen(pal.selected, width=1.5))  # the chosen d_k, top to bottom
            colours.paint(mark, pal, pen="selected")
            self.sweep_lines[name] = (raw, scaled)
            self.dk_marks[name] = mark
        self.weight_sweep.setYRange(-0.03, 1.1, padding=0)
        self.weight_sweep.getAxis("left").setTicks([[(0.0, "0"), (0.5, "0.5"), (1.0, "1")], []])
        self.grad_sweep.setYRange(-0.01, 0.27, padding=0)
        self.grad_sweep.getAxis("left").setTicks([[(0.0, "0"), (0.1, "0.1"), (0.2, "0.2")], []])

        # What the lines of the sweep are (below the charts: inside, it would cover a line at some d_k).
        self.sweep_legend = QtWidgets.QLabel(body)
        self.sweep_legend.setObjectName("labSweepLegend")
        self.sweep_legend.setTextFormat(Qt.TextFormat.RichText)
        self.sweep_legend.setWordWrap(True)
        self.sweep_legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
        words.addWidget(steady_box(self.sweep_legend))
        # Numbers of the row, side by side.
        self.table = QtWidgets.QLabel(body)
        self.table.setObjectName("labTable")
        self.table.setTextFormat(Qt.TextFormat.RichText)
        self.table.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
        words.addWidget(steady_box(self.table))
        self.caption = QtWidgets.QLabel(body)
        self.caption.setObjectName("labCaption")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)
        colours.sheet(self.caption, "color: $soft_text; font-style: italic;", pal)
        self.caption.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
        words.addWidget(steady_box(self.caption))
        words.addStretch(0)

        font = QtGui.QFont(self.font())
        font.setPointSizeF(style.BASE_POINT_SIZE)
        body.setFont(font)
        self.caption.setFont(font)  # a label with a style sheet does not take the parent's font

        self.dk_slider.valueChanged.connect(self._on_dk)
        self.dk_spin.valueChanged.connect(self._on_dk)
        self.seed_spin.valueChanged.connect(self._schedule)
        self.new_draw.clicked.connect(lambda: self.seed_spin.setValue((self.seed_spin.value() + 1) % 100000))
        self._remember()
        self.recompute()

    # ----- the lab's own state -------------------------------------------------------------------
    def _remembered(self) -> tuple:
        """(d_k, seed) kept in the session by a lab shown before, else the defaults."""
        state = self.session.lab_state.get(LAB_STATE_KEY) or {}
        try:
            d_k = int(state.get("d_k", DEFAULT_DK))
            seed = int(state.get("seed", DEFAULT_SEED))
        except (TypeError, ValueError):
            return DEFAULT_DK, DEFAULT_SEED
        if not lab_engine.MIN_DK <= d_k <= lab_engine.MAX_DK:
            d_k = DEFAULT_DK
        if not 0 <= seed <= 99999:
            seed = DEFAULT_SEED
        return d_k, seed

    def _remember(self) -> None:
        self.session.lab_state[LAB_STATE_KEY] = {"d_k": self.d_k, "seed": self.seed}

    @property
    def d_k(self) -> int:
        return self.dk_slider.value()

    @property
    def seed(self) -> int:
        return self.seed_spin.value()

    def set_d_k(self, d_k: int) -> None:
        self.dk_slider.setValue(int(d_k))

    def _on_dk(self, value: int) -> None:
        for w in (self.dk_slider, self.dk_spin):
            if w.value() != value:
                w.blockSignals(True)
                w.setValue(value)
                w.blockSignals(False)
        self._schedule()

    def _schedule(self, *_):
        """Recompute on the next turn of the event loop; any number of changes before it make one recompute."""
        self._remember()  # at once: an export made before the recompute shows the new d_k and seed too
        if not self._pending:
            self._pending = True
            QtCore.QTimer.singleShot(0, self, self._run_pending)

    def _run_pending(self) -> None:
        if self._pending:
            self.recompute()

    def recompute(self) -> None:
        """Draw the lab's numbers for the current d_k and seed, and show them."""
        self._pending = False
        t = time.perf_counter()
        self.lab = lab_engine.scaling_lab(self.d_k, seed=self.seed)
        self.recompute_count += 1
        self._stale = True
        if self.isVisible():
            self.refresh()
        self.last_update_ms = (time.perf_counter() - t) * 1000.0

    # ----- Panel hooks: the sentence does not matter here ------------------------------------------
    def hint_for(self, result) -> str | None:
        return None

    def _on_change(self, *_):
        """The session's sentence and selection do not change this panel."""

    def show_result(self, result, selection) -> None:
        if self.lab is not None:
            self._draw(self.lab)

    # ----- drawing ---------------------------------------------------------------------------------
    def _grow_now(self) -> float:
        """Text grows (up to 1.6x) when the panel is shown large."""
        return round(max(1.0, min(1.6, min(self.width() / 560.0, self.height() / 700.0))), 2)

    def _fonts(self) -> None:
        grow = self._grow_now()
        if grow == self._grow:
            return
        self._grow = grow
        font = QtGui.QFont(self.font())
        font.setPointSizeF(style.BASE_POINT_SIZE * grow)
        small = QtGui.QFont(font)
        small.setPointSizeF(font.pointSizeF() * 0.85)
        for plot in self._plots():
            for name in ("left", "bottom"):
                plot.getAxis(name).setStyle(tickFont=small)
                plot.getAxis(name).label.setFont(small)
        for item in (*self.hist_text.values(), *self.row_text.values()):
            item.setFont(small)

    def _plots(self):
        return (self.raw_hist, self.scaled_hist, self.raw_row_plot, self.scaled_row_plot,
                self.weight_sweep, self.grad_sweep)

    def _draw(self, lab) -> None:
        self._fonts()
        edges = np.asarray(lab.edges)
        widths = np.diff(edges)
        self.raw_bars.setOpts(x0=edges[:-1].copy(), width=widths, height=np.asarray(lab.raw_counts).copy())
        self.scaled_bars.setOpts(x0=edges[:-1].copy(), width=widths.copy(),
                                 height=np.asarray(lab.scaled_counts).copy())
        self.raw_hist.setXRange(float(edges[0]), float(edges[-1]), padding=0)
        top = float(max(lab.raw_counts.max(), 1))
        stop = float(max(lab.scaled_counts.max(), 1))
        headroom = HIST_HEADROOM + 0.4 * (self.theme.font_scale - 1.0)  # bigger text needs more room
        self.raw_hist.setYRange(0.0, top * headroom, padding=0)
        self.scaled_hist.setYRange(0.0, stop * headroom, padding=0)
        d = lab.d_k
        for name, measured, predicted, ymax, label, pred_text in (
            ("raw", lab.raw_variance, lab.predicted_raw_variance, top, RAW_LABEL, f"{d} = d_k"),
            ("scaled", lab.scaled_variance, lab.predicted_scaled_variance, stop, SCALED_LABEL, "1"),
        ):
            text = self.hist_text[name]
            text.setText(f"{label}\nvariance {variance_text(measured, predicted)}\npredicted {pred_text}")
            text.setPos(float(edges[0]), ymax * headroom)

        n = lab.row_length
        keys = np.arange(1, n + 1, dtype=np.float64)
        row_top = ROW_TOP + 0.35 * (self.theme.font_scale - 1.0)  # bigger text (slides) needs more room
        for name, plot, bars, row, label in (
            ("raw", self.raw_row_plot, self.raw_row_bars, lab.raw_row, "softmax of raw"),
            ("scaled", self.scaled_row_plot, self.scaled_row_bars, lab.scaled_row, "softmax of ÷ √d_k"),
        ):
            bars.setOpts(x=keys.copy(), height=np.asarray(row.weights).copy(), width=0.8)
            plot.setXRange(0.4, n + 0.6, padding=0)
            plot.setYRange(0.0, row_top, padding=0)
            self.row_text[name].setPos(0.4, row_top)
            ticks = [(float(k), str(k)) for k in range(1, n + 1) if k in (1, n) or (k % 5 == 0 and n - k >= 3)]
            set_ticks(plot.getAxis("bottom"), [ticks, []])
            self.row_text[name].setText(f"{label}\nlargest weight {style.fmt(row.max_weight, 2)}")

        sw = lab.sweep
        xs = np.arange(len(sw.d_k), dtype=np.float64)
        self.sweep_lines["weight"][0].setData(xs, np.asarray(sw.raw_max_weight).copy())
        self.sweep_lines["weight"][1].setData(xs, np.asarray(sw.scaled_max_weight).copy())
        self.sweep_lines["grad"][0].setData(xs, np.asarray(sw.raw_max_jacobian).copy())
        self.sweep_lines["grad"][1].setData(xs, np.asarray(sw.scaled_max_jacobian).copy())
        for mark in self.dk_marks.values():
            mark.setLine(math.log2(d), -1.0, math.log2(d), 2.0)  # the sweeps' y ranges lie inside -1..2
        set_title(self.weight_sweep, "largest weight", size=f"{self._title_pt()}pt")
        set_title(self.grad_sweep, "largest gradient", size=f"{self._title_pt()}pt")
        pal = self.colours
        self.sweep_legend.setText(
            f"<span style='color:{pal.colour(RAW_INK)}'>{no_break('- -□- - raw')}</span>&nbsp;&nbsp; "
            f"<span style='color:{pal.colour(SCALED_INK)}'>{no_break('—●— ÷ √d_k')}</span>&nbsp;&nbsp; "
            f"<b>│</b>{no_break(f' now d_k = {d}')}&nbsp;&nbsp; "
            f"<span style='color:{pal.quiet_text}'>{no_break(f'(each point: mean of {sw.rows} rows)')}</span>")

        self.table.setText(self.table_html(lab))
        set_text(self.caption, self.caption_text(lab))

    def _title_pt(self) -> float:
        return round(style.BASE_POINT_SIZE * 0.9 * (self._grow or 1.0) * self.theme.font_scale, 1)

    # ----- words and numbers ------------------------------------------------------------------------
    @staticmethod
    def row_numbers(lab) -> dict:
        """The numbers the table and caption show, as text: {"raw"/"scaled": (weight, entropy, gradient)}."""
        out = {}
        for name, row in (("raw", lab.raw_row), ("scaled", lab.scaled_row)):
            out[name] = (style.fmt(row.max_weight, 2), style.fmt(row.entropy, 2), style.fmt(row.max_jacobian, 3))
        return out

    def table_html(self, lab) -> str:
        """One row's numbers: a column for raw, a column for scaled (narrow enough for a side column)."""
        nums = self.row_numbers(lab)
        most = style.fmt(math.log2(lab.row_length), 2)
        head = (f"<tr><th align='left'>one row<br>of {lab.row_length}</th>"
                f"<th style='color:{self.colours.colour(RAW_INK)}'>&nbsp;{RAW_LABEL}&nbsp;</th>"
                f"<th style='color:{self.colours.colour(SCALED_INK)}'>&nbsp;{SCALED_LABEL}&nbsp;</th></tr>")
        rows = []
        for k, label in enumerate(("largest weight", f"spread, bits<br>(even: {most})", "largest gradient")):
            rows.append(f"<tr><td>{label}</td><td align='center'>{nums['raw'][k]}</td>"
                        f"<td align='center'>{nums['scaled'][k]}</td></tr>")
        return f"<table cellspacing='0' cellpadding='1'>{head}{''.join(rows)}</table>"

    def caption_text(self, lab) -> str:
        nums = self.row_numbers(lab)
        (rw, _, rg), (sw_, _, sg) = nums["raw"], nums["scaled"]
        rv = variance_text(lab.raw_variance, lab.predicted_raw_variance)
        sv = variance_text(lab.scaled_variance, lab.predicted_scaled_variance)
        if lab.d_k == 1:
            lead = "With d_k = 1, √d_k = 1, so scaling changes nothing. Drag d_k up and watch the left side."
        else:
            lead = (f"Without scaling the scores spread out as d_k grows (variance {rv}, about d_k = {lab.d_k}); "
                    f"softmax gives one key {rw} of the weight and the gradient is only {rg}, so learning stalls.")
        return (f"{lead} Divided by √d_k the variance stays near 1 ({sv}): "
                f"largest weight {sw_}, gradient {sg}.")

    def _arrange(self) -> None:
        wide = self.width() > 1.3 * self.height() and self.width() >= 700
        D = QtWidgets.QBoxLayout.Direction
        want = D.LeftToRight if wide else D.TopToBottom
        if self.main.direction() != want:
            self.main.setDirection(want)
        if wide:  # never narrower than the table of numbers (it does not wrap)
            self.words.setFixedWidth(max(int(self.width() * 0.42), self.table.minimumSizeHint().width()))
        else:
            self.words.setMinimumWidth(0)
            self.words.setMaximumWidth(16777215)

    def resizeEvent(self, event):
        self._arrange()
        super().resizeEvent(event)
        if self.lab is not None and self.isVisible() and self._grow_now() != self._grow:
            self.refresh()  # bigger or smaller text (through refresh, so the theme scaling follows)
