"""The one state object: the current Scenario, its AttentionResult, the selection and the undo stack.

Every edit comes here; widgets never talk to each other. A burst of edits is
coalesced: the scenario changes at once, the recompute and the
``resultChanged`` signal happen once, on the next turn of the event loop
(reading ``session.result`` before then computes it on the spot).

Every change of the scenario is one step on ``undo_stack`` (a QUndoStack);
typing in the sentence merges into one step until the typist pauses.

With a trained model open (``open_model``) the document is a ``ModelDoc`` (the model, the sentence and
the what-if edits) instead of a Scenario: every change runs the model again (``ForwardRunner``: on a
worker thread when it is slow), and the chosen layer and head give the one-head Scenario the panels
draw. Edits of W^Q, W^K, W^V, a bias or x become edits of that layer and head of the checkpoint.

The "Learn the weights" experiment hands the session each step of a run with ``train_to``: every step
of one run merges into one undo step. Its target (where each query should look) is ``train_target``,
outlined on the heatmaps. In a designed example, a word typed over another takes that word's features;
when the typist pauses, ``newWordsNoted`` says so ("'dog' took the features of 'animal'").
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6 import QtCore, QtGui

import numpy as np

from qkv_engine import (MAX_TOKENS, AttentionResult, ModelEdits, MultiHeadResult, Scenario, ScenarioError,
                        compute_heads, data_export, new_words, parse_number, presets, softmax, trace_words,
                        views, what_if)

from .forward_runner import ForwardRunner
from .model_document import ModelDoc


#: Sentence edits closer together than this (seconds) merge into one undo step.
TYPING_PAUSE = 1.0
_SENTENCE_ID = 1
_TRAINING_ID = 2


class _Edit(QtGui.QUndoCommand):
    """One undoable change: the scenario (and preset name) before and after."""

    def __init__(self, session: "Session", old, new, label: str, merge: bool):
        super().__init__(label)
        self.session = session
        self.old, self.new = old, new
        self.merge = merge
        self.stamp = time.monotonic()

    def id(self):
        return _SENTENCE_ID if self.merge else -1

    def mergeWith(self, other):
        if not (other.merge and self.merge) or other.stamp - self.stamp > TYPING_PAUSE:
            return False
        self.new = other.new
        self.stamp = other.stamp
        return True

    def redo(self):
        self.session._set(*self.new)

    def undo(self):
        self.session._set(*self.old)


class _TrainingEdit(_Edit):
    """One step of a training run; the steps of the same run merge into one undo step. A run that
    ends where it started (reset) leaves no undo step at all."""

    def __init__(self, session: "Session", old, new, label: str, run):
        super().__init__(session, old, new, label, merge=False)
        self.run = run

    def id(self):
        return _TRAINING_ID

    def mergeWith(self, other):
        if not isinstance(other, _TrainingEdit) or other.run is not self.run:
            return False
        self.new = other.new
        self.setObsolete(self.new[0] is self.old[0] or self.new[0] == self.old[0])
        return True


#: What an edit of each grid is called in the undo history.
GRID_NAMES = {"w_q": "W^Q", "w_k": "W^K", "w_v": "W^V", "w_o": "W^O", "b_q": "b^Q", "b_k": "b^K", "b_v": "b^V"}
#: The grids of a model's head that can be edited (x is the layer's attention input).
MODEL_GRIDS = ("w_q", "w_k", "w_v", "b_q", "b_k", "b_v")


@dataclass(frozen=True)
class ModelViewData:
    """What the model view draws: every layer's and head's weights, and which head is chosen."""

    weights: object  # L x H x n x n
    allowed: object  # n x n bool
    tokens: tuple
    layer: int
    head: int
    knocked_out: frozenset
    name: str


@dataclass(frozen=True, eq=False)
class PredictionTarget:
    """A token pinned in the prediction panel: followed through every edit until unpinned or the sentence changes."""

    position: int  # the token position (0-based) whose prediction it is
    token_id: int
    text: str  # as shown
    tokens: tuple  # the sentence's tokens when pinned
    model: int  # id() of the model it was pinned on
    before: object  # vocab float64, read-only: every token's probability when pinned ("before")


@dataclass(frozen=True, eq=False)
class HeadEffects:
    """head_effects for the pinned target: deltas[l, h] = change in log p(target) when head h of layer l alone is
    knocked out (negative: the head helped)."""

    target: PredictionTarget
    mode: str  # "zero" or "mean"
    deltas: object  # L x H float64, read-only
    key: tuple  # the ModelDoc key (model, sentence, edits) they were worked out on


@dataclass(frozen=True)
class Selection:
    query: int = 0  # row i: the token that is looking
    key: int = 0  # column j: the token being looked at


class Session(QtCore.QObject):
    resultChanged = QtCore.Signal(object)  # AttentionResult, after each recompute
    selectionChanged = QtCore.Signal(object)  # Selection
    scenarioChanged = QtCore.Signal(object)  # Scenario, at once after an edit (before the recompute)
    message = QtCore.Signal(str)  # a short note for the status line (e.g. why an edit was refused)
    headChanged = QtCore.Signal(int)  # the head every panel shows (0-based), after a change
    pinnedChanged = QtCore.Signal(object)  # the pinned AttentionResult ("A" of compare), or None
    colourScaleChanged = QtCore.Signal(str)  # how weights become colours: "absolute", "auto" or "row"
    modelChanged = QtCore.Signal(object)  # the ModelDoc now (a model opened, edited, run), or None (hand-made)
    modelViewChanged = QtCore.Signal(object)  # model_view_data, after it changes (a new trace, layer or head)
    busyChanged = QtCore.Signal(bool)  # a slow forward of the model runs (True) or has landed (False)
    trainTargetChanged = QtCore.Signal(object)  # the training target (n x m, read-only), or None
    newWordsNoted = QtCore.Signal(str)  # what newly typed words got, once the typist pauses (designed examples)
    targetChanged = QtCore.Signal(object)  # the pinned PredictionTarget, or None (the prediction's block below)
    headEffectsChanged = QtCore.Signal(object)  # the HeadEffects of the pinned target, or None
    # words and generation (the block "words, not pieces; generation" below)
    wordViewChanged = QtCore.Signal(bool)  # the word view was switched on or off
    generatingChanged = QtCore.Signal(bool)  # a "Generate N" run started (True) or ended (False)

    def __init__(self, scenario: Scenario | None = None, parent=None):
        super().__init__(parent)
        self._scenario = scenario if scenario is not None else presets.load(presets.DEFAULT)
        self._full: MultiHeadResult | None = None
        self._head = 0
        self._selection = Selection()
        self._emit_pending = False
        self.model_example: str | None = None  # see open_model
        self.preset_name: str | None = None
        self.undo_stack = QtGui.QUndoStack(self)
        self.recompute_count = 0  # how many times compute() ran (for tests and benchmarks)
        self._pinned: AttentionResult | None = None
        #: Settings of experiment panels (e.g. the lab's d_k and seed), so that a fresh copy of a
        #: panel (figure export) shows what the one on screen shows. Panels own their keys.
        self.lab_state: dict = {}
        # The trained-model mode (None: the hand-made mode).
        self._model_doc: ModelDoc | None = None
        self._trace = None  # the ModelTrace of the document's last landed forward
        self._model_layer = 0
        self._model_head = 0
        self._hand_made: tuple | None = None  # (scenario, preset) to go back to
        self.runner = ForwardRunner(self)
        self.runner.traceReady.connect(self._on_trace)
        self.runner.failed.connect(self._on_forward_failed)
        self.runner.busyChanged.connect(self.busyChanged)
        self._colour_scale = "auto"
        self._train_target = None  # n x m: where each query should look ("Learn the weights"), or None
        self._typing_from: Scenario | None = None  # the scenario before a burst of typing
        self._words_timer = QtCore.QTimer(self)
        self._words_timer.setSingleShot(True)
        self._words_timer.timeout.connect(self._note_new_words)
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.flush)
        self._init_prediction()
        self._init_words_and_generation()
        self._schedule()

    # ----- reading ------------------------------------------------------------------------
    @property
    def scenario(self) -> Scenario:
        return self._scenario

    @property
    def full_result(self) -> MultiHeadResult:
        """Every head, their outputs side by side and the output after W^O."""
        if self._full is None or self._full.scenario is not self._scenario:
            self._full = compute_heads(self._scenario)
            self.recompute_count += 1
        return self._full

    @property
    def result(self) -> AttentionResult:
        """The chosen head's result: what every panel draws (``result.scenario`` is that head alone)."""
        full = self.full_result
        return full.heads[min(self._head, full.n_heads - 1)]

    @property
    def head(self) -> int:
        """The head every panel shows (0-based; always 0 with one head)."""
        return min(self._head, self._scenario.n_heads - 1)

    def set_head(self, head: int) -> None:
        """Show head ``head`` in every panel (a view choice, not an edit: no undo step)."""
        head = max(0, min(int(head), self._scenario.n_heads - 1))
        if head != self._head:
            self._head = head
            self.headChanged.emit(head)
            self._schedule()

    @property
    def colour_scale(self) -> str:
        """How weight pictures colour their cells: "absolute" (0 to 1), "auto" (0 to the largest weight
        shown) or "row" (each row to its own largest). A view setting, not an edit: no undo step."""
        return self._colour_scale

    def set_colour_scale(self, mode: str) -> None:
        if mode not in views.COLOUR_SCALES:
            raise ValueError(f"colour scale: expected one of {views.COLOUR_SCALES}, got {mode!r}")
        if mode != self._colour_scale:
            self._colour_scale = mode
            self.colourScaleChanged.emit(mode)

    @property
    def selection(self) -> Selection:
        return self._selection

    @property
    def pinned(self) -> AttentionResult | None:
        """The result pinned as "A" for comparing, or None."""
        return self._pinned

    def pin(self, result: AttentionResult | None = None) -> None:
        """Pin ``result`` (default: the current result) as "A"; ``pin(None)`` after ``unpin``."""
        self._pinned = self.result if result is None else result
        self.pinnedChanged.emit(self._pinned)

    def unpin(self) -> None:
        self._pinned = None
        self.pinnedChanged.emit(None)

    # ----- the edit funnel ----------------------------------------------------------------
    def apply(self, scenario: Scenario, label: str = "edit", preset: str | None | bool = False,
              merge: bool = False) -> None:
        """Make ``scenario`` current as one undoable step named ``label``.

        ``preset`` gives the new preset name (False: keep the current one).
        The recompute follows on the next event-loop turn.
        """
        new_preset = self.preset_name if preset is False else preset
        old = (self.document, self.preset_name)
        self.undo_stack.push(_Edit(self, old, (scenario, new_preset), label, merge))

    @property
    def document(self):
        """What one undo step holds: the Scenario (hand-made mode) or the ModelDoc (model mode)."""
        return self._model_doc if self._model_doc is not None else self._scenario

    def _set(self, document, preset: str | None) -> None:
        if isinstance(document, ModelDoc):
            entering = self._model_doc is None
            self._model_doc = document
            self.preset_name = None
            if entering:
                self._trace = None
            self.modelChanged.emit(document)
            self.runner.request(document)  # the panels follow when the trace lands (_on_trace)
            return
        leaving = self._model_doc is not None
        self._model_doc = None
        self._trace = None
        if (document.tokens, document.key_tokens) != (self._scenario.tokens, self._scenario.key_tokens):
            self.set_train_target(None)  # its cells named other tokens
        self._scenario = document
        self.preset_name = preset
        self._schedule()  # first: panels told of the changes below wait for the result (update_queue)
        if leaving:
            self.runner.forget()
            self.modelChanged.emit(None)
            self.modelViewChanged.emit(self.model_view_data)
        self._clamp_selection()
        self.scenarioChanged.emit(document)

    def set_scenario(self, scenario: Scenario, view: dict | None = None, preset: str | None = None) -> None:
        """Open a new document: no undo history, nothing unsaved."""
        self._typing_from = None
        self._set(scenario, preset)
        self.undo_stack.clear()
        self.undo_stack.setClean()
        view = view or {}
        try:
            self.select(int(view.get("query", 0) or 0), int(view.get("key", 0) or 0))
        except (TypeError, ValueError):
            self.select(0, 0)
        try:
            self.set_head(int(view.get("head", 0) or 0))
        except (TypeError, ValueError):
            self.set_head(0)
        if view.get("colour_scale") in views.COLOUR_SCALES:
            self.set_colour_scale(view["colour_scale"])

    def load_preset(self, name: str) -> None:
        """Switch to a preset as one undoable step. A designed example selects the first pair its note
        speaks of (e.g. 'it' looking at 'animal')."""
        self._typing_from = None
        self.apply(presets.load(name), f"open preset {name}", preset=name)
        self.select_promised_pair(name)

    def select_promised_pair(self, name: str) -> None:
        """Select the first (query, key) pair the note of preset ``name`` speaks of, if it has one."""
        pairs = presets.get(name).pairs if name in presets.names() else ()
        if pairs:
            self.select(*pairs[0])

    def view_state(self) -> dict:
        """What a session file keeps besides the scenario."""
        view = {"query": self._selection.query, "key": self._selection.key, "preset": self.preset_name,
                "head": self.head, "colour_scale": self._colour_scale}
        if self._model_doc is not None:
            view.update(layer=self._model_layer, head=self._model_head)
        return view

    def try_apply(self, make, label: str, merge: bool = False) -> bool:
        """Run ``make()`` to build a new scenario; on ScenarioError keep the old one and say why."""
        if self._model_doc is not None:
            self.message.emit(f"A trained model fixes this ({label}): open the hand-made example "
                              "(File menu) to change it.")
            return False
        try:
            new = make()
        except ScenarioError as exc:
            self.message.emit(str(exc))
            return False
        if new == self._scenario:
            return True
        self.apply(new, label, merge=merge)
        return True

    def set_text(self, text: str) -> None:
        doc = self._model_doc
        if doc is not None:
            if text != doc.text:
                self.apply(doc.with_text(text), "typing in the sentence", merge=True)
            return
        if text == self._scenario.text:
            return
        before = self._scenario
        if not self.try_apply(lambda: self._scenario.with_text(text), "typing in the sentence", merge=True):
            return
        if self._typing_from is None:
            self._typing_from = before
        self._words_timer.start(int(TYPING_PAUSE * 1000))
        if self._scenario.dropped:
            self.message.emit(
                f"Kept the first {self._scenario.n} tokens; {self._scenario.dropped} more were left out "
                f"(the limit is {MAX_TOKENS})."
            )

    def _note_new_words(self) -> None:
        """The typist paused: in a designed example, say what each new word got (``new_words.describe``)."""
        before, self._typing_from = self._typing_from, None
        after = self._scenario
        if before is None or self._model_doc is not None or after.new_tokens == "random":
            return
        notes = new_words.describe(before, after)
        if notes:
            text = "; ".join(notes) + "."
            self.newWordsNoted.emit(text)
            self.message.emit(text)

    def set_feature_name(self, dim: int, name: str) -> bool:
        """Call embedding dimension ``dim`` (0-based) ``name``, e.g. "animate"; "" goes back to x1, x2, ..."""
        label = f"name x{dim + 1} '{name.strip()}'" if name.strip() else f"clear the name of x{dim + 1}"
        return self.try_apply(lambda: self._scenario.with_feature_name(dim, name), label)

    def set_column_name(self, which: str, col: int, name: str) -> bool:
        """Call column ``col`` of W^Q, W^K or W^V (``which``: "q", "k", "v"; every head's columns counted
        together) ``name``, e.g. "looks for animate"; "" goes back to q1, q2, ..."""
        label = f"name {which}{col + 1} '{name.strip()}'" if name.strip() else f"clear the name of {which}{col + 1}"
        return self.try_apply(lambda: self._scenario.with_column_name(which, col, name), label)

    # ----- learning the weights --------------------------------------------------------------
    @property
    def train_target(self):
        """Where each query should look (n x m, rows summing to 1 or 0), or None: set by the experiment."""
        return self._train_target

    def set_train_target(self, target) -> None:
        """Set (or, with None, clear) the training target; the heatmaps outline its cells. A view
        setting, not an edit: no undo step. It is cleared when the tokens change."""
        if target is not None:
            target = np.array(target, dtype=np.float64)
            if target.shape != (self._scenario.n, self._scenario.n_keys):
                raise ValueError(f"target: expected {self._scenario.n} x {self._scenario.n_keys}, got {target.shape}")
            target.setflags(write=False)
        old = self._train_target
        if target is None and old is None:
            return
        if target is not None and old is not None and np.array_equal(target, old):
            return
        self._train_target = target
        self.trainTargetChanged.emit(target)

    def train_to(self, scenario: Scenario, run, label: str = "learn the weights") -> bool:
        """Make ``scenario`` (the next step of a training run) current. Every step of the same ``run``
        (any object, the same one for the whole run) merges into one undo step while nothing else is
        edited in between; a run brought back to its start leaves no step."""
        if self._model_doc is not None:
            self.message.emit("Learning the weights works on the hand-made examples: "
                              "open one from the File menu first.")
            return False
        old = (self.document, self.preset_name)
        self.undo_stack.push(_TrainingEdit(self, old, (scenario, self.preset_name), label, run))
        return True

    def set_cell(self, matrix: str, row: int, col: int, text_or_value) -> bool:
        """Set one number of x, w_q, w_k or w_v from typed text (or a float).

        Text that is not a finite number in range keeps the old value; the
        reason goes to ``message`` and the method returns False.
        """
        try:
            value = parse_number(text_or_value) if isinstance(text_or_value, str) else float(text_or_value)
            if not isinstance(text_or_value, str):
                parse_number(repr(value))
        except ValueError as exc:
            self.message.emit(f"Kept the old value: {exc}")
            return False
        if self._model_doc is not None:
            return self._set_model_cell(matrix, row, col, value)
        names = {"x": f"edit x of '{self._scenario.tokens[row]}'" if 0 <= row < self._scenario.n else "edit x",
                 "source_x": "edit x of a source token", **{m: f"edit {g}" for m, g in GRID_NAMES.items()}}
        return self.try_apply(lambda: self._scenario.with_cell(matrix, row, col, value),
                              f"{names.get(matrix, 'edit')} [{row + 1},{col + 1}]")

    def set_dims(self, d_model=None, d_k=None, d_v=None) -> bool:
        return self.try_apply(lambda: self._scenario.with_dims(d_model, d_k, d_v), "change dimensions")

    def set_seed(self, seed: int) -> bool:
        return self.try_apply(lambda: self._scenario.reseeded(int(seed)), f"seed {int(seed)}")

    def set_option(self, **changes) -> bool:
        label = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in changes.items())
        return self.try_apply(lambda: self._scenario.with_options(**changes), f"set {label}")

    def set_rotary(self, on: bool | None = None, theta: float | None = None) -> bool:
        """Rotary positions on or off, and/or their θ (one undoable step)."""
        changes = {} if on is None else {"rotary": bool(on)}
        if theta is not None:
            changes["rope_theta"] = float(theta)
        label = ("rotary positions " + ("on" if on else "off")) if on is not None else f"θ = {theta:.10g}"
        return self.try_apply(lambda: self._scenario.with_options(**changes), label)

    def set_heads(self, n_heads: int) -> bool:
        return self.try_apply(lambda: self._scenario.with_heads(int(n_heads)), f"{int(n_heads)} heads")

    def set_source(self, text: str | None) -> bool:
        """Cross-attention with ``text`` as the source sentence; None: back to self-attention."""
        if text is not None and text == self._scenario.source_text and self._scenario.is_cross:
            return True
        label = "self-attention" if text is None else "typing in the source sentence"
        ok = self.try_apply(lambda: self._scenario.with_source(text), label, merge=text is not None)
        if ok and self._scenario.source_dropped:
            self.message.emit(f"Kept the first {self._scenario.n_keys} source tokens; "
                              f"{self._scenario.source_dropped} more were left out (the limit is {MAX_TOKENS}).")
        return ok

    def toggle_padding(self, key: int) -> bool:
        """Mark key token ``key`` as padding, or as a real token again."""
        on = key not in self._scenario.padding
        name = self._scenario.key_tokens[key] if 0 <= key < self._scenario.n_keys else key
        return self.try_apply(lambda: self._scenario.with_padding(key, on),
                              f"{'mark' if on else 'unmark'} '{name}' as padding")

    def toggle_blocked(self, query: int, key: int) -> bool:
        """Block the cell query ``query`` -> key ``key`` by hand, or open it again."""
        on = (query, key) not in self._scenario.blocked
        return self.try_apply(lambda: self._scenario.with_blocked(query, key, on),
                              f"{'block' if on else 'unblock'} cell [{query + 1},{key + 1}]")

    def clear_masks(self) -> bool:
        return self.try_apply(lambda: self._scenario.without_masks(), "clear padding and blocked cells")

    def select(self, query: int | None = None, key: int | None = None) -> None:
        n, m = self._scenario.n, self._scenario.n_keys
        q = self._selection.query if query is None else query
        k = self._selection.key if key is None else key
        new = Selection(max(0, min(q, n - 1)) if n else 0, max(0, min(k, m - 1)) if m else 0)
        if new != self._selection:
            self._selection = new
            self.selectionChanged.emit(new)

    # ----- the trained-model mode ------------------------------------------------------------
    @property
    def model_doc(self) -> ModelDoc | None:
        """The open model, its sentence and edits; None in the hand-made mode."""
        return self._model_doc

    @property
    def model_trace(self):
        """The ModelTrace the panels show now (the last forward that landed), or None."""
        return self._trace

    @property
    def model_layer(self) -> int:
        return self._model_layer

    @property
    def model_head(self) -> int:
        return self._model_head

    @property
    def model_view_data(self) -> ModelViewData | None:
        """Every layer's and head's weights for the model view, or None (hand-made mode, or no trace yet)."""
        doc, trace = self._model_doc, self._trace
        if doc is None or trace is None:
            return None
        return ModelViewData(weights=trace.weights, allowed=trace.allowed, tokens=trace.tokens,
                             layer=self._model_layer, head=self._model_head,
                             knocked_out=frozenset(doc.edits.knocked_out), name=doc.model.info.name)

    def model_source(self):
        """Which trained model, sentence, edits, layer and head the panels show (for exports), or None."""
        doc = self._model_doc
        if doc is None:
            return None
        return data_export.ModelSource(doc.model.info, doc.text, doc.edits, self._model_layer, self._model_head)

    def open_model(self, model, text: str | None = None, view: dict | None = None,
                   edits: ModelEdits | None = None, example: str | None = None) -> None:
        """Make ``model`` (with ``edits``, from a session file) the document: a new document, no undo
        history. The hand-made scenario is kept for ``close_model``. The first forward runs at once, so
        the panels show the model straight away."""
        if self._model_doc is None:
            self._hand_made = (self._scenario, self.preset_name)
        self.model_example = example  # the model example opened (its note shows beside the sentence), or None
        view = view or {}
        text = (self._scenario.text or "") if text is None else text
        self._model_layer = _clamp(view.get("layer", 0), model.info.n_layers)
        self._model_head = _clamp(view.get("head", 0), model.info.n_heads)
        sync, self.runner.sync = self.runner.sync, True
        try:
            self._set(ModelDoc(model, text, edits if edits is not None else ModelEdits()), None)
        finally:
            self.runner.sync = sync
        self.undo_stack.clear()
        self.undo_stack.setClean()
        try:
            query = int(view["query"] or 0) if "query" in view else self._opening_query()
            self.select(query, int(view.get("key", 0) or 0))
        except (TypeError, ValueError):
            self.select(0, 0)

    def _opening_query(self) -> int:
        """The query a model opens at when no view says which: a decoder's last token (the word it writes next
        is guessed there, and its row sees the whole sentence, where the first token sees only itself); the
        first [MASK] for BERT (the word it fills in); else the first token."""
        trace = self._trace
        if trace is None or trace.n == 0:
            return 0
        if self._model_doc.model.info.causal:
            return trace.n - 1
        return list(trace.tokens).index("[MASK]") if "[MASK]" in trace.tokens else 0

    def close_model(self) -> None:
        """Back to the hand-made example that was open before the model (a new document)."""
        self.model_example = None
        if self._model_doc is None:
            return
        scenario, preset = self._hand_made or (presets.load(presets.DEFAULT), presets.DEFAULT)
        self._hand_made = None
        self.set_scenario(scenario, preset=preset)

    def select_model_head(self, layer: int, head: int) -> None:
        """Step into head ``head`` of layer ``layer`` (0-based): a view choice, not an edit."""
        doc = self._model_doc
        if doc is None:
            return
        layer, head = _clamp(layer, doc.model.info.n_layers), _clamp(head, doc.model.info.n_heads)
        if (layer, head) == (self._model_layer, self._model_head):
            return
        self._model_layer, self._model_head = layer, head
        self._show_head()

    def knock_out(self, layer: int, head: int, on: bool = True) -> bool:
        """Set head ``head`` of layer ``layer``'s output to zero (``on``), or bring it back: one undo step."""
        doc = self._model_doc
        if doc is None:
            return False
        edits = doc.edits.with_knockout(layer, head, on)
        if edits == doc.edits:
            return True
        self.apply(doc.with_edits(edits), f"{'knock out' if on else 'bring back'} layer {layer + 1} head {head + 1}")
        return True

    def reset_to_checkpoint(self) -> bool:
        """Undo every what-if edit of the model at once (one undo step)."""
        doc = self._model_doc
        if doc is None or doc.edits.is_empty():
            return False
        self.apply(doc.with_edits(ModelEdits()), "reset to the checkpoint")
        return True

    def _set_model_cell(self, matrix: str, row: int, col: int, value: float) -> bool:
        doc = self._model_doc
        layer, head = self._model_layer, self._model_head
        where = f"layer {layer + 1} head {head + 1}"
        if matrix in MODEL_GRIDS:
            edits = doc.edits.with_weight(layer, head, matrix, row, col, value)
            label = f"edit {GRID_NAMES[matrix]} of {where} [{row + 1},{col + 1}]"
        elif matrix == "x":
            edits = doc.edits.with_input(layer, row, col, value)
            tok = self._scenario.tokens[row] if 0 <= row < self._scenario.n else row
            label = f"edit x of '{tok}' entering layer {layer + 1} [{col + 1}]"
        else:
            self.message.emit(f"A trained model has no {GRID_NAMES.get(matrix, matrix)} to edit here.")
            return False
        if edits != doc.edits:
            self.apply(doc.with_edits(edits), label)
        return True

    def _on_trace(self, doc, trace) -> None:
        if doc != self._model_doc:
            return  # an older document's forward (undo or redo overtook it)
        before, self._trace = self._trace, trace
        first = before is None
        if trace.dropped:
            self.message.emit(f"Kept the first {len(trace.tokens)} tokens: {doc.model.info.limit_reason}; "
                              f"{trace.dropped} more were left out.")
        elif first and not trace.tokens:
            self.message.emit("Type a sentence: the model needs at least one token.")
        elif trace.unknown:
            words = ", ".join(f"'{w}'" for w in dict.fromkeys(trace.unknown))
            self.message.emit(f"The model does not know {words}: it reads {'it' if len(trace.unknown) == 1 else 'them'}"
                              f" as [UNK]. Help \u2192 Words the built-in model knows lists the words it knows.")
        elif before is not None and (before.dropped or before.unknown or not before.tokens):
            self.message.emit("")  # typed on: the last sentence's note (a half-typed word as [UNK]) is wrong now
        self._show_head()

    def _show_head(self) -> None:
        doc, trace = self._model_doc, self._trace
        if doc is None or trace is None:
            return
        self._scenario = doc.model.head_scenario(trace, self._model_layer, self._model_head)
        self._schedule()  # first: panels told of the changes below wait for the result (update_queue)
        self._clamp_selection()
        self.scenarioChanged.emit(self._scenario)
        self.modelViewChanged.emit(self.model_view_data)

    def _on_forward_failed(self, doc, reason: str) -> None:
        if doc == self._model_doc:
            self.message.emit(f"The model could not run: {reason}")

    # ----- the prediction: a pinned target, which heads matter, keeping only some heads --------------------
    # (the prediction panel and the model view read these; the numbers come from the engine)
    def _init_prediction(self) -> None:
        self._target: PredictionTarget | None = None
        self._effects: HeadEffects | None = None
        self.modelViewChanged.connect(self._follow_target)
        self.modelChanged.connect(self._follow_target)

    @property
    def target(self) -> "PredictionTarget | None":
        """The token pinned in the prediction panel (its probability is followed through every edit), or None."""
        return self._target

    def pin_target(self, position: int, token_id: int, text: str) -> bool:
        """Pin token ``token_id`` (shown as ``text``) at token ``position`` (0-based) of the current trace:
        its probability now is the "before" of every later edit. False when there is nothing to pin."""
        trace = self._trace
        if self._model_doc is None or trace is None or trace.output_head is None or not 0 <= position < trace.n:
            return False
        if not 0 <= int(token_id) < self._model_doc.model.arch.vocab_size:
            return False
        before = softmax(trace.logits_at(position))  # vocab: every token's probability when pinned
        before.setflags(write=False)
        self._target = PredictionTarget(int(position), int(token_id), str(text), trace.tokens, id(self._model_doc.model),
                                        before)
        self._set_effects(None)
        self.targetChanged.emit(self._target)
        return True

    def unpin_target(self) -> None:
        if self._target is None:
            return
        self._target = None
        self._set_effects(None)
        self.targetChanged.emit(None)

    def target_now(self):
        """Every token's probability at the pinned position in the trace shown now (vocab, float64), or None."""
        trace, target = self._trace, self._target
        if target is None or trace is None or trace.output_head is None or trace.tokens != target.tokens:
            return None
        return softmax(trace.logits_at(target.position))

    @property
    def head_effects(self) -> "HeadEffects | None":
        """The last "Which heads matter?" result for the pinned target, or None."""
        return self._effects

    def set_head_effects(self, deltas, mode: str, key) -> None:
        """Keep ``deltas`` (L x H: head_effects' change in log p of the pinned target when each head alone is
        knocked out, computed in ``mode`` on the document whose ``key`` is given) for the model view."""
        if self._target is None:
            return
        deltas = np.array(deltas, dtype=np.float64)
        deltas.setflags(write=False)
        self._set_effects(HeadEffects(self._target, mode, deltas, key))

    def effects_are_current(self) -> bool:
        """Whether the head effects were worked out on the edits and sentence shown now."""
        doc = self._model_doc
        return self._effects is not None and doc is not None and self._effects.key == doc.key

    def _set_effects(self, effects) -> None:
        if effects is None and self._effects is None:
            return
        self._effects = effects
        self.headEffectsChanged.emit(effects)

    def _follow_target(self, *_) -> None:
        """A new sentence or another model lets the pinned target go (its position named other tokens)."""
        target, doc, trace = self._target, self._model_doc, self._trace
        if target is None:
            return
        if doc is None or id(doc.model) != target.model or (trace is not None and trace.tokens != target.tokens):
            self.unpin_target()
            if doc is not None:
                self.message.emit(f"The sentence changed: '{target.text}' is no longer pinned.")

    def keep_only(self, heads, scope: str = "layer") -> bool:
        """Knock out every head but ``heads`` ((layer, head) pairs, 0-based) in their layers (``scope``
        "layer") or in the whole model ("model"); the kept heads are brought back. One undo step."""
        doc = self._model_doc
        heads = {(int(l), int(h)) for l, h in heads}
        if doc is None or not heads or scope not in ("layer", "model"):
            return False
        info = doc.model.info
        if any(not (0 <= l < info.n_layers and 0 <= h < info.n_heads) for l, h in heads):
            return False
        layers = range(info.n_layers) if scope == "model" else sorted({l for l, _h in heads})
        knocked = set(doc.edits.knocked_out)
        for layer in layers:
            for head in range(info.n_heads):
                (knocked.discard if (layer, head) in heads else knocked.add)((layer, head))
        edits = ModelEdits(weights=doc.edits.weights, inputs=doc.edits.inputs, knocked_out=frozenset(knocked))
        if edits == doc.edits:
            return True
        names = ", ".join(f"L{l + 1} H{h + 1}" for l, h in sorted(heads))
        where = "the whole model" if scope == "model" else ("its layer" if len(layers) == 1 else "their layers")
        self.apply(doc.with_edits(edits), f"keep only {names} in {where}")
        return True


    # ----- words, not pieces; generation -------------------------------------------------------------
    # The word view: a view setting (no undo step) that the heatmap and the rollout lab follow (the model view
    # may follow it too): a model's pieces are joined into words (``qkv_engine.merge_pieces``) and attention
    # between words is ``qkv_engine.word_weights`` (WORD_RULE). The selection stays in pieces: a word stands
    # for its first piece (``word_of`` and ``first_piece`` translate).
    #
    # Generation: a causal model with an output head appends its next token (``what_if.next_token`` on the
    # last row of the trace's logits; greedy at temperature 0, else sampled with numpy's generator seeded by
    # (seed, number of tokens so far), so the same seed from the same text writes the same, and "Generate N"
    # writes what N presses of "Generate" write). Each token is one undo step of its own. A run of N steps
    # takes one step each time the forward of the step before has landed, and stops at the end-of-text
    # token, at the model's max_tokens, at ``stop_generating`` or when another edit (an undo) comes first.

    #: The most tokens one "Generate N" may ask for.
    MAX_GENERATE = 500

    def _init_words_and_generation(self) -> None:
        self._word_view = False
        self._words = (None, None)  # (the trace they were merged from, its words)
        self._gen_left = 0  # steps still to take in a "Generate N" run
        self._gen_settings = (0.0, 0)  # (temperature, seed) of the run
        self._gen_expected = None  # the ModelDoc of the step taken last: its trace lets the run go on
        self._gen_ends: dict = {}  # id(model) -> (model, its end-of-text ids)
        self._gen_timer = QtCore.QTimer(self)
        self._gen_timer.setSingleShot(True)
        self._gen_timer.setInterval(0)
        self._gen_timer.timeout.connect(self._next_generated)
        self.runner.traceReady.connect(self._on_generated_trace)  # after _on_trace (connected first)

    @property
    def word_view(self) -> bool:
        """Whether the panels that follow it join a model's pieces into words (a view setting)."""
        return self._word_view

    def set_word_view(self, on: bool) -> None:
        on = bool(on)
        if on != self._word_view:
            self._word_view = on
            self.wordViewChanged.emit(on)

    @property
    def model_words(self) -> tuple | None:
        """The words of the trace shown (``qkv_engine.Word``: pieces and text), or None with no trace."""
        trace = self._trace
        if trace is None or self._model_doc is None:
            return None
        if self._words[0] is not trace:
            self._words = (trace, trace_words(trace))
        return self._words[1]

    @property
    def words_shown(self) -> tuple | None:
        """The words when the word view is on and a model's trace is shown, else None (pieces are shown)."""
        return self.model_words if self._word_view else None

    @staticmethod
    def word_of(words, piece: int) -> int:
        """The index of the word that holds piece ``piece``."""
        return next((a for a, w in enumerate(words) if piece in w.pieces), 0)

    def can_generate(self) -> tuple:
        """(True, "") when the open model can write its next token, else (False, why in a sentence)."""
        doc = self._model_doc
        if doc is None:
            return False, "Open a trained model that reads left to right (GPT-2, Llama, Qwen2) to generate text."
        info = doc.model.info
        if not info.causal:
            return False, (f"{info.name} reads the whole sentence at once (it sees the words after each word too), "
                           f"so it does not write the next word: generation needs a model that reads left to "
                           f"right (GPT-2, Llama, Qwen2).")
        trace = self._trace
        if trace is not None and trace.output_head is None:
            return False, f"{info.name} has no output head (its file holds only the layers): it cannot predict tokens."
        return True, ""

    @property
    def generating(self) -> bool:
        """Whether a "Generate N" run is going on."""
        return self._gen_left > 0

    @property
    def generate_left(self) -> int:
        return self._gen_left

    def generate(self, count=1, temperature=0.0, seed=0) -> bool:
        """Append the model's next ``count`` tokens (each one undo step; the first at once, the others as
        their forwards land). Bad numbers are refused with a message and change nothing."""
        ok, why = self.can_generate()
        if not ok:
            self.message.emit(why)
            return False
        try:
            count = _whole_number("number of tokens", count, 1, self.MAX_GENERATE)
            seed = _whole_number("seed", seed, 0, 2 ** 32 - 1)
            temperature = parse_temperature(temperature)
        except ValueError as exc:
            self.message.emit(f"Nothing generated: {exc}.")
            return False
        self.stop_generating()
        self._gen_settings = (temperature, seed)
        self._gen_left = count
        self._gen_expected = self._model_doc  # a forward of it still running: the first step waits for it
        self.generatingChanged.emit(True)
        self._next_generated()
        return True

    def stop_generating(self) -> None:
        """End a "Generate N" run (the tokens written so far stay)."""
        self._gen_timer.stop()
        self._gen_expected = None
        if self._gen_left:
            self._gen_left = 0
            self.generatingChanged.emit(False)

    def next_token_id(self, temperature: float, seed: int) -> int:
        """The token the model writes next after the trace shown (``what_if.next_token``)."""
        trace = self._trace
        rng = np.random.default_rng([int(seed), trace.n])
        return what_if.next_token(trace.logits_at(-1), float(temperature), rng)

    def _end_ids(self, model) -> frozenset:
        kept = self._gen_ends.get(id(model))
        if kept is None or kept[0] is not model:
            kept = (model, what_if.end_ids(model))
            self._gen_ends[id(model)] = kept
        return kept[1]

    def _next_generated(self) -> None:
        """Take one step of the run: the next token, appended to the text as one undo step."""
        doc, trace = self._model_doc, self._trace
        if self._gen_left <= 0 or doc is None:
            return self.stop_generating()
        if trace is None or trace.text != doc.text or self.runner.busy:
            return  # the forward of the text shown has not landed yet: _on_generated_trace goes on
        if trace.n == 0:
            self.message.emit("Type a few words first: the model goes on from them.")
            return self.stop_generating()
        if trace.dropped or trace.n >= doc.model.info.token_limit:
            self.message.emit(f"Stopped at {doc.model.info.token_limit} tokens: {doc.model.info.limit_reason}.")
            return self.stop_generating()
        temperature, seed = self._gen_settings
        token = self.next_token_id(temperature, seed)
        if token in self._end_ids(doc.model):
            self.message.emit("Stopped: the model wrote its end-of-text token.")
            return self.stop_generating()
        added = what_if.appended_text(doc.model, trace.ids, token)
        self._gen_left -= 1
        new = doc.with_text(doc.text + added)
        self._gen_expected = new
        how = "greedy" if temperature == 0.0 else f"temperature {temperature:g}, seed {seed}"
        self.apply(new, f"generate {added.strip() or repr(added)!s} ({how})")
        if self._gen_left == 0:
            self._gen_expected = None
            self.generatingChanged.emit(False)

    def _on_generated_trace(self, doc, trace) -> None:
        """A forward landed: a run goes on when it is the text its last step wrote, and stops otherwise."""
        if self._gen_left <= 0:
            return
        if doc is not self._gen_expected and doc != self._gen_expected:
            return self.stop_generating()  # another edit (an undo, typing) came first
        self._gen_timer.start()  # on the next turn: not inside the undo stack's push

    # ----- internals ----------------------------------------------------------------------
    def _clamp_selection(self) -> None:
        self.select(self._selection.query, self._selection.key)
        if self._head >= self._scenario.n_heads:
            self._head = self._scenario.n_heads - 1
            self.headChanged.emit(self._head)

    def _schedule(self) -> None:
        if not self._emit_pending:
            self._emit_pending = True
            self._timer.start()

    def flush(self) -> None:
        """Recompute now (if needed) and tell every listener; called by the event loop."""
        self._emit_pending = False
        self._timer.stop()  # (when called before the event loop got to it)
        self.resultChanged.emit(self.result)

    @property
    def result_pending(self) -> bool:
        """Whether edits wait for their result to be announced (``resultChanged``) on a later turn."""
        return self._emit_pending

    def flush_if_pending(self) -> None:
        """``flush`` now if edits wait for their recompute to be announced on the next turn of the event loop."""
        if self._emit_pending:
            self.flush()


def _clamp(value, count: int) -> int:
    """``value`` as a whole number from 0 to ``count - 1`` (0 for anything that is not a number)."""
    try:
        value = int(value)
    except (TypeError, ValueError):
        value = 0
    return max(0, min(value, count - 1))


def _whole_number(what: str, value, low: int, high: int) -> int:
    """``value`` (a number or typed text) as a whole number from ``low`` to ``high``, or ValueError saying why."""
    value = _typed(what, value)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{what}: expected a whole number")
    if not np.isfinite(value) or float(value) != int(value):
        raise ValueError(f"{what} {value!r}: expected a whole number")
    if not low <= int(value) <= high:
        raise ValueError(f"{what} {int(value)}: expected {low} to {high}")
    return int(value)


def parse_temperature(value) -> float:
    """A temperature (a number or typed text) from 0 to 100, or ValueError saying why."""
    value = _typed("temperature", value)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value):
        raise ValueError(f"temperature {value!r}: expected a number from 0 to 100")
    if not 0.0 <= float(value) <= 100.0:
        raise ValueError(f"temperature {float(value):g}: expected 0 (greedy) to 100")
    return float(value)


def _typed(what: str, value):
    """Typed text as a number (``parse_number``; its complaint named after ``what``); anything else as it is."""
    if not isinstance(value, str):
        return value
    try:
        return parse_number(value)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
