"""The session's view settings that are not edits: the colour scale (kept in session files) and the model
view's data and head choice."""
from __future__ import annotations

import pytest

from qkv_engine import presets
from qkv_gui.state.session import Session


def test_colour_scale_is_a_view_setting_with_a_signal_and_no_undo_step(qtbot):
    s = Session()
    assert s.colour_scale == "auto"
    seen = []
    s.colourScaleChanged.connect(seen.append)
    steps = s.undo_stack.count()
    s.set_colour_scale("row")
    s.set_colour_scale("row")  # no change, no signal
    assert s.colour_scale == "row" and seen == ["row"] and s.undo_stack.count() == steps
    with pytest.raises(ValueError, match="colour scale"):
        s.set_colour_scale("log")
    assert s.colour_scale == "row"


def test_session_files_keep_the_colour_scale_when_they_carry_it(qtbot):
    s = Session()
    s.set_colour_scale("absolute")
    view = s.view_state()
    assert view["colour_scale"] == "absolute"
    other = Session()
    other.set_scenario(presets.load("pronoun"), view=view)
    assert other.colour_scale == "absolute"
    other.set_scenario(presets.load("pronoun"), view={"query": 1})  # an older file: the setting stays
    assert other.colour_scale == "absolute"
    other.set_scenario(presets.load("pronoun"), view={"colour_scale": "sideways"})  # nonsense is ignored
    assert other.colour_scale == "absolute"


def test_model_view_data_starts_empty(qtbot):
    s = Session()
    assert s.model_view_data is None
    seen = []
    s.modelViewChanged.connect(seen.append)
    s.modelViewChanged.emit(None)
    assert seen == [None]
