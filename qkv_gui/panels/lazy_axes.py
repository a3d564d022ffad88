"""Axis ticks, axis labels and plot titles that are only set when they change; axes kept as pixmaps.

pyqtgraph lays an axis out again from scratch (tick positions, text sizes: about
2 ms each) whenever its ticks, label or title are set, even to what it already
shows, and it replays the axis' drawing whenever anything near it is repainted.
A live edit changes numbers, rarely token names or titles, so the panels set
these through the functions here, and ``cache_axes`` keeps each axis' drawing
as a device pixmap that is redrawn only when the axis itself changes. (Exports
switch item caches off again, so slides still get vector axes.)
"""
from __future__ import annotations

from PySide6 import QtWidgets
import pyqtgraph as pg


def set_ticks(axis: pg.AxisItem, ticks) -> None:
    """``axis.setTicks(ticks)``, unless the axis already shows exactly these ticks."""
    if getattr(axis, "_tickLevels", None) != ticks:
        axis.setTicks(ticks)


def set_label(axis: pg.AxisItem, text: str) -> None:
    """``axis.setLabel(text)`` (plain text, no units), unless that is the label already shown."""
    if axis.labelText == (text or "") and not axis.labelUnits and axis.label.isVisibleTo(axis) == bool(text):
        return
    axis.setLabel(text)


def set_plot_label(plot: pg.PlotItem, name: str, text: str) -> None:
    """``plot.setLabel(name, text)`` (which also shows that axis), unless nothing would change."""
    axis = plot.getAxis(name)
    if axis.isVisibleTo(plot) and axis.labelText == (text or "") and not axis.labelUnits \
            and axis.label.isVisibleTo(axis) == bool(text):
        return
    plot.setLabel(name, text)


def set_title(plot: pg.PlotItem, title: str, **args) -> None:
    """``plot.setTitle(title, **args)``, unless the title already reads so."""
    label = plot.titleLabel
    if label.isVisibleTo(plot) and label.text == title and all(label.opts.get(k) == v for k, v in args.items()):
        return
    plot.setTitle(title, **args)


def cache_axes(widget: QtWidgets.QWidget) -> None:
    """Draw every axis in ``widget``'s graphics views from a device pixmap, remade when the axis changes."""
    for view in widget.findChildren(QtWidgets.QGraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            # not a colour bar's axes: they sit half a pixel off the grid, and a cached copy lands a pixel aside
            if isinstance(item, pg.AxisItem) and not isinstance(item.parentItem(), pg.ColorBarItem):
                item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
