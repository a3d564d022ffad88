"""The window in the trained-model mode: opening a model (and refusing what is not one), the model box,
the model view dock, saving and reopening a model session, and the way back to the hand-made example.
The model actions are built on the window's parts (``make_parts``, with the session's file for saving and
reopening) where the title or a screen's dock layout are not part of the test."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from qkv_engine.models import find_models, load_model
from qkv_gui.window.model_actions import ModelsDialog
from tests.engine.model_files import runs_kept_to
from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[2] / "data"
Qt = QtCore.Qt
TEXT = "the cat sat on the mat"


@pytest.fixture
def model_parts(make_parts):
    """The model actions with the editing docks and the panel grid on a plain main window, tiny-bert open."""
    parts = make_parts(editors=True, models=True)
    assert parts.models.open_folder(DATA / "tiny-bert", text=TEXT)
    settle()
    return parts


@pytest.fixture
def model_editors(make_session, make_panel):
    """The sentence-and-options editor and the model view on one Session that has opened tiny-bert (what the
    window's Open model does to its Session), without the window."""
    from qkv_gui.editors import SentenceOptionsWidget
    from qkv_gui.panels.labs.model_view import ModelViewPanel

    session = make_session()
    session.open_model(load_model(DATA / "tiny-bert"), text=TEXT)
    settle()
    options = make_panel(SentenceOptionsWidget, session=session, size=(400, 600))
    options.view = make_panel(ModelViewPanel, session=session, size=(700, 500))
    return options


def test_opening_a_model_shows_its_heads_in_every_part_of_the_window(model_parts):
    # (The window's title names the model and its head: test_on_a_projector_the_model_view_is_a_tab_... below.)
    w = model_parts
    s = w.session
    assert s.model_doc is not None and s.scenario.tokens == load_model(DATA / "tiny-bert").run(TEXT).tokens
    box = w.options.modelBox
    assert box.isVisible() and not w.options.handMadeBox.isVisible()
    assert box.nameLabel.text() == "tiny-bert" and "2 layers" in box.sizesLabel.text()
    assert w.findChild(QtCore.QObject, "dockModelView").isVisible()
    assert w.grid.frames["heatmapPanel"].titleLabel.text().endswith("L1 H1")
    # the layer and head choosers step in
    box.layerSpin.setValue(2)
    box.headSpin.setValue(2)
    settle()
    assert (s.model_layer, s.model_head) == (1, 1)
    np.testing.assert_allclose(w.panels["heatmapPanel"].image.image, s.model_trace.weights[1, 1], atol=1e-5)
    assert w.grid.frames["heatmapPanel"].titleLabel.text().endswith("L2 H2")


def test_clicking_a_tile_of_the_model_view_steps_into_that_head(model_editors):
    w = model_editors
    panel = w.view
    view = panel.canvas
    point = view.mapFromScene(panel.scene_pos_of_tile(1, 0))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    settle()
    assert (w.session.model_layer, w.session.model_head) == (1, 0)
    assert w.modelBox.layerSpin.value() == 2 and w.modelBox.headSpin.value() == 1


def test_typing_in_the_sentence_box_runs_the_model(model_editors, qtbot):
    w = model_editors
    edit = w.sentenceEdit
    edit.selectAll()
    QTest.keyClicks(edit, "a dog")
    settle()
    assert w.session.model_doc.text == "a dog"
    assert w.session.scenario.tokens[0] == "[CLS]" and w.session.scenario.tokens[-1] == "[SEP]"


def test_a_folder_that_is_not_a_model_is_refused_in_one_line_and_the_work_stays(make_parts, tmp_path):
    window = make_parts(editors=True, models=True)
    before = window.session.scenario
    (tmp_path / "pytorch_model.bin").write_bytes(b"not opened")
    assert not window.models.open_folder(tmp_path)
    assert window.session.model_doc is None and window.session.scenario is before
    assert len(window.errors) == 1 and "\n" not in window.errors[0]
    assert "model.safetensors" in window.errors[0]


def test_a_model_session_is_saved_without_weights_and_reopened_with_its_edits(make_parts, tmp_path):
    # The session's file with the model actions on a plain main window (File → Save As and Open; the title and
    # Open Recent that follow a file: test_sessions_undo.py).
    w = make_parts(editors=True, models=True, document=True)
    assert w.models.open_folder(DATA / "tiny-bert", text=TEXT)
    settle()
    w.session.select_model_head(1, 0)
    assert w.session.set_cell("w_k", 0, 1, "2.5")
    assert w.session.knock_out(0, 1)
    settle()
    path = tmp_path / "m.qkv.json"
    assert w.document.save_as(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["model"]["name"] == "tiny-bert" and "scenario" not in doc
    assert path.stat().st_size < 4000  # where the model is and the edits, never its weights
    other = make_parts(editors=True, models=True, document=True)
    assert other.document.open(path)
    settle()
    s = other.session
    assert s.model_doc is not None and s.model_doc.text == TEXT
    assert (s.model_layer, s.model_head) == (1, 0)
    assert s.scenario.w_k[0, 1] == 2.5 and (0, 1) in s.model_doc.edits.knocked_out
    np.testing.assert_array_equal(s.model_trace.weights, w.session.model_trace.weights)
    assert other.findChild(QtCore.QObject, "dockModelView").isVisible()  # the model view opens with it
    assert other.options.modelBox.isVisible() and other.options.modelBox.layerSpin.value() == 2


def test_a_session_whose_model_is_gone_says_which_model_and_where(make_parts, tmp_path):
    folder = tmp_path / "tiny-bert"
    shutil.copytree(DATA / "tiny-bert", folder)
    window = make_parts(models=True, document=True)
    assert window.models.open_folder(folder, text=TEXT)
    path = tmp_path / "m.qkv.json"
    assert window.document.save_as(path)
    shutil.rmtree(folder)
    other = make_parts(models=True, document=True)
    before = other.session.scenario
    assert not other.document.open(path)
    assert other.session.model_doc is None and other.session.scenario is before
    assert "needs the model 'tiny-bert'" in other.errors[-1] and str(folder) in other.errors[-1]


def test_back_to_the_hand_made_example(model_parts):
    w = model_parts
    w.models.back()
    settle()
    assert w.session.model_doc is None
    assert w.options.handMadeBox.isVisible() and not w.options.modelBox.isVisible()
    assert not w.findChild(QtCore.QObject, "dockModelView").isVisible()
    assert w.panels["heatmapPanel"].image.image.shape == (w.session.scenario.n, w.session.scenario.n)


def test_reset_to_the_checkpoint_from_the_edit_menu(model_parts):
    w = model_parts
    w.session.set_cell("w_q", 1, 1, "3")
    settle()
    assert w.models.resetAction in w.menus["edit"].actions() and w.models.resetAction.isEnabled()
    w.models.resetAction.trigger()
    settle()
    assert w.session.model_doc.edits.is_empty() and not w.models.resetAction.isEnabled()


def test_models_on_this_computer_lists_the_cache_and_greys_what_cannot_open(qtbot, tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    snap = cache / "models--org--tiny" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    for f in (DATA / "tiny-bert").iterdir():
        if f.suffix != ".npz":
            shutil.copy(f, snap / f.name)
    bad = cache / "models--org--pickled" / "snapshots" / "def456"
    bad.mkdir(parents=True)
    (bad / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (bad / "pytorch_model.bin").write_bytes(b"x")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    found = find_models()
    dialog = ModelsDialog(found)
    qtbot.addWidget(dialog)
    items = [dialog.list.item(i) for i in range(dialog.list.count())]
    texts = [i.text() for i in items]
    assert any(t.startswith("org/tiny") for t in texts)
    pickled = next(i for i in items if "pickled" in i.text())
    assert "cannot open" in pickled.text() and not pickled.flags() & Qt.ItemFlag.ItemIsEnabled
    assert "built in" in texts[0]  # the model the app ships comes first, chosen to begin with
    dialog.list.setCurrentItem(next(i for i in items if i.text().startswith("org/tiny")))
    dialog._open()
    assert dialog.chosen == snap


def test_the_model_view_names_the_heads_that_link_the_selected_pair(model_editors):
    w = model_editors
    s = w.session
    s.select(3, 2)  # 'sat' -> 'cat'
    settle()
    trace = s.model_trace
    pairs = sorted(((trace.weights[l, h, 3, 2], l, h) for l in range(2) for h in range(2)), reverse=True)
    _, l, h = pairs[0]
    text = w.view.info.text()
    assert f"'sat' \u2192 'cat' is strongest in layer {l + 1} head {h + 1}" in text


def test_on_a_projector_the_model_view_is_a_tab_beside_the_weight_grids(make_window):
    w = make_window()
    w.resize(1008, 720)
    settle()
    assert w.models.open_folder(DATA / "tiny-bert", text=TEXT)
    settle()
    dock = w.findChild(QtCore.QObject, "dockModelView")
    assert dock in w.tabifiedDockWidgets(w.docks["dockWeights"])
    assert w.gridScroll.width() >= 500  # the panels keep their room
    assert "tiny-bert" in w.windowTitle() and "layer 1 head 1" in w.windowTitle()  # the title names the head ...
    w.options.modelBox.layerSpin.setValue(2)
    w.options.modelBox.headSpin.setValue(2)
    settle()
    assert "layer 2 head 2" in w.windowTitle()  # ... and follows the layer and head choosers
    # and the window stays as large as the projector's screen: not taller (its bottom would be cut off)
    assert w.size().toTuple() == (1008, 720)
    w.session.close_model()
    settle()
    assert w.size().toTuple() == (1008, 720)


def test_a_model_opened_on_a_text_too_long_to_keep_says_so_on_the_status_line(make_window, monkeypatch):
    """The note on the tokens left out stays on the status line: "Opened ..." does not cover it."""
    runs_kept_to(DATA / "tiny-llama", 30, monkeypatch)
    w = make_window()
    assert w.models.open_folder(DATA / "tiny-llama", text=" ".join([TEXT] * 40))
    w.session.runner.wait()
    settle()
    status = w.statusBar().currentMessage()
    assert status.startswith("Kept the first 30 tokens: every head's attention for more would take over")
    assert w.session.model_trace.n == 30
    w.session.close_model()


@pytest.mark.parametrize("experiment", ["dockScalingLab", "dockTrain", "dockRopeLab"])
def test_on_a_projector_an_experiment_beside_a_model_stays_on_the_screen(make_window, experiment):
    """The Trained model box's Reset and Back buttons side by side held the left column at 404 pixels: with
    the widest experiments beside the panels the window grew past the projector's 1008 pixels and their right
    side (and the dock's close button) was off the screen. The buttons now go one above the other."""
    from qkv_gui.window.screen_room import CENTRAL_MIN_WIDTH

    w = make_window()
    w.resize(1008, 720)
    settle()
    assert w.models.open_folder(DATA / "tiny-llama", text=TEXT)
    settle()
    w.open_experiment(experiment)
    settle()
    dock = w.experiment_docks[experiment]
    assert w.width() == 1008 and dock.isVisible() and dock.geometry().right() < w.width()
    assert w.centralWidget().width() >= CENTRAL_MIN_WIDTH
    box = w.options.modelBox
    assert box.resetRow.folded and box.backButton.geometry().top() > box.resetButton.geometry().bottom()
