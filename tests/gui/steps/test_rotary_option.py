"""The hand-made mode's rotary option (sentence and options dock): on, the same two words score differently
at different distances; undoable; θ typed badly is refused with a message under the box; kept in session files."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import compute, session_format
from qkv_gui.editors.inputs_dock import SentenceOptionsWidget
from tests.gui.conftest import settle


@pytest.fixture
def options(make_panel):
    widget = make_panel(SentenceOptionsWidget, size=(360, 700))
    s = widget.session
    s.set_text("cat sat cat sat cat sat")
    s.set_dims(d_k=4)
    s.flush()
    settle()
    return widget


def _same_pair_scores(session):
    """q of 'cat' at 2 against k of 'sat' at 1 (distance 1) and at 5 (distance -3)."""
    r = session.result
    return float(r.scores[2, 1]), float(r.scores[2, 5])


def test_rotary_on_changes_the_same_two_words_scores_and_undoes(options):
    s = options.session
    near, far = _same_pair_scores(s)
    assert near == pytest.approx(far)  # no positions: 'sat' is 'sat' wherever it is
    options.rotaryCheck.click()
    s.flush()
    assert s.scenario.rotary and options.rotaryCheck.isChecked()
    near_r, far_r = _same_pair_scores(s)
    assert abs(near_r - far_r) > 1e-3  # the same two words, two distances, two scores
    # what the engine says for the turned vectors, worked out here by turning them
    r = s.result
    q = np.asarray(r.q_unrotated[2])
    k = np.asarray(r.k_unrotated[1])
    h = 2
    f = 10000.0 ** (-2.0 * np.arange(h) / 4)

    def turned(v, p):
        a = p * f
        return np.concatenate([v[:h] * np.cos(a) - v[h:] * np.sin(a), v[h:] * np.cos(a) + v[:h] * np.sin(a)])

    assert near_r == pytest.approx(float(turned(q, 2) @ turned(k, 1)), abs=1e-6)
    assert far_r == pytest.approx(float(turned(q, 2) @ turned(k, 5)), abs=1e-6)
    s.undo_stack.undo()
    s.flush()
    settle()
    assert not s.scenario.rotary and not options.rotaryCheck.isChecked()
    assert _same_pair_scores(s) == pytest.approx((near, far))


def test_theta_typed_well_and_badly(options):
    s = options.session
    options.rotaryCheck.click()
    s.flush()
    edit = options.ropeThetaEdit
    assert edit.text() == "10000"
    before = _same_pair_scores(s)
    edit.setText("100")
    edit.editingFinished.emit()
    s.flush()
    assert s.scenario.rope_theta == 100.0 and options.ropeThetaMessage.isHidden()
    assert _same_pair_scores(s) != pytest.approx(before)
    for bad, words in (("ten", "must be a number"), ("1", "above 1"), ("-5", "above 1"), ("1e40", "too big")):
        edit.setText(bad)
        edit.editingFinished.emit()
        s.flush()
        settle()
        assert s.scenario.rope_theta == 100.0  # nothing lost
        assert edit.text() == bad  # what was typed stays to be corrected
        assert options.ropeThetaMessage.isVisibleTo(options) and words in options.ropeThetaMessage.text()
    edit.setText("500,000")
    edit.editingFinished.emit()
    s.flush()
    settle()
    assert s.scenario.rope_theta == 500000.0 and options.ropeThetaMessage.isHidden()
    s.undo_stack.undo()
    s.flush()
    settle()
    assert s.scenario.rope_theta == 100.0 and edit.text() == "100"


def test_rotary_and_theta_are_kept_in_a_session_file(options, tmp_path):
    s = options.session
    s.set_rotary(on=True, theta=250.0)
    s.flush()
    path = tmp_path / "rope.qkv.json"
    session_format.save_file(path, s.scenario, s.view_state())
    back, _view = session_format.load_file(path)
    assert back.rotary and back.rope_theta == 250.0
    assert np.allclose(compute(back).scores, s.result.scores)
