"""Experiment · Learn the weights: gradient descent on W^Q and W^K while every panel follows.

The teacher sets a target, where each query should look: clicks cells of this panel's grid of weights
(a row's chosen keys share it equally), or picks "query looks at key" in the two boxes and presses
**Set**. The target's cells are outlined, dashed, here and on the main heatmap. **Train** runs
gradient descent (``qkv_engine.training.Trainer``: the loss and its gradients come from the engine) for
the chosen number of steps: on W^Q and W^K, and if asked on W^V (towards a target output that the
target rows should get) and on the embeddings x. A timer runs the steps, a few each turn of the event
loop (about 30 a second), so the window never freezes and every panel shows the weights as they move;
the loss curve grows by one point per step. **Pause** stops (what was learned stays), **One step** takes
a single step, **Reset** goes back to where the run started, **Random start** draws new W^Q and W^K
(a model before it learns). A whole run is one undo step (``Session.train_to``). When a run stops, the
learned numbers are rounded to the two decimals the grids show (``training.rounded``), so the worked
arithmetic of every panel starts from the numbers on screen.

The panel keeps the last run's loss curve, steps and learning rate in ``session.lab_state["train"]``:
the lesson's appendix reads them, and a fresh copy of the panel (a figure export) draws the same curve.
"""
from __future__ import annotations

import re
import time

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets  # noqa: F401  (PySide6 before pyqtgraph)
import pyqtgraph as pg

from qkv_engine import ScenarioError, explain, head_grids, parse_number, training

from ...look import colours
from ..base import Panel
from ...drawing.cell_grid import CellGridItem
from ...drawing.token_labels import label_step, short_token
from ...drawing.target_look import show_target, target_cells
from ...drawing.lazy_axes import set_ticks
from ...labels.steady_box import steady_box
from ...drawing.turned_axis import TurnableAxis

Qt = QtCore.Qt

LAB_STATE_KEY = "train"
#: The timer's beat (ms) and the steps a second it aims at: when the panels take longer to repaint
#: than a beat, each beat takes more steps (up to MAX_STEPS_PER_TICK).
TICK_MS = 30
STEPS_PER_SECOND = 30
MAX_STEPS_PER_TICK = 4
DEFAULT_LR = 0.05
DEFAULT_MOMENTUM = 0.5
DEFAULT_STEPS = 100
#: How much the output target counts against the attention target (λ of the engine's loss).
OUTPUT_WEIGHT = 1.0
#: The grid of weights and the loss curve never get less than this (pixels) between them.
CANVAS_MIN_PX = 260
LEARNABLE = (("w_q", "W^Q"), ("w_k", "W^K"), ("w_v", "W^V"), ("x", "embeddings x"))
#: The palette role of the loss curve.
CURVE_PEN = "ink_weight"


def parse_numbers(text: str) -> list:
    """'1, 0' or '1 0' -> [1.0, 0.0]; raises ValueError with a reason for anything that is not a number."""
    parts = [p for p in re.split(r"[,;\s]+", text.strip()) if p]
    return [parse_number(p) for p in parts]


def named(count: int, step: int, wanted: set) -> list:
    """Which of ``count`` tokens get their name on a crowded axis: every ``step``-th, but the ``wanted``
    ones (the target's) always, with the others too close to them left out."""
    keep = set(wanted)
    keep |= {k for k in range(0, count, step) if all(abs(k - w) >= step for w in wanted)}
    return sorted(k for k in keep if 0 <= k < count)


class TrainPanel(Panel):
    object_name = "trainPanel"
    title = "Learn the weights"
    follows_colours = True
    empty_hint = "Type a sentence: learning needs tokens to look at each other."
    model_hint = ("Learning the weights works on the hand-made examples. A trained model has learned its "
                  "weights already: open a hand-made example (File menu) to watch learning happen.")

    # ----- building -------------------------------------------------------------------------
    def build(self, body):
        self._run = None  # the run under way (an object handed to Session.train_to), or None
        self._start = None  # the scenario the run started from (Reset goes back to it)
        self._trainer = None
        self._expected = None  # the scenario this panel handed the session last
        self._goal = 0  # the run stops after this many steps
        self._last_tick = None
        self.losses: list = []  # the loss before each step of the last run
        self.steps_done = 0
        self._random_seed = 0
        self._tokens = None

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)

        # the target
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("Target:", body))
        self.queryCombo = QtWidgets.QComboBox(body)
        self.queryCombo.setObjectName("trainQueryCombo")
        self.queryCombo.setToolTip("The query: the token that should learn where to look")
        self.keyCombo = QtWidgets.QComboBox(body)
        self.keyCombo.setObjectName("trainKeyCombo")
        self.keyCombo.setToolTip("The key it should look at")
        for combo in (self.queryCombo, self.keyCombo):
            combo.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(3)
        row.addWidget(self.queryCombo, 1)
        row.addWidget(QtWidgets.QLabel("looks at", body))
        row.addWidget(self.keyCombo, 1)
        self.setButton = QtWidgets.QToolButton(body)
        self.setButton.setText("Set")
        self.setButton.setObjectName("trainSetTarget")
        self.setButton.setToolTip("Make this the target: the query should look only at this key")
        self.setButton.clicked.connect(self.set_target_from_combos)
        row.addWidget(self.setButton)
        self.clearButton = QtWidgets.QToolButton(body)
        self.clearButton.setText("Clear")
        self.clearButton.setObjectName("trainClearTarget")
        self.clearButton.setToolTip("No target")
        self.clearButton.clicked.connect(lambda: self.session.set_train_target(None))
        row.addWidget(self.clearButton)
        layout.addLayout(row)

        # the weights with the target outlined, and the loss curve
        self.canvas = pg.GraphicsLayoutWidget(body)
        self.canvas.setObjectName("trainCanvas")
        self.canvas.setMinimumHeight(CANVAS_MIN_PX)
        self.canvas.ci.layout.setContentsMargins(2, 2, 6, 2)
        self.plot = self.canvas.addPlot(row=0, col=0, axisItems={"bottom": TurnableAxis("bottom")})
        self.lossPlot = self.canvas.addPlot(row=1, col=0)
        self.canvas.ci.layout.setRowStretchFactor(0, 2)
        self.canvas.ci.layout.setRowStretchFactor(1, 1)
        tick_font = QtGui.QFont()
        tick_font.setPointSizeF(8.0)
        self._tick_font = tick_font
        for plot in (self.plot, self.lossPlot):
            plot.setMenuEnabled(False)
            plot.hideButtons()
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setStyle(tickFont=tick_font)
                axis.label.setFont(tick_font)
        self.plot.setMouseEnabled(False, False)
        self.vb = self.plot.getViewBox()
        self.vb.invertY(True)
        self.vb.setDefaultPadding(0.0)
        for name, role in (("left", "query"), ("bottom", "key")):
            axis = self.plot.getAxis(name)
            axis.setStyle(tickLength=-3)
            colours.paint(axis, self.colours, pen="foreground", text=f"ink_{role}")
        self.plot.setTitle("Weights now (click a cell to aim at it)", size="9pt")
        self.image = CellGridItem("weights")
        self.plot.addItem(self.image)
        self.image.cellClicked.connect(self.toggle_cell)
        self.lossPlot.setMouseEnabled(False, False)
        self.lossPlot.setLabel("bottom", "step")
        self.lossPlot.setLabel("left", "loss L")
        self.lossPlot.showGrid(x=False, y=True, alpha=0.25)
        self.lossPlot.getAxis("left").enableAutoSIPrefix(False)
        self.lossPlot.getAxis("bottom").enableAutoSIPrefix(False)
        # a plain line through one point per step (dots for a hundred points cost more than all the rest)
        self.curve = pg.PlotDataItem(pen=pg.mkPen(self.colours.colour(CURVE_PEN), width=2))
        colours.paint(self.curve, self.colours, pen=CURVE_PEN)
        self._drawn = None  # (which list of losses, how many points) the curve draws now
        self.lossPlot.setTitle("Loss before each step", size="9pt")
        self.lossPlot.addItem(self.curve)
        layout.addWidget(self.canvas, 1)

        # what learns
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("Learn:", body))
        self.learnChecks: dict[str, QtWidgets.QCheckBox] = {}
        for name, text in LEARNABLE:
            check = QtWidgets.QCheckBox(text, body)
            check.setObjectName(f"trainLearn_{name}")
            check.setChecked(name in ("w_q", "w_k"))
            check.toggled.connect(self._settings_changed)
            row.addWidget(check)
            self.learnChecks[name] = check
        self.learnChecks["w_v"].setToolTip("W^V learns towards a target output: the output the target rows "
                                           "should get (type it below)")
        self.learnChecks["x"].setToolTip("The embeddings learn too (tokens with the same text keep one row)")
        row.addStretch(1)
        layout.addLayout(row)
        row = QtWidgets.QHBoxLayout()
        self.outputLabel = QtWidgets.QLabel("Target output:", body)
        row.addWidget(self.outputLabel)
        self.outputEdit = QtWidgets.QLineEdit(body)
        self.outputEdit.setObjectName("trainOutputTarget")
        self.outputEdit.setToolTip("The output every target row should get, one number per value coordinate, "
                                   "e.g. 1, 0")
        self.outputEdit.editingFinished.connect(self._settings_changed)
        row.addWidget(self.outputEdit, 1)
        layout.addLayout(row)

        # how it learns
        row = QtWidgets.QHBoxLayout()

        def number_box(name, lo, hi, step, value, decimals, tip):
            box = QtWidgets.QDoubleSpinBox(body)
            box.setObjectName(name)
            box.setRange(lo, hi)
            box.setDecimals(decimals)
            box.setSingleStep(step)
            box.setValue(value)
            box.setToolTip(tip)
            box.setKeyboardTracking(False)
            box.valueChanged.connect(self._settings_changed)
            return box

        self.lrSpin = number_box("trainLearningRate", 0.001, 5.0, 0.01, DEFAULT_LR, 3,
                                 "Learning rate: how big each step downhill is")
        self.momentumSpin = number_box("trainMomentum", 0.0, 0.95, 0.1, DEFAULT_MOMENTUM, 2,
                                       "Momentum: how much of the last step each new step keeps (0: none)")
        self.stepsSpin = QtWidgets.QSpinBox(body)
        self.stepsSpin.setObjectName("trainSteps")
        self.stepsSpin.setRange(1, 5000)
        self.stepsSpin.setValue(DEFAULT_STEPS)
        self.stepsSpin.setToolTip("How many steps one press of Train takes")
        for text, box in (("rate", self.lrSpin), ("momentum", self.momentumSpin), ("steps", self.stepsSpin)):
            row.addWidget(QtWidgets.QLabel(text, body))
            row.addWidget(box)
        row.addStretch(1)
        layout.addLayout(row)

        # run it
        row = QtWidgets.QHBoxLayout()
        self.trainButton = QtWidgets.QPushButton("Train \u25b6", body)
        self.trainButton.setObjectName("trainRun")
        self.trainButton.setCheckable(True)
        self.trainButton.setToolTip("Run the steps (press again to pause; what was learned stays)")
        self.trainButton.toggled.connect(lambda on: self.train() if on else self.pause())
        self.stepButton = QtWidgets.QPushButton("One step", body)
        self.stepButton.setObjectName("trainOneStep")
        self.stepButton.clicked.connect(self.one_step)
        self.resetButton = QtWidgets.QPushButton("Reset", body)
        self.resetButton.setObjectName("trainReset")
        self.resetButton.setToolTip("Back to the numbers the run started from")
        self.resetButton.clicked.connect(self.reset)
        self.randomButton = QtWidgets.QPushButton("Random start", body)
        self.randomButton.setObjectName("trainRandomStart")
        self.randomButton.setToolTip("New random numbers in W^Q and W^K: a model before it has learned")
        self.randomButton.clicked.connect(self.random_start)
        for b in (self.trainButton, self.stepButton, self.resetButton, self.randomButton):
            row.addWidget(b)
        row.addStretch(1)
        layout.addLayout(row)

        self.status = QtWidgets.QLabel(body)
        self.status.setObjectName("trainStatus")
        self.status.setWordWrap(True)
        layout.addWidget(steady_box(self.status))  # a new number each step: laid out only for a new height

        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.listen(self.session.trainTargetChanged, self._on_target)
        self.listen(self.session.scenarioChanged, self._on_scenario)
        self.listen(self.session.headChanged, lambda _h: self._end_run())
        self._restore_state()
        self._settings_changed()

    def hint_for(self, result) -> str | None:
        if self.session.model_doc is not None:
            return self.model_hint
        return super().hint_for(result)

    # ----- the target -------------------------------------------------------------------------
    def set_target_from_combos(self) -> bool:
        """The target "query looks at key", from the two boxes (replacing any other target)."""
        i, j = self.queryCombo.currentIndex(), self.keyCombo.currentIndex()
        return self._set_target(lambda s: training.target_from_cells(s, [(i, j)]))

    def toggle_cell(self, i: int, j: int) -> bool:
        """Add cell (i, j) to the target, or take it out again."""
        cells = set(target_cells(self.session.train_target))
        cells ^= {(i, j)}
        if not cells:
            self.session.set_train_target(None)
            return True
        return self._set_target(lambda s: training.target_from_cells(s, sorted(cells)))

    def _set_target(self, make) -> bool:
        try:
            target = make(self.session.scenario)
        except ScenarioError as exc:
            self.say(str(exc))
            return False
        self.session.set_train_target(target)
        return True

    def _on_target(self, target) -> None:
        if target is None and self.timer.isActive():
            self.pause()
        if self._trainer is not None and target is not None:
            self._trainer.target = target  # the run goes on towards the new target
            self._settings_changed()  # (and the target output follows its rows)
        if self._result_shown():
            show_target(self.image, target)
            if target is not None:  # the boxes show the target's first cell (as after a repaint)
                i, j = target_cells(target)[0]
                if i < self.queryCombo.count() and j < self.keyCombo.count():
                    self.queryCombo.setCurrentIndex(i)
                    self.keyCombo.setCurrentIndex(j)
            self._update_status()

    # ----- settings -----------------------------------------------------------------------------
    def learned(self) -> tuple:
        """What the steps change: names of ``training.TRAINABLE``."""
        return tuple(name for name, _text in LEARNABLE if self.learnChecks[name].isChecked())

    def output_target(self):
        """The target output (n x d_v; NaN rows have none) for W^V, or None. Raises ScenarioError."""
        if not self.learnChecks["w_v"].isChecked():
            return None
        s = self.session.scenario
        target = self.session.train_target
        try:
            values = parse_numbers(self.outputEdit.text())
        except ValueError as exc:
            raise ScenarioError(f"target output: {exc}") from None
        if len(values) != s.d_v:
            raise ScenarioError(f"target output: type {s.d_v} numbers (one per value coordinate), "
                                f"e.g. {', '.join(['1'] + ['0'] * (s.d_v - 1))}")
        y = np.full((s.n, s.d_v), np.nan)
        if target is not None:
            y[np.asarray(target).sum(axis=1) > 0] = values
        return y

    def _settings_changed(self, *_args) -> None:
        s = self.session.scenario
        self._save_state()
        wv = self.learnChecks["w_v"].isChecked()
        self.outputLabel.setVisible(wv)
        self.outputEdit.setVisible(wv)
        self.outputEdit.setPlaceholderText(f"{s.d_v} numbers, e.g. {', '.join(['1'] + ['0'] * (s.d_v - 1))}")
        if self._trainer is not None:
            try:
                self._configure(self._trainer)
            except ScenarioError as exc:
                self.say(str(exc))
                self.pause()

    def _configure(self, trainer: training.Trainer) -> None:
        what = self.learned()
        if not what:
            raise ScenarioError("choose at least one thing to learn (W^Q, W^K, ...)")
        trainer.lr = float(self.lrSpin.value())
        trainer.momentum = float(self.momentumSpin.value())
        trainer.what = what
        trainer.output_target = self.output_target()
        trainer.output_weight = OUTPUT_WEIGHT if trainer.output_target is not None else 0.0

    # ----- running ------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.timer.isActive()

    def _ensure_run(self) -> bool:
        """A run to continue, or a new one from the scenario now; False (and why) when it cannot start."""
        s = self.session.scenario
        if self.session.model_doc is not None:
            self.say(self.model_hint)
            return False
        if self.session.train_target is None and not self.set_target_from_combos():
            return False
        if self._run is not None:
            return True
        trainer = training.Trainer(self.session.train_target, head=self.session.head)
        try:
            self._configure(trainer)
            training.loss(s, trainer.target, trainer.head, trainer.output_target, trainer.output_weight)
        except ScenarioError as exc:
            self.say(str(exc))
            return False
        self._run, self._start, self._trainer = object(), s, trainer
        self._expected = s
        self.losses = []
        self.steps_done = 0
        self._goal = 0
        return True

    def train(self) -> bool:
        """Run ``steps`` more steps on the timer (or go on after a pause)."""
        if not self._ensure_run():
            self._set_train_button(False)
            return False
        self._goal = self.steps_done + self.stepsSpin.value()
        self._last_tick = None
        self._set_train_button(True)
        self.timer.start()
        return True

    def pause(self) -> None:
        """Stop the steps; what was learned stays (rounded to the grids' two decimals)."""
        was = self.timer.isActive()
        self.timer.stop()
        self._set_train_button(False)
        if was or self._run is not None:
            self._round()

    def one_step(self) -> bool:
        """Take one step (pausing a run under way)."""
        if self.timer.isActive():
            self.pause()
        if not self._ensure_run():
            return False
        self._goal = self.steps_done + 1
        ok = self._advance(1)
        self._round()
        return ok

    def reset(self) -> None:
        """Back to where the run started (the run leaves no undo step then)."""
        self.timer.stop()
        self._set_train_button(False)
        if self._run is not None:
            self._expected = self._start
            self.session.train_to(self._start, self._run)
        self._end_run()
        self.losses = []
        self.steps_done = 0
        self._save_state()
        self._show_curve()
        self._update_status()

    def random_start(self) -> bool:
        """New random W^Q and W^K (every head), drawn from a new seed: one undo step."""
        self.pause()
        self._end_run()
        s = self.session.scenario
        self._random_seed += 1
        seed = s.seed + 1000 * self._random_seed
        w_q = head_grids("q", s.d_model, s.d_k, s.n_heads, seed)
        w_k = head_grids("k", s.d_model, s.d_k, s.n_heads, seed)
        return self.session.try_apply(lambda: s.with_options(w_q=w_q, w_k=w_k), "random W^Q and W^K")

    def _set_train_button(self, on: bool) -> None:
        self.trainButton.blockSignals(True)
        self.trainButton.setChecked(on)
        self.trainButton.setText("Pause \u23f8" if on else "Train \u25b6")
        self.trainButton.blockSignals(False)

    def _tick(self) -> None:
        now = time.monotonic()
        period = TICK_MS / 1000.0 if self._last_tick is None else now - self._last_tick
        self._last_tick = now
        count = max(1, min(MAX_STEPS_PER_TICK, round(period * STEPS_PER_SECOND)))
        if not self._advance(count) or self.steps_done >= self._goal:
            self.pause()

    def _advance(self, count: int) -> bool:
        """Take up to ``count`` steps and hand the session where they end; False when a step failed."""
        s = self.session.scenario
        try:
            for _ in range(count):
                if self.steps_done >= self._goal:
                    break
                s, value = self._trainer.step(s)
                self.losses.append(value)
                self.steps_done += 1
        except ScenarioError as exc:
            self.say(str(exc))
            return False
        self._hand_over(s)
        self._save_state()
        self._show_curve()
        return True

    def _round(self) -> None:
        if self._run is None or self._trainer is None:
            return
        s = self.session.scenario
        rounded = training.rounded(s, self._trainer.what)
        if rounded != s:
            self._hand_over(rounded)

    def _hand_over(self, s) -> None:
        self._expected = s
        self.session.train_to(s, self._run)

    def _end_run(self) -> None:
        """Forget the run (the numbers stay): the next Train starts a new one, a new undo step."""
        if self.timer.isActive():
            self.timer.stop()
            self._set_train_button(False)
        self._run = self._trainer = self._start = None

    def _on_scenario(self, scenario) -> None:
        if scenario is self._expected:
            return
        # Something else changed the numbers (an edit, undo, another example): the run is over.
        self._end_run()
        if (scenario.tokens, scenario.key_tokens) != self._tokens:
            self.losses = []
            self.steps_done = 0
            self._show_curve()

    # ----- what is shown ----------------------------------------------------------------------------
    def say(self, text: str) -> None:
        """A one-line message where the teacher looks: the status line under the buttons."""
        self.status.setText(f"<span style='color:{self.colours.warn}'>{text}</span>")
        self.session.message.emit(text)

    def _result_shown(self) -> bool:
        return not self._stale and not self.showing_hint()

    def _fill_combos(self, s) -> None:
        tokens = (s.tokens, s.key_tokens)
        if tokens == self._tokens:
            return
        self._tokens = tokens
        for combo, names in ((self.queryCombo, s.tokens), (self.keyCombo, s.key_tokens)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems([f"{k + 1} '{t}'" for k, t in enumerate(names)])
            combo.blockSignals(False)

    def show_result(self, result, selection) -> None:
        s = self.session.scenario
        self._fill_combos(s)
        target = self.session.train_target
        # the boxes show the target's first cell, or (no target yet) follow the selected pair
        i, j = target_cells(target)[0] if target is not None else (selection.query, selection.key)
        self.queryCombo.setCurrentIndex(i)
        self.keyCombo.setCurrentIndex(j)
        n, m = result.n, result.n_keys
        masked = result.masked_by if result.masked_by.any() else None
        self.image.setData(result.weights, (0.0, 1.0), masked_by=masked)
        self.image.setRect(QtCore.QRectF(0, 0, m, n))
        show_target(self.image, target)
        self.image.set_outlines({"cell": None})
        self._set_axes(result)
        self.vb.setRange(xRange=(0, m), yRange=(0, n), padding=0.0)
        self._show_curve()
        self._update_status()

    def _set_axes(self, result) -> None:
        bottom = self.plot.getAxis("bottom")
        metrics = QtGui.QFontMetricsF(bottom.style.get("tickFont") or self._tick_font)  # the theme's size
        keys = [short_token(t) for t in result.key_tokens]
        queries = [short_token(t) for t in result.tokens]
        cells = target_cells(self.session.train_target)
        height = max(1.0, self.vb.height() or 200.0)
        step = label_step((metrics.height() + 1) * len(queries) / height)
        rows = named(len(queries), step, {i for i, _ in cells})
        set_ticks(self.plot.getAxis("left"), [[(k + 0.5, queries[k]) for k in rows]])
        width = max(1.0, self.vb.width() or 300.0)
        kstep = label_step((metrics.height() + 1) * len(keys) / width)
        columns = named(len(keys), kstep, {j for _, j in cells})
        set_ticks(bottom, [[(k + 0.5, keys[k]) for k in columns]])
        longest = max((metrics.horizontalAdvance(t) for t in keys), default=0.0)
        bottom.set_turned(True, longest)

    def _show_curve(self) -> None:
        """The loss of every step taken, as a line (set again only when there are new points)."""
        drawn = (id(self.losses), len(self.losses))  # a new run starts a new list
        if self._drawn == drawn:
            return
        self._drawn = drawn
        if self.losses:
            steps = np.arange(1, len(self.losses) + 1, dtype=float)
            self.curve.setData(steps, np.asarray(self.losses, dtype=float))
        else:
            self.curve.setData([], [])

    def _update_status(self) -> None:
        s = self.session.scenario
        target = self.session.train_target
        if target is None:
            self.status.setText("No target yet: click cells of the grid, or choose a query and a key and "
                                "press <b>Set</b> (<b>Train</b> sets it too).")
            return
        result = self.session.result
        cells = target_cells(target)
        i, j = cells[0]
        try:
            now = training.loss(s, target, self.session.head)
        except ScenarioError as exc:
            self.status.setText(f"<span style='color:{self.colours.warn}'>{exc}</span>")
            return
        pairs = f"'{s.tokens[i]}' \u2192 '{s.key_tokens[j]}'"
        more = f" and {len(cells) - 1} more cell{'s' if len(cells) > 2 else ''}" if len(cells) > 1 else ""
        start = f" (from {explain.fixed(self.losses[0], 3)})" if self.losses else ""
        self.status.setText(
            f"Target: {pairs}{more} (dashed outlines). Step {self.steps_done}: loss L = "
            f"{explain.fixed(now, 3)}{start}; weight of {pairs} = {explain.fixed(float(result.weights[i, j]), 2)} "
            f"(target {explain.trimmed(float(target[i, j]), 2)}).")

    # ----- kept for the lesson and for a fresh copy (figure export) -----------------------------------
    def _save_state(self) -> None:
        self.session.lab_state[LAB_STATE_KEY] = {
            "losses": list(self.losses), "steps": self.steps_done, "lr": float(self.lrSpin.value()),
            "loss_start": self.losses[0] if self.losses else None,
        }

    def _restore_state(self) -> None:
        state = self.session.lab_state.get(LAB_STATE_KEY) or {}
        self.losses = [float(v) for v in state.get("losses", [])]
        self.steps_done = int(state.get("steps", len(self.losses)))
        if state.get("lr"):
            self.lrSpin.blockSignals(True)
            self.lrSpin.setValue(float(state["lr"]))
            self.lrSpin.blockSignals(False)
        self._tokens = None
