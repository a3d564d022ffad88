"""Words set only when they change (``lazy_text``), and a wrapped label painted once for a new text."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from qkv_gui.labels.changed_text import set_text
from qkv_gui.labels.steady_box import steady_box

Type = QtCore.QEvent.Type
LONG = "A long line of words that needs more than one line at this width, and then some more words. " * 3


class Events(QtCore.QObject):
    """Counts paint events and postponed repaints ("update later") a widget gets."""

    def __init__(self, widget):
        super().__init__()
        self.paints = self.later = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802
        if event.type() == Type.Paint:
            self.paints += 1
        elif event.type() == Type.UpdateLater:
            self.later += 1
        return False


def settle(qapp, turns: int = 6) -> None:
    for _ in range(turns):
        qapp.processEvents()


def window_with(label_in_box: bool, selectable: bool):
    window = QtWidgets.QWidget()
    layout = QtWidgets.QVBoxLayout(window)
    label = QtWidgets.QLabel("short", window)
    label.setWordWrap(True)
    if selectable:  # a text control inside the label, as the panels' worked sums have
        label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    layout.addWidget(steady_box(label) if label_in_box else label)
    layout.addStretch(1)
    window.resize(300, 400)
    window.show()
    return window, label


def test_an_unchanged_text_is_not_set_again(qapp):
    window, label = window_with(label_in_box=True, selectable=True)
    settle(qapp)
    events = Events(label)
    set_text(label, "short")
    settle(qapp)
    assert events.paints == 0
    window.close()


def test_a_new_text_of_the_same_height_paints_a_selectable_wrapped_label_once(qapp):
    for in_box in (True, False):
        window, label = window_with(label_in_box=in_box, selectable=True)
        set_text(label, LONG)
        settle(qapp)
        height = label.height()
        events = Events(label)
        set_text(label, LONG.replace("long", "wide"))  # a new number in a worked sum, say
        # the window may paint before the posted layout requests are handled (a graphics scene with news
        # paints the window at once): the label must be ready to be painted for good right away
        label.repaint()
        settle(qapp)
        assert label.text() == LONG.replace("long", "wide") and label.height() == height
        assert events.later == 0  # the label did not ask for another paint while it painted
        if in_box:  # (a layout measures its labels when it runs, after the paint: a selectable one repaints)
            assert events.paints == 1, f"painted {events.paints} times"
        window.close()


def test_the_box_takes_the_height_a_longer_text_needs(qapp):
    window, label = window_with(label_in_box=True, selectable=True)
    settle(qapp)
    one_line = label.height()
    set_text(label, LONG)
    settle(qapp)
    assert label.height() >= label.heightForWidth(label.width()) > one_line
    window.close()


def test_the_box_gives_back_lines_only_once_the_words_stay_still(qapp, monkeypatch):
    """Words that need fewer lines are drawn at the top of their box, which keeps its height while they keep
    changing (what is below does not move at each edit), and gives the lines back after a pause."""
    from qkv_gui.labels import steady_box as steady_label

    monkeypatch.setattr(steady_label, "SHRINK_AFTER_MS", 700)  # the pause as on screen (see conftest)
    window, label = window_with(label_in_box=True, selectable=True)
    box = label.parentWidget()
    set_text(label, LONG)
    settle(qapp)
    tall, below = box.height(), window.layout().itemAt(1).geometry().top()
    for k in range(6):  # a worked sum that needs fewer lines at every other edit
        set_text(label, "short " + str(k) if k % 2 == 0 else LONG.replace("long", str(k)))
        settle(qapp)
        assert (box.height(), window.layout().itemAt(1).geometry().top()) == (tall, below)
        assert label.pos() == QtCore.QPoint(0, 0)
        assert label.height() == min(label.heightForWidth(label.width()), tall)
    QtCore.QThread.msleep(steady_label.SHRINK_AFTER_MS // 2)
    settle(qapp)
    assert box.height() == tall  # not yet: the words changed less than the pause ago
    QtCore.QThread.msleep(steady_label.SHRINK_AFTER_MS)
    settle(qapp)
    assert box.height() == label.height() == label.heightForWidth(label.width()) < tall
    assert window.layout().itemAt(1).geometry().top() < below
    window.close()


def test_after_a_new_sentence_on_a_projector_every_caption_shows_all_its_lines(make_parts, monkeypatch):
    """The panel grid and the editing docks opened at 1024 x 768, then a new sentence: no caption is shorter than
    its words. (At the first layout, a box that waited to give back a line still gave it to a layout that ran
    for another reason; when the new words needed that line again, the box was not told, and it was cut.)"""
    from qkv_engine import presets
    from qkv_gui.labels import steady_box as steady_label

    monkeypatch.setattr(steady_label, "SHRINK_AFTER_MS", 700)  # as on screen (see conftest)
    app = QtWidgets.QApplication.instance()
    window = make_parts(editors=True, size=(1024, 768))  # the window's parts on a plain main window
    settle(app, 10)
    window.session.set_scenario(presets.load("long-sentence"), preset="long-sentence")
    settle(app, 10)
    cut = [(box.label.objectName(), box.height(), box.label.heightForWidth(box.width()))
           for box in window.findChildren(steady_label.SteadyBox)
           if box.isVisible() and box.hasHeightForWidth()
           and box.height() < box.label.heightForWidth(box.width())]
    assert cut == []
