"""The trained-model mode's document: the opened model, the sentence and the what-if edits (one undo step)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from qkv_engine import Model, ModelEdits


@dataclass(frozen=True, eq=False)
class ModelDoc:
    """What one undo step of the model mode holds: the model, the sentence and the edits."""

    model: Model
    text: str
    edits: ModelEdits = ModelEdits()

    def __eq__(self, other):
        if not isinstance(other, ModelDoc):
            return NotImplemented
        return self.model is other.model and self.text == other.text and self.edits == other.edits

    __hash__ = None

    def with_text(self, text: str) -> "ModelDoc":
        return replace(self, text=text)

    def with_edits(self, edits: ModelEdits) -> "ModelDoc":
        return replace(self, edits=edits)

    @property
    def key(self) -> tuple:
        """What the forward depends on."""
        return (id(self.model), self.text, self.edits)
