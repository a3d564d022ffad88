"""The window's features are given what they use (a session, a dock host, the panel grid, menus), not the main
window: each is built here on a plain QMainWindow, without ``MainWindow``, and does its job."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtWidgets

from qkv_engine import presets
from qkv_gui.look import style
from qkv_gui.panels import catalog
from qkv_gui.state.session import Session
from qkv_gui.window.dock_host import DockHost
from qkv_gui.window.experiments import Experiments
from qkv_gui.window.export_actions import ExportController
from qkv_gui.window.lesson import LessonController
from qkv_gui.window.model_actions import DocumentHooks, ModelActions
from qkv_gui.window.panel_grid import PanelGrid

from tests.gui.conftest import settle

TINY_BERT = Path(__file__).resolve().parents[2] / "data" / "tiny-bert"


@pytest.fixture
def parts(qtbot, settings):
    style.configure_pyqtgraph()
    main = QtWidgets.QMainWindow()
    qtbot.addWidget(main)
    session = Session(presets.load(presets.DEFAULT), parent=main)
    grid = PanelGrid([cls(session) for cls in catalog.PANEL_CLASSES], main)
    main.setCentralWidget(grid)
    host = DockHost(main)
    errors = []
    exporter = ExportController(session, main, settings, grid, tell_error=lambda title, text: errors.append(text))
    experiments = Experiments(session, host, adopt=exporter.adopt_experiment)
    main.resize(1600, 1000)
    main.show()
    qtbot.waitExposed(main)
    settle()
    return {"main": main, "session": session, "grid": grid, "host": host, "exporter": exporter,
            "experiments": experiments, "settings": settings, "errors": errors}


def test_the_experiments_open_their_docks_in_a_plain_main_window_and_export_knows_their_panels(parts):
    dock = parts["experiments"].open("dockHeads")
    settle()
    assert dock.isVisible() and dock.widget().object_name == "headsPanel"
    assert parts["exporter"].panel("headsPanel") is dock.widget()
    assert "heads" in parts["exporter"].open_experiments()


def test_the_lesson_brings_each_step_s_panel_forward_in_the_grid_it_is_given(parts):
    actions = {name: QtWidgets.QWidgetAction(parts["main"]) for name in parts["grid"].frames}
    for act in actions.values():
        act.setCheckable(True)
    lesson = LessonController(parts["session"], parts["host"], parts["grid"], parts["grid"], actions,
                              parts["experiments"])
    lesson.enter()
    lesson.go(3)
    settle()
    assert lesson.dock.isVisible()
    assert parts["grid"].highlighted == lesson.steps[3].panel == lesson.grid_panel()


def test_the_model_actions_open_a_model_with_the_menus_and_hooks_they_are_given(parts):
    main = parts["main"]
    bar = main.menuBar()
    menus = {"file": bar.addMenu("File"), "edit": bar.addMenu("Edit"), "view": bar.addMenu("View")}
    menus["preset"] = menus["file"].addMenu("Open preset")
    forgotten = []
    weights = QtWidgets.QDockWidget("Weight grids", main)  # not shown: the model view goes on the right
    hooks = DocumentHooks(keep_changes=lambda: True, forget_file=lambda: forgotten.append(True),
                          tell_error=lambda title, text: parts["errors"].append(text))
    models = ModelActions(parts["session"], parts["host"], parts["settings"], menus, beside=weights, hooks=hooks)
    assert models.open_folder(TINY_BERT, text="the cat sat")
    settle()
    assert parts["session"].model_doc is not None and forgotten == [True]
    assert models.dock.isVisible() and models.dock.widget().object_name == "modelViewPanel"
    assert models.openAction in menus["file"].actions() and models.resetAction in menus["edit"].actions()
    assert not models.open_folder(TINY_BERT.parent)  # not a model: refused in one line, the model stays
    assert parts["errors"] and parts["session"].model_doc is not None
