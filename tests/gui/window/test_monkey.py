"""A seeded monkey: thousands of random user actions, no uncaught exception, invariants after each.

Actions: typing in the sentence (good text, emoji, other scripts, empty), cell edits with good and bad
text, selection clicks, option toggles, dimension and seed changes, heads and the shown head, masks
(padding, blocked cells, clear), cross-attention and its source sentence, undo/redo and preset loads.
After every few actions: the weights are n x m and finite; each row sums to 1 (or each column, in the
column-wise teaching mode), or to 0 where every entry is masked; the heatmap shows the current weights,
and the token table agrees with the scenario. Once as on a big screen, once on a small screen in lesson
mode with three experiments open.
"""
import random

import numpy as np
import pytest
from PySide6 import QtWidgets

from qkv_engine import compute, presets

from tests.gui.conftest import settle

ACTIONS = 2000
WORDS = ["the", "cat", "sat", "on", "mat", "it", "was", "tired", ",", ".", "東京", "مرحبا", "e\u0301", "👍🏽", "?!"]
GOOD = ["0.5", "-0.25", "\u22120.7", ".3", "1e-3", "2", "0,5", "999999", "-1e6"]
BAD = ["abc", "", "nan", "inf", "-inf", "1e400", "2e6", "0x10", "--1", "1..2"]


def check_invariants(window):
    session = window.session
    result = session.result
    s = session.scenario
    full = session.full_result
    assert full.scenario is s and result is full.heads[session.head]
    n, m = s.n, s.n_keys
    assert result.weights.shape == (n, m)
    assert np.all(np.isfinite(result.weights)) and np.all(np.isfinite(result.output))
    assert np.all(np.isfinite(full.projected))
    if n and m:
        axis = 1 if s.softmax_over == "keys" else 0
        expected = result.allowed.any(axis=axis).astype(float)  # 1, or 0 where everything is masked
        np.testing.assert_allclose(result.weights.sum(axis=axis), expected, atol=1e-9)
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
    assert 0 <= sel.query < max(n, 1) and 0 <= sel.key < max(m, 1)


@pytest.mark.slow
def test_two_thousand_random_actions(window):
    run_monkey(window, random.Random(20261129))


@pytest.mark.slow
def test_random_actions_on_a_small_screen_in_lesson_mode_beside_experiments(window):
    # A 1024 x 768 projector: the grid scrolls, the docks share tabs, the lesson text follows every
    # change (it once raised IndexError with cross-attention's source cleared).
    window.resize(1008, 720)
    for name in ("dockScalingLab", "dockHeads", "dockCompare"):
        window.open_experiment(name)
    window.findChild(QtWidgets.QPushButton, "pinButton").click()
    window.enter_lesson_mode()
    settle()
    run_monkey(window, random.Random(7))
    assert window.lesson.active and window.lesson.text()
    assert (window.width(), window.height()) == (1008, 720)


def run_monkey(window, rng: random.Random) -> None:
    session = window.session
    spins = {name: window.findChild(QtWidgets.QAbstractSpinBox, name)
             for name in ("dModelSpin", "dKSpin", "dVSpin", "seedSpin", "temperatureSpin")}
    checks = [window.findChild(QtWidgets.QCheckBox, n) for n in ("scaleCheck", "causalCheck")]
    combo = window.findChild(QtWidgets.QComboBox, "softmaxOverCombo")
    edit = window.findChild(QtWidgets.QLineEdit, "sentenceEdit")
    source = window.findChild(QtWidgets.QLineEdit, "sourceEdit")
    cross = window.findChild(QtWidgets.QCheckBox, "crossCheck")
    heads_spin = window.findChild(QtWidgets.QSpinBox, "headsSpin")
    head_combo = window.findChild(QtWidgets.QComboBox, "headCombo")

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
        n, m = session.scenario.n, session.scenario.n_keys
        if n and m:
            session.select(rng.randrange(n), rng.randrange(m))

    def heads():
        if rng.random() < 0.5:
            heads_spin.setValue(rng.choice([1, 2, 3]))
        elif head_combo.count():
            head_combo.setCurrentIndex(rng.randrange(head_combo.count()))

    def mask():
        n, m = session.scenario.n, session.scenario.n_keys
        which = rng.random()
        if which < 0.1:
            session.clear_masks()
        elif m and which < 0.45:
            session.toggle_padding(rng.randrange(m))
        elif n and m:
            session.toggle_blocked(rng.randrange(n), rng.randrange(m))

    def cross_attention():
        if rng.random() < 0.4:
            cross.setChecked(not cross.isChecked())
        elif session.scenario.is_cross:
            text = " ".join(rng.choice(WORDS) for _ in range(rng.choice([0, 1, 3, 6])))
            source.setText(text)
            source.textEdited.emit(text)

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

    table = [(typing, 16), (cell, 30), (click, 13), (option, 9), (dims, 5), (heads, 5), (mask, 8),
             (cross_attention, 5), (undo_redo, 12), (preset, 2)]
    actions = [a for a, w in table for _ in range(w)]
    for step in range(ACTIONS):
        rng.choice(actions)()
        if step % 8 == 0 or step == ACTIONS - 1:
            settle(rounds=1)
            check_invariants(window)
    settle()
    check_invariants(window)
    np.testing.assert_array_equal(session.result.weights, compute(session.scenario, session.head).weights)
