"""6 · Why divide by √d_k (placeholder until the panel is drawn)."""
from __future__ import annotations

from PySide6 import QtWidgets

from .base import Panel


class ScalingPanel(Panel):
    object_name = "scalingPanel"
    title = "6 · Why divide by √d_k"

    def build(self, body):
        self.label = QtWidgets.QLabel(body)
        QtWidgets.QVBoxLayout(body).addWidget(self.label)

    def show_result(self, result, selection):
        self.label.setText(f"{self.title}: {result.n} tokens, query {selection.query + 1}, key {selection.key + 1}")
