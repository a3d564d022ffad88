"""Session files with a trained model: the model's place and config, the sentence and the edits; no weights."""
from __future__ import annotations

import json

import numpy as np
import pytest

from qkv_engine import ScenarioError, presets, session_format
from qkv_engine.models import ModelEdits, ModelError, load_model
from qkv_engine.session_format import ModelRef, ModelSession

from .model_files import TINY_BERT, TINY_GPT2, copy_model, edit_config

EDITS = (ModelEdits().with_weight(1, 0, "w_k", 3, 2, -0.75).with_weight(0, 1, "b_q", 0, 4, 1.5)
         .with_input(1, 2, 5, 2.25).with_knockout(0, 1, True))
VIEW = {"layer": 1, "head": 0, "query": 3}


def test_a_model_session_round_trips(tmp_path):
    model = load_model(TINY_GPT2)
    path = tmp_path / "m.qkv.json"
    session_format.save_model_file(path, model.info, "the cat sat", EDITS, VIEW)
    got = session_format.load_any(path)
    assert isinstance(got, ModelSession)
    assert got.ref == ModelRef(TINY_GPT2, "tiny-gpt2", model.info.config_sha256)
    assert got.text == "the cat sat" and got.edits == EDITS and got.view == VIEW
    ref, text, edits, view = got  # it is also the plain tuple (ref, text, edits, view)
    again = session_format.open_model(ref)
    np.testing.assert_array_equal(again.run(text, edits).hidden, model.run("the cat sat", EDITS).hidden)


def test_no_weights_are_written(tmp_path):
    model = load_model(TINY_BERT)
    path = tmp_path / "m.qkv.json"
    session_format.save_model_file(path, model.info, "the cat", EDITS)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert set(doc) == {"format", "version", "model", "text", "edits", "view"}
    assert doc["version"] == 3 and doc["model"]["family"] == "bert"
    assert path.stat().st_size < 2000  # the names and the edits, nothing of the checkpoint


def test_a_hand_made_session_still_opens_with_load_any(tmp_path):
    path = tmp_path / "h.qkv.json"
    session_format.save_file(path, presets.load("seed-cat"), {"query": 1})
    scenario, view = session_format.load_any(path)
    assert scenario == presets.load("seed-cat") and view == {"query": 1}


def test_a_model_session_given_to_the_hand_made_loader_says_what_it_is(tmp_path):
    path = tmp_path / "m.qkv.json"
    session_format.save_model_file(path, load_model(TINY_BERT).info, "x")
    with pytest.raises(ScenarioError, match="trained model"):
        session_format.load_file(path)


def test_a_missing_model_says_which_and_where(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "mine")
    info = load_model(folder).info
    path = tmp_path / "m.qkv.json"
    session_format.save_model_file(path, info, "the cat")
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()
    ref = session_format.load_any(path).ref
    with pytest.raises(ModelError) as err:
        session_format.open_model(ref)
    assert str(err.value) == f"This session needs the model 'mine', which was at {folder}: not found"


def test_a_changed_model_is_refused(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "mine")
    info = load_model(folder).info
    edit_config(folder, layer_norm_eps=1e-6)
    with pytest.raises(ModelError, match=r"^This session needs the model 'mine', which was at .*: its config.json "
                                         r"has changed$"):
        session_format.open_model(ModelRef(folder, info.name, info.config_sha256))


@pytest.mark.parametrize("change, fragment", [
    (lambda d: d["model"].pop("path"), "model.path: expected text"),
    (lambda d: d.update(model="x"), "model: expected an object"),
    (lambda d: d.update(text=3), "text: expected text"),
    (lambda d: d["edits"].update(weights=[[0, 0, "w_x", 0, 0, 1.0]]), "edits: 'w_x' is not one of"),
    (lambda d: d["edits"].update(inputs=[[0, 0, 0, "big"]]), "edits: the new value must be a number"),
    (lambda d: d["edits"].update(knocked_out=[[0]]), "edits: a knocked-out head is (layer, head)"),
    (lambda d: d["edits"].update(weights="none"), "edits.weights: expected a list of lists"),
    (lambda d: d.update(view=[]), "view: expected an object"),
    (lambda d: d.update(version=2), "start at version 3"),
    (lambda d: d.update(version=9), "not supported"),
])
def test_bad_model_sessions_are_named(tmp_path, change, fragment):
    doc = session_format.model_to_dict(load_model(TINY_BERT).info, "the cat", EDITS, VIEW)
    change(doc)
    path = tmp_path / "bad.qkv.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        session_format.load_any(path)
    assert fragment in str(err.value)
