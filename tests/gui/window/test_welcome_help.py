"""First steps and help: the welcome (once, then from Help → Welcome), "What am I looking at?" for every
panel (F1, the ? in a panel's title, the Help menu), and the app's icon."""
import re

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_gui.window import panel_help, welcome
from qkv_gui.window.experiments import EXPERIMENTS
from qkv_gui.panels.catalog import PANEL_CLASSES

from tests.gui.conftest import settle


def bubble_text() -> str | None:
    """The text of Qt's "What's This?" bubble when one is shown."""
    for w in QtWidgets.QApplication.topLevelWidgets():
        if w.metaObject().className() == "QWhatsThat" and w.isVisible():
            return w.property("text") or w.accessibleName() or "shown"
    return None


# ----- the welcome -------------------------------------------------------------------------------------
# The welcome is given its window; it opens here on the window's parts (a plain main window with the lesson,
# the editing docks and the trained-model actions: ``make_parts``), not on a whole MainWindow.
def test_the_first_start_shows_the_welcome_once_and_remembers_it(make_parts, settings, tmp_path):
    window = make_parts(editors=True, models=True, lesson=True)
    assert not welcome.seen(settings)
    dialog = welcome.maybe_welcome(window)
    assert dialog is not None and dialog.isVisible()
    assert not dialog.isModal()  # the app stays usable behind it
    texts = [b.text() for b in dialog.buttons.values()]
    assert texts == ["Start the lesson", "Try your own sentence", "Open a trained model"]
    dialog.close()
    assert welcome.maybe_welcome(window) is None  # not again in this run ...
    settings.sync()
    again = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    assert welcome.seen(again)  # ... nor at the next start (read back from the file, as text)
    assert welcome.show_welcome(window) is dialog and dialog.isVisible()  # Help → Welcome: whenever asked
    dialog.close()


def test_start_the_lesson(make_parts):
    window = make_parts(editors=True, models=True, lesson=True)
    dialog = welcome.show_welcome(window)
    assert not window.lesson.active
    dialog.buttons["welcomeLesson"].click()
    settle()
    assert window.lesson.active and window.lesson.dock.isVisible() and not dialog.isVisible()


def test_try_your_own_sentence_readies_the_sentence_box(make_parts):
    window = make_parts(editors=True, models=True, lesson=True)
    window.docks["dockSentence"].hide()
    window.activateWindow()
    dialog = welcome.show_welcome(window)
    dialog.buttons["welcomeSentence"].click()
    settle()
    edit = window.options.sentenceEdit
    assert window.docks["dockSentence"].isVisible() and not dialog.isVisible()
    assert edit.selectedText() == edit.text() != ""  # typing replaces the example at once
    assert "Type a sentence" in window.statusBar().currentMessage()


def test_open_a_trained_model_asks_the_window_for_a_model(make_parts):
    window = make_parts(editors=True, models=True, lesson=True)
    asked = []
    window.models.open_a_model = lambda: asked.append(True) or False
    dialog = welcome.show_welcome(window)
    button = dialog.buttons["welcomeModel"]
    assert button.isEnabled()
    button.click()
    assert asked == [True] and not dialog.isVisible()


def test_without_trained_models_the_button_is_off_and_says_why(qtbot, settings):
    class Bare(QtWidgets.QMainWindow):
        models = None  # a window that opens no trained models

        def welcome_dialog(self, make):
            return make(self)

    bare = Bare()
    bare.settings = settings
    qtbot.addWidget(bare)
    dialog = welcome.show_welcome(bare)
    button = dialog.buttons["welcomeModel"]
    assert not button.isEnabled() and button.toolTip() == welcome.NO_MODELS
    dialog.close()


# ----- what am I looking at? ---------------------------------------------------------------------------
EXPECTED = ({cls.object_name for cls in PANEL_CLASSES} | {cls.object_name for _t, cls, _ in EXPERIMENTS.values()}
            | {"modelViewPanel", "predictionPanel"})


def sentences(text: str) -> list:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def test_every_panel_experiment_and_the_model_view_have_a_short_help():
    assert set(panel_help.HELP) == EXPECTED
    for name, (what, how) in panel_help.HELP.items():
        assert 1 <= len(sentences(what)) <= 3, name  # two or three plain sentences ...
        assert 1 <= len(sentences(how)) <= 4, name  # ... and how to read the picture
        for s in sentences(what) + sentences(how):
            assert len(s.split()) <= 40, (name, s)  # short sentences
        html = panel_help.help_html(name, "Title")
        assert html.startswith("<p><b>Title</b></p>") and "How to read it:" in html


def test_f1_explains_the_panel_it_is_over(window):
    panel = window.panels["heatmapPanel"]
    inner = panel.findChildren(QtWidgets.QWidget)[-1]
    assert window.panelHelpAction.shortcut() == QtGui.QKeySequence(QtCore.Qt.Key.Key_F1)
    assert window.panelHelpAction in window.actions()  # works with the menu bar hidden
    text = window.show_panel_help(inner)
    assert panel_help.HELP["heatmapPanel"][0].split(".")[0] in text.replace("&#x27;", "'")
    assert panel.title in text
    assert bubble_text() is not None
    QtWidgets.QWhatsThis.hideText()


def test_f1_elsewhere_explains_the_panel_shown_alone(window):
    window.grid.focus("softmaxPanel")
    settle()
    QtGui.QCursor.setPos(window.mapToGlobal(QtCore.QPoint(2, 2)))  # not over a panel
    text = window.show_panel_help()
    assert "Softmax turns the chosen query" in text
    QtWidgets.QWhatsThis.hideText()


def test_the_question_mark_in_a_title_bar_explains_its_panel(make_grid):
    frame = make_grid().frames["valuesPanel"]
    assert frame.helpButton.text() == "?" and "F1" in frame.helpButton.toolTip()
    shown = []
    real = panel_help.show_help
    panel_help.show_help = lambda panel, pos=None: shown.append(panel.objectName()) or real(panel, pos)
    try:
        frame.helpButton.click()
    finally:
        panel_help.show_help = real
    assert shown == ["valuesPanel"] and bubble_text() is not None
    QtWidgets.QWhatsThis.hideText()


@pytest.mark.parametrize("dock,name", [("dockScalingLab", "scalingLabPanel"), ("dockCompare", "comparePanel"),
                                       ("dockTrain", "trainPanel")])
def test_f1_explains_an_experiment(make_parts, dock, name):
    # F1 with a widget of an experiment's dock: the help of the experiment that widget is part of (the window's
    # F1 finds the panel with ``panel_help.panel_at`` and shows it with ``show_help``).
    parts = make_parts()
    parts.experiments.open(dock)
    settle()
    panel = parts.experiments.panels[name]
    inner = panel.findChildren(QtWidgets.QWidget)[0]
    assert panel_help.panel_at(inner) is panel
    text = panel_help.show_help(panel_help.panel_at(inner))
    assert panel_help.HELP[name][1].split(".")[0][:30] in text.replace("&#x27;", "'")
    assert bubble_text() is not None
    QtWidgets.QWhatsThis.hideText()


def test_help_menu_lists_the_help_and_the_welcome(window):
    texts = [a.text().replace("&", "") for a in window.helpMenu.actions() if not a.isSeparator()]
    assert texts[:2] == [panel_help.TITLE, "Welcome\u2026"]
    window.welcomeAction.trigger()  # Help → Welcome shows the welcome, seen before or not
    assert window.welcome.isVisible()
    window.welcome.close()


# ----- the icon ---------------------------------------------------------------------------------------
def test_the_app_has_an_icon_in_every_size(qapp):
    from qkv_gui.app import ICON_SIZES, app_icon

    icon = app_icon()
    assert not icon.isNull()
    assert sorted(s.width() for s in icon.availableSizes()) == sorted(ICON_SIZES)
    image = icon.pixmap(32, 32).toImage()
    assert image.pixelColor(16, 2).alpha() == 255  # drawn, not empty
