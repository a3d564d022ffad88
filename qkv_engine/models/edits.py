"""What-if changes to a trained model, kept apart from its weights: immutable, comparable, undoable.

    edits = ModelEdits().with_weight(layer=2, head=5, name="w_q", row=10, col=3, value=0.5)
    edits = edits.with_input(layer=2, token=4, dim=7, value=-1.0).with_knockout(3, 0, True)
    model.run(text, edits)

Counting is from 0. ``weights``: one entry of a head's W^Q, W^K, W^V (``row`` is the
input number 0 .. d_model - 1, ``col`` the head's column 0 .. d_head - 1) or of its
bias b^Q, b^K, b^V (``row`` 0). ``inputs``: one number of the attention input x of a
layer at a token position (an edit of a position the sentence does not reach waits
until it does). ``knocked_out``: heads whose output is set to zero. ``fixed_outputs``: heads whose output is
set to one given vector (d_head numbers) at every position (a "mean" knock-out: the head's mean output over
the sentence's positions, ``what_if.mean_edits``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..errors import ModelError
from ..numbers import MAX_ABS

WEIGHT_NAMES = ("w_q", "w_k", "w_v", "b_q", "b_k", "b_v")


def _index(what: str, value) -> int:
    if isinstance(value, np.integer):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ModelError(f"edit: {what} must be a whole number, 0 or more, got {value!r}")
    return value


def _value(value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"edit: the new value must be a number, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(v):
        raise ModelError(f"edit: the new value must be a finite number, got {value!r}")
    if abs(v) > MAX_ABS:
        raise ModelError(f"edit: {v:g} is beyond the limit of \u00b1{MAX_ABS:,.0f}")
    return v


def _weight(entry) -> tuple:
    try:
        layer, head, name, row, col, value = entry
    except (TypeError, ValueError):
        raise ModelError("edit: a weight edit is (layer, head, name, row, col, value)") from None
    if name not in WEIGHT_NAMES:
        raise ModelError(f"edit: {name!r} is not one of {', '.join(WEIGHT_NAMES)}")
    row = _index("row", row)
    if name.startswith("b_") and row != 0:
        raise ModelError(f"edit: a bias has one row (row 0), got row {row}")
    return (_index("layer", layer), _index("head", head), name, row, _index("column", col), _value(value))


def _input(entry) -> tuple:
    try:
        layer, token, dim, value = entry
    except (TypeError, ValueError):
        raise ModelError("edit: an input edit is (layer, token, dim, value)") from None
    return (_index("layer", layer), _index("token", token), _index("dim", dim), _value(value))


def _knock(entry) -> tuple:
    try:
        layer, head = entry
    except (TypeError, ValueError):
        raise ModelError("edit: a knocked-out head is (layer, head)") from None
    return (_index("layer", layer), _index("head", head))


def _fixed(entry) -> tuple:
    try:
        layer, head, vector = entry
        vector = tuple(vector)
    except (TypeError, ValueError):
        raise ModelError("edit: a fixed head output is (layer, head, (numbers of the head's output))") from None
    return (_index("layer", layer), _index("head", head), tuple(_value(v) for v in vector))


def _merged(entries, key_len: int) -> tuple:
    """Sorted by position, one entry per position (the last given wins)."""
    last = {}
    for e in entries:
        last[e[:key_len]] = e
    return tuple(last[k] for k in sorted(last))


@dataclass(frozen=True)
class ModelEdits:
    """All what-if changes to a checkpoint (see the module docstring). Equal edits compare equal."""

    weights: tuple = ()  # ((layer, head, name, row, col, value), ...)
    inputs: tuple = ()  # ((layer, token, dim, value), ...)
    knocked_out: frozenset = frozenset()  # {(layer, head), ...}
    fixed_outputs: tuple = ()  # ((layer, head, (d_head numbers)), ...)

    def __post_init__(self):
        object.__setattr__(self, "weights", _merged((_weight(e) for e in self.weights), 5))
        object.__setattr__(self, "inputs", _merged((_input(e) for e in self.inputs), 3))
        object.__setattr__(self, "knocked_out", frozenset(_knock(e) for e in self.knocked_out))
        object.__setattr__(self, "fixed_outputs", _merged((_fixed(e) for e in self.fixed_outputs), 2))

    def with_weight(self, layer, head, name, row, col, value) -> "ModelEdits":
        """One entry of a head's W^Q, W^K, W^V or bias set to ``value``."""
        return replace(self, weights=self.weights + ((layer, head, name, row, col, value),))

    def without_weight(self, layer, head, name, row, col) -> "ModelEdits":
        """That entry back to the checkpoint's value."""
        return replace(self, weights=tuple(e for e in self.weights if e[:5] != (layer, head, name, row, col)))

    def with_input(self, layer, token, dim, value) -> "ModelEdits":
        """Number ``dim`` of the attention input x of ``layer`` at token position ``token`` set to ``value``."""
        return replace(self, inputs=self.inputs + ((layer, token, dim, value),))

    def without_input(self, layer, token, dim) -> "ModelEdits":
        return replace(self, inputs=tuple(e for e in self.inputs if e[:3] != (layer, token, dim)))

    def with_knockout(self, layer, head, on: bool) -> "ModelEdits":
        """Head ``head`` of ``layer`` knocked out (its output set to zero) when ``on``, else back."""
        key = _knock((layer, head))
        return replace(self, knocked_out=self.knocked_out | {key} if on else self.knocked_out - {key})

    def with_fixed_output(self, layer, head, vector) -> "ModelEdits":
        """Head ``head`` of ``layer`` outputs ``vector`` (its d_head numbers) at every position."""
        return replace(self, fixed_outputs=self.fixed_outputs + ((layer, head, tuple(vector)),))

    def is_empty(self) -> bool:
        return not (self.weights or self.inputs or self.knocked_out or self.fixed_outputs)

    def weight_value(self, layer, head, name, row, col):
        """The edited value of that entry, or None when it is the checkpoint's."""
        for e in self.weights:
            if e[:5] == (layer, head, name, row, col):
                return e[5]
        return None

    def output_edits(self) -> set:
        """(layer, head) of every head whose output is knocked out or fixed: its own weights stay as they were;
        only the layers above it change."""
        return set(self.knocked_out) | {e[:2] for e in self.fixed_outputs}

    def layers(self) -> set:
        """Every layer some edit touches."""
        return ({e[0] for e in self.weights} | {e[0] for e in self.inputs} | {e[0] for e in self.knocked_out}
                | {e[0] for e in self.fixed_outputs})
