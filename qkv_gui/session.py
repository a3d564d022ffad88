"""The one state object: the current Scenario, its AttentionResult and the selection.

Every edit comes here; widgets never talk to each other. A burst of edits is
coalesced: the scenario changes at once, the recompute and the
``resultChanged`` signal happen once, on the next turn of the event loop
(reading ``session.result`` before then computes it on the spot).
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6 import QtCore

from qkv_engine import MAX_TOKENS, AttentionResult, Scenario, ScenarioError, compute, parse_number, presets


@dataclass(frozen=True)
class Selection:
    query: int = 0  # row i: the token that is looking
    key: int = 0  # column j: the token being looked at


class Session(QtCore.QObject):
    resultChanged = QtCore.Signal(object)  # AttentionResult, after each recompute
    selectionChanged = QtCore.Signal(object)  # Selection
    scenarioChanged = QtCore.Signal(object)  # Scenario, at once after an edit (before the recompute)
    message = QtCore.Signal(str)  # a short note for the status line (e.g. why an edit was refused)

    def __init__(self, scenario: Scenario | None = None, parent=None):
        super().__init__(parent)
        self._scenario = scenario if scenario is not None else presets.load(presets.DEFAULT)
        self._result: AttentionResult | None = None
        self._selection = Selection()
        self._emit_pending = False
        self.preset_name: str | None = None
        self.recompute_count = 0  # how many times compute() ran (for tests and benchmarks)
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.flush)
        self._schedule()

    # ----- reading ------------------------------------------------------------------------
    @property
    def scenario(self) -> Scenario:
        return self._scenario

    @property
    def result(self) -> AttentionResult:
        if self._result is None or self._result.scenario is not self._scenario:
            self._result = compute(self._scenario)
            self.recompute_count += 1
        return self._result

    @property
    def selection(self) -> Selection:
        return self._selection

    # ----- the edit funnel ----------------------------------------------------------------
    def apply(self, scenario: Scenario, label: str = "edit") -> None:
        """Make ``scenario`` current; the recompute follows on the next event-loop turn."""
        self._scenario = scenario
        self._clamp_selection()
        self.scenarioChanged.emit(scenario)
        self._schedule()

    def set_scenario(self, scenario: Scenario, view: dict | None = None, preset: str | None = None) -> None:
        self.preset_name = preset
        self.apply(scenario, "open")
        view = view or {}
        self.select(int(view.get("query", 0) or 0), int(view.get("key", 0) or 0))

    def load_preset(self, name: str) -> None:
        self.set_scenario(presets.load(name), preset=name)

    def try_apply(self, make, label: str) -> bool:
        """Run ``make()`` to build a new scenario; on ScenarioError keep the old one and say why."""
        try:
            new = make()
        except ScenarioError as exc:
            self.message.emit(str(exc))
            return False
        self.apply(new, label)
        return True

    def set_text(self, text: str) -> None:
        if self.try_apply(lambda: self._scenario.with_text(text), "sentence") and self._scenario.dropped:
            self.message.emit(
                f"Kept the first {self._scenario.n} tokens; {self._scenario.dropped} more were left out "
                f"(the limit is {MAX_TOKENS})."
            )

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
        return self.try_apply(lambda: self._scenario.with_cell(matrix, row, col, value), f"edit {matrix}")

    def set_dims(self, d_model=None, d_k=None, d_v=None) -> bool:
        return self.try_apply(lambda: self._scenario.with_dims(d_model, d_k, d_v), "dimensions")

    def set_seed(self, seed: int) -> bool:
        return self.try_apply(lambda: self._scenario.reseeded(int(seed)), "seed")

    def set_option(self, **changes) -> bool:
        return self.try_apply(lambda: self._scenario.with_options(**changes), "option")

    def select(self, query: int | None = None, key: int | None = None) -> None:
        n = self._scenario.n
        q = self._selection.query if query is None else query
        k = self._selection.key if key is None else key
        new = Selection(max(0, min(q, n - 1)) if n else 0, max(0, min(k, n - 1)) if n else 0)
        if new != self._selection:
            self._selection = new
            self.selectionChanged.emit(new)

    # ----- internals ----------------------------------------------------------------------
    def _clamp_selection(self) -> None:
        self.select(self._selection.query, self._selection.key)

    def _schedule(self) -> None:
        if not self._emit_pending:
            self._emit_pending = True
            self._timer.start()

    def flush(self) -> None:
        """Recompute now (if needed) and tell every listener; called by the event loop."""
        self._emit_pending = False
        self.resultChanged.emit(self.result)
