"""8 · Values, mixed by the weights (placeholder until the panel is drawn)."""
from __future__ import annotations

from PySide6 import QtWidgets

from .base import Panel


class ValuesPanel(Panel):
    object_name = "valuesPanel"
    title = "8 · Values, mixed by the weights"

    def build(self, body):
        self.label = QtWidgets.QLabel(body)
        QtWidgets.QVBoxLayout(body).addWidget(self.label)

    def show_result(self, result, selection):
        self.label.setText(f"{self.title}: {result.n} tokens, query {selection.query + 1}, key {selection.key + 1}")
