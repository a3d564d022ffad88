"""The prediction dock in the window: it opens with a model (below the model view; a tab beside it on a
projector's 1024 x 768), comes back from the View menu, hides with the model, and exports like an experiment.
The model actions place it; they are built on the window's parts (``make_parts``), on a projector's screen at
its size."""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtWidgets

from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[2] / "data"


def docks(window):
    return window.findChild(QtWidgets.QDockWidget, "dockModelView"), window.findChild(QtWidgets.QDockWidget,
                                                                                       "dockPrediction")


def test_the_prediction_opens_with_the_model_below_the_model_view(make_parts):
    window = make_parts(editors=True, models=True)
    assert window.models.open_folder(DATA / "tiny-gpt2", text="the cat sat")
    settle()
    view, pred = docks(window)
    assert pred is not None and pred.isVisible() and view.isVisible()
    assert window.tabifiedDockWidgets(pred) == []
    assert pred.geometry().top() >= view.geometry().bottom()  # below it, side by side with the panels
    panel = pred.widget()
    assert panel.objectName() == "predictionPanel" and not panel.showing_hint() and len(panel.bars.rows) == 10
    # the export actions know it (its context menu, Ctrl+E)
    assert window.exporter.panel("predictionPanel") is panel
    # closed, the View menu brings it back; the model closed, it hides
    pred.close()
    settle()
    action = window.models.predictionAction
    assert action in window.menus["view"].actions() and action.isEnabled()
    action.trigger()
    settle()
    assert pred.isVisible()
    window.models.back()
    settle()
    assert not pred.isVisible() and not action.isEnabled()


def test_on_a_projector_it_is_a_tab_beside_the_model_view(make_parts):
    window = make_parts(editors=True, models=True, size=(1024, 768))  # a short main window: docks share tabs
    assert window.size().toTuple() == (1024, 768)
    assert window.models.open_folder(DATA / "tiny-llama", text="the cat sat")
    settle()
    view, pred = docks(window)
    assert pred in window.tabifiedDockWidgets(view)
    assert view.isVisible() and not view.visibleRegion().isEmpty()  # the model view in front
