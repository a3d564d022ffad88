"""Text in plots and the theme: a fix-up after the generic theme scaling.

``Panel._scale_items`` sets the font of each text item in a scene directly (see base.py). A
``TextLabel`` places itself again when its font changes, but inside pyqtgraph items the text is a
child whose placement was computed from its old size: an axis keeps the room it made for its title
and a ``pg.LabelItem`` keeps its minimum size. ``realign_text`` recomputes those after the fonts
changed; ``ThemedTextMixin`` runs it after every theme scaling of a panel, then the panel's
``text_scaled`` hook. (Pools of labels and themed fonts: ``drawing.text_pool``.)
"""
from __future__ import annotations

from PySide6 import QtWidgets
import pyqtgraph as pg


def realign_text(panel: QtWidgets.QWidget) -> None:
    """Axis titles and label sizes recomputed for the fonts the items have now."""
    for view in panel.findChildren(QtWidgets.QGraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            if isinstance(item, pg.AxisItem):
                item._adjustSize()
                item.resizeEvent()  # places the axis title for its new size
            elif isinstance(item, pg.LabelItem):
                item.updateMin()


class ThemedTextMixin:
    """Mix into a Panel subclass (before Panel) whose scenes hold pyqtgraph text."""

    def _scale_items(self, force: bool = False) -> None:
        super()._scale_items(force)
        realign_text(self)
        self.text_scaled()

    def text_scaled(self) -> None:
        """Hook: the theme has just set the text sizes (labels placed by size can be placed again)."""
