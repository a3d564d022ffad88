"""A seeded monkey: thousands of random user actions, no uncaught exception, invariants after each.

Actions: typing in the sentence (good text, emoji, other scripts, empty), cell edits with good and bad
text, selection clicks, option toggles, dimension and seed changes, undo/redo and preset loads.
After every action: the weights' rows sum to 1 (or columns, in the column-wise teaching mode), the
heatmap shows the current weights, and the token table agrees with the scenario.
"""
import random

import numpy as np
from PySide6 import QtWidgets

from qkv_engine import compute, presets

from .conftest import settle

ACTIONS = 2000
WORDS = ["the", "cat", "sat", "on", "mat", "it", "was", "tired", ",", ".", "東京", "مرحبا", "e\u0301", "👍🏽", "?!"]
GOOD = ["0.5", "-0.25", "\u22120.7", ".3", "1e-3", "2", "0,5", "999999", "-1e6"]
BAD = ["abc", "", "nan", "inf", "-inf", "1e400", "2e6", "0x10", "--1", "1..2"]


def check_invariants(window):
    session = window.session
    result = session.result
    s = session.scenario
    assert result.scenario is s
    n = s.n
    assert result.weights.shape == (n, n)
    assert np.all(np.isfinite(result.weights)) and np.all(np.isfinite(result.output))
    if n:
        axis = 1 if s.softmax_over == "keys" else 0
        np.testing.assert_allclose(result.weights.sum(axis=axis), 1.0, atol=1e-9)
        heat = window.panels["heatmapPanel"]
        if heat.isVisible() and not heat.showing_hint():
            np.testing.assert_array_equal(np.asarray(heat.image.image), result.weights)
    model = window.findChild(QtWidgets.QTableView, "tokenTable").model()
    assert model.rowCount() == n and model.columnCount() == s.d_model + 1
    if n:
        r = n - 1
        assert model.index(r, 0).data() == s.tokens[r]
        c = s.d_model - 1
        shown = model.index(r, c + 1).data()
        assert abs(float(shown) - s.x[r, c]) <= 0.005 + 1e-9 or abs(s.x[r, c]) >= 1e4
    sel = session.selection
    assert (n == 0 and sel.query == 0 and sel.key == 0) or (0 <= sel.query < n and 0 <= sel.key < n)


def test_two_thousand_random_actions(window):
    rng = random.Random(20261129)
    session = window.session
    spins = {name: window.findChild(QtWidgets.QAbstractSpinBox, name)
             for name in ("dModelSpin", "dKSpin", "dVSpin", "seedSpin", "temperatureSpin")}
    checks = [window.findChild(QtWidgets.QCheckBox, n) for n in ("scaleCheck", "causalCheck")]
    combo = window.findChild(QtWidgets.QComboBox, "softmaxOverCombo")
    edit = window.findChild(QtWidgets.QLineEdit, "sentenceEdit")

    def typing():
        k = rng.choice([0, 1, 2, 3, 5, 8])
        text = " ".join(rng.choice(WORDS) for _ in range(k))
        edit.setText(text)
        edit.textEdited.emit(text)

    def cell():
        s = session.scenario
        matrix = rng.choice(["x", "w_q", "w_k", "w_v"])
        grid = getattr(s, matrix)
        if grid.shape[0] == 0:
            return
        r, c = rng.randrange(grid.shape[0]), rng.randrange(grid.shape[1])
        text = rng.choice(GOOD if rng.random() < 0.6 else BAD)
        session.set_cell(matrix, r, c, text)

    def click():
        n = session.scenario.n
        if n:
            session.select(rng.randrange(n), rng.randrange(n))

    def option():
        which = rng.randrange(4)
        if which < 2:
            checks[which].setChecked(not checks[which].isChecked())
        elif which == 2:
            combo.setCurrentIndex(1 - combo.currentIndex())
        else:
            spins["temperatureSpin"].setValue(rng.choice([0.05, 0.3, 1.0, 4.0, 20.0]))

    def dims():
        name = rng.choice(["dModelSpin", "dKSpin", "dVSpin", "seedSpin"])
        spins[name].setValue(rng.choice([1, 2, 3, 4, 6]) if name != "seedSpin" else rng.randrange(100))

    def undo_redo():
        (session.undo_stack.undo if rng.random() < 0.6 else session.undo_stack.redo)()

    def preset():
        window.load_preset(rng.choice(presets.names()))

    table = [(typing, 18), (cell, 35), (click, 15), (option, 10), (dims, 6), (undo_redo, 14), (preset, 2)]
    actions = [a for a, w in table for _ in range(w)]
    for step in range(ACTIONS):
        rng.choice(actions)()
        if step % 8 == 0 or step == ACTIONS - 1:
            settle(rounds=1)
            check_invariants(window)
    settle()
    check_invariants(window)
    np.testing.assert_array_equal(session.result.weights, compute(session.scenario).weights)
