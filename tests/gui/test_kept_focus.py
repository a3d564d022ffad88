"""A button greyed out or hidden by its own click keeps the keyboard where it was (labels/kept_focus.py).

Left to Qt, the focus goes on along the Tab order as if Tab had been pressed: a scroll area scrolls to the next
widget, and a line edit there selects all its text (the next key typed replaces the sentence). Each test
presses a real button that greys out or hides itself and checks where the focus is afterwards."""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets

from qkv_engine import load_model
from qkv_gui.editors.model_box import ModelBox
from qkv_gui.labels.kept_focus import set_enabled, set_shown
from qkv_gui.panels.labs.prediction import PredictionPanel
from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel

from tests.gui.conftest import in_lesson, settle, shown

Qt = QtCore.Qt
DATA = Path(__file__).resolve().parents[1] / "data"


def focus():
    return QtWidgets.QApplication.focusWidget()


def stayed_at(button) -> bool:
    """The focus is on the button's own container (an ancestor of it), not on another control."""
    f = focus()
    return f is not None and f.isAncestorOf(button)


def test_a_line_edit_next_in_line_keeps_its_text_and_the_scroll_area_stays(qtbot):
    area = QtWidgets.QScrollArea()
    qtbot.addWidget(area)
    inner = QtWidgets.QWidget()
    layout = QtWidgets.QVBoxLayout(inner)
    button = QtWidgets.QPushButton("Reset", inner)
    hider = QtWidgets.QPushButton("Last token", inner)
    layout.addWidget(button)
    layout.addWidget(hider)
    layout.addSpacing(900)
    edit = QtWidgets.QLineEdit("the cat sat", inner)
    layout.addWidget(edit)
    area.setWidget(inner)
    area.setWidgetResizable(True)
    area.resize(300, 200)
    area.show()
    qtbot.waitExposed(area)
    area.activateWindow()
    for widget, act in ((button, lambda: set_enabled(button, False)), (hider, lambda: set_shown(hider, False))):
        widget.setFocus()
        settle()
        assert widget.hasFocus()
        act()
        settle()
        assert stayed_at(widget) and edit.selectedText() == "" and area.verticalScrollBar().value() == 0
    button.setEnabled(True)
    button.setFocus()
    set_enabled(button, False, keep=edit)  # a widget named to take it
    assert edit.hasFocus()


def test_clear_in_the_heatmap_keeps_the_focus_in_the_panel(make_panel):
    panel = make_panel(HeatmapPanel, preset="pronoun")
    s = panel.session
    s.toggle_blocked(1, 0)
    settle()
    panel.window().activateWindow()
    panel.clearButton.setFocus()
    panel.clearButton.click()
    settle()
    assert not s.result.scenario.blocked and not panel.clearButton.isEnabled()
    assert stayed_at(panel.clearButton)


def test_reset_to_the_checkpoint_does_not_hand_the_keyboard_to_the_next_button(make_session, qtbot):
    """The box in a holder, as in its dock: a group box given the focus hands it to its first control (the
    layer's spin box, where Up and Down would change the layer), so the holder takes it."""
    session = make_session()
    session.runner.sync = True
    session.open_model(load_model(DATA / "tiny-gpt2"), text="the cat sat")
    session.knock_out(0, 0)
    holder = QtWidgets.QWidget()
    qtbot.addWidget(holder)
    box = ModelBox(session, holder)
    QtWidgets.QVBoxLayout(holder).addWidget(box)
    shown(qtbot, holder, (360, 420))
    assert box.resetButton.isEnabled()
    box.window().activateWindow()
    box.resetButton.setFocus()
    box.resetButton.click()
    settle()
    assert session.model_doc.edits.is_empty() and not box.resetButton.isEnabled()
    assert stayed_at(box.resetButton) and not box.backButton.hasFocus()


def test_which_heads_matter_puts_the_keyboard_on_cancel_then_on_the_list(make_session, make_panel, qtbot):
    session = make_session()
    session.runner.sync = True
    session.open_model(load_model(DATA / "tiny-gpt2"), text="the cat sat on the mat")
    session.select(query=2)
    panel = make_panel(PredictionPanel, session=session, size=(460, 640))
    panel.bars.rowClicked.emit(0)
    settle()
    panel.window().activateWindow()
    panel.effectsButton.setFocus()
    panel.effectsButton.click()
    assert panel.cancelButton.hasFocus()  # Space or Return would cancel it
    qtbot.waitUntil(lambda: panel.job is None, timeout=20000)
    settle()
    assert session.head_effects is not None and panel.bars.hasFocus()


def test_next_at_the_last_step_leaves_the_keyboard_on_back(make_window, qtbot):
    w = make_window()
    lesson = in_lesson(w.lesson)
    pane = lesson.pane
    lesson.go(len(lesson.steps) - 2)
    settle()
    w.activateWindow()
    pane.nextButton.setFocus()
    qtbot.mouseClick(pane.nextButton, Qt.MouseButton.LeftButton)
    settle()
    assert lesson.index == len(lesson.steps) - 1 and not pane.nextButton.isEnabled()
    assert pane.previousButton.hasFocus()
