"""Every bad input gets an answer and loses nothing: huge pastes, limits, and errors inside slots."""

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from qkv_engine import MAX_TOKENS
from qkv_gui import app as app_module
from qkv_gui.editors import SentenceOptionsWidget

from tests.gui.conftest import settle


def test_a_ten_thousand_word_paste_keeps_the_first_tokens_and_says_so(make_panel, make_grid):
    options = make_panel(SentenceOptionsWidget, size=(400, 600))
    make_grid(session=options.session)  # the panels draw what was kept
    text = " ".join(f"word{i % 300}" for i in range(10_000))
    edit = options.findChild(QtWidgets.QLineEdit, "sentenceEdit")
    edit.setText(text)
    edit.textEdited.emit(text)
    settle()
    s = options.session.scenario
    assert s.n == MAX_TOKENS and s.dropped == 10_000 - MAX_TOKENS
    label = options.findChild(QtWidgets.QLabel, "messageLabel")
    assert label.isVisible()
    assert f"Kept the first {MAX_TOKENS} tokens" in label.text() and f"{10_000 - MAX_TOKENS} more" in label.text()
    assert edit.text() == text  # nothing the user typed is thrown away


@pytest.mark.parametrize("spin, value", [("dModelSpin", 1), ("dKSpin", 1), ("dVSpin", 1),
                                         ("dModelSpin", 64), ("dKSpin", 64), ("dVSpin", 64)])
def test_dimensions_at_their_limits(make_panel, make_grid, spin, value):
    options = make_panel(SentenceOptionsWidget, size=(400, 600))
    grid = make_grid(session=options.session)  # the nine panels on the same Session
    box = options.findChild(QtWidgets.QSpinBox, spin)
    box.setValue(value)
    settle()
    r = options.session.result
    assert {"dModelSpin": r.scenario.d_model, "dKSpin": r.scenario.d_k, "dVSpin": r.scenario.d_v}[spin] == value
    np.testing.assert_allclose(r.weights.sum(axis=1), 1.0)
    assert box.maximum() == 64 and box.minimum() == 1
    assert all(p.paint_count and not p.showing_hint() for p in grid.panels.values())


@pytest.mark.parametrize("t", [0.05, 20.0])
def test_temperature_at_its_limits(make_panel, t):
    options = make_panel(SentenceOptionsWidget, size=(400, 400))
    spin = options.findChild(QtWidgets.QDoubleSpinBox, "temperatureSpin")
    spin.setValue(t)
    settle()
    r = options.session.result
    assert r.scenario.temperature == t
    assert np.all(np.isfinite(r.weights))
    np.testing.assert_allclose(r.weights.sum(axis=1), 1.0)


def test_huge_values_keep_every_result_finite(make_session):
    session = make_session()
    for r in range(3):
        for c in range(4):
            session.set_cell("x", r, c, "1e6" if (r + c) % 2 else "-1e6")
    settle()
    res = session.result
    for name in ("q", "k", "v", "scores", "weights", "output"):
        assert np.all(np.isfinite(getattr(res, name))), name
    np.testing.assert_allclose(res.weights.sum(axis=1), 1.0)
    assert session.scenario.x[0, 1] == 1e6


@pytest.mark.qt_no_exception_capture
def test_an_error_inside_a_slot_is_shown_once_and_the_app_goes_on(make_panel, monkeypatch):
    # The dialog is given the window it stands over; here the sentence box on its Session stands for it.
    window = make_panel(SentenceOptionsWidget, size=(400, 400))
    shown = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "exec", lambda self: shown.append(self.informativeText()) or 0)
    import sys

    old_hook = sys.excepthook
    try:
        app_module._install_exception_dialog(window)

        def broken():
            raise RuntimeError("a slot that breaks")

        loop = QtCore.QEventLoop()
        for delay in (0, 10, 20):
            QtCore.QTimer.singleShot(delay, broken)
        QtCore.QTimer.singleShot(200, loop.quit)
        loop.exec()  # errors inside slots reach sys.excepthook, as in the running app
    finally:
        sys.excepthook = old_hook
    assert shown == ["RuntimeError: a slot that breaks"]
    window.sentenceEdit.setText("Still working")
    window.sentenceEdit.textEdited.emit("Still working")
    settle()
    assert window.session.result.n == 2 and window.isVisible()
