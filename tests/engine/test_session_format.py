"""Saving and opening session files: round trips, clear refusals, atomic writes."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from qkv_engine import Scenario, ScenarioError, presets, session_format

VIEW = {"query": 2, "key": 1, "lesson_step": 5, "panel": "heatmap"}


def sample() -> Scenario:
    return Scenario.from_sentence(
        "The dog saw the other dog.", d_model=5, d_k=3, d_v=2, seed=4,
        causal=True, temperature=0.3 + 0.1 * 1.7, softmax_over="queries", scale=False,
    ).with_cell("x", 1, 2, 1 / 3).with_cell("w_q", 0, 0, -123456.789012345)


def valid_doc() -> dict:
    return json.loads(session_format.dumps(sample(), VIEW))


# ----- round trips -----------------------------------------------------------------------
@pytest.mark.parametrize("name", presets.names())
def test_every_preset_round_trips_through_text(name):
    s = presets.load(name)
    loaded, view = session_format.loads(session_format.dumps(s, VIEW))
    assert loaded == s
    assert view == VIEW


def test_round_trip_keeps_every_bit_and_option():
    s = sample()
    loaded, view = session_format.loads(session_format.dumps(s, VIEW))
    assert loaded == s
    assert loaded.temperature == s.temperature and loaded.x[1, 2] == 1 / 3
    assert (loaded.causal, loaded.scale, loaded.softmax_over, loaded.seed) == (True, False, "queries", 4)
    assert loaded.text == s.text and loaded.spans == s.spans
    assert view == VIEW


def test_round_trip_through_a_file(tmp_path):
    path = tmp_path / ("lesson" + session_format.SUFFIX)
    s = sample()
    session_format.save_file(path, s, VIEW)
    loaded, view = session_format.load_file(path)
    assert loaded == s and view == VIEW
    session_format.save_file(str(path), presets.load("seed-cat"))  # overwrite, path as text
    loaded, view = session_format.load_file(str(path))
    assert loaded == presets.load("seed-cat") and view == {}
    assert sorted(os.listdir(tmp_path)) == [path.name]  # no temporary file left behind


def test_file_is_readable_json_with_format_and_version(tmp_path):
    path = tmp_path / "s.qkv.json"
    session_format.save_file(path, sample(), VIEW)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["format"] == "qkv-visualizer" and doc["version"] == session_format.VERSION == 3
    assert doc["scenario"]["tokens"] == list(sample().tokens)
    assert doc["view"] == VIEW


def test_non_ascii_text_round_trips(tmp_path):
    s = Scenario.from_sentence("東京 naïve 👍🏽 مرحبا", seed=1)
    path = tmp_path / "u.qkv.json"
    session_format.save_file(path, s)
    assert session_format.load_file(path)[0] == s


def test_scenario_without_text_round_trips():
    s = Scenario(tokens=("a", "b"), x=np.eye(2), w_q=np.eye(2), w_k=np.eye(2), w_v=np.eye(2))
    loaded, _ = session_format.loads(session_format.dumps(s))
    assert loaded == s and loaded.text is None and loaded.spans is None


def test_empty_scenario_round_trips():
    s = Scenario.from_sentence("", d_model=3, d_k=2, d_v=2)
    loaded, _ = session_format.loads(session_format.dumps(s))
    assert loaded == s and loaded.n == 0 and loaded.d_model == 3


def test_truncated_sentence_round_trips():
    # A sentence longer than MAX_TOKENS: the count of dropped tokens is part of
    # the scenario (it compares equal only with the same count), so saving and
    # opening must keep it.
    text = " ".join(f"w{i}" for i in range(520))
    s = Scenario.from_sentence(text, d_model=2, d_k=1, d_v=1)
    assert s.dropped == 8
    loaded, _ = session_format.loads(session_format.dumps(s))
    assert loaded.dropped == s.dropped
    assert loaded == s


# ----- refusals --------------------------------------------------------------------------
def refused(text: str, *fragments: str) -> str:
    with pytest.raises(ScenarioError) as info:
        session_format.loads(text)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


def with_change(change) -> str:
    doc = valid_doc()
    change(doc)
    return json.dumps(doc)


def test_invalid_json():
    refused("{not json", "not valid JSON", "line 1")


def test_truncated_file():
    text = session_format.dumps(sample(), VIEW)
    refused(text[: len(text) // 2], "not valid JSON")
    refused("", "not valid JSON")


def test_not_an_object():
    refused("[1, 2, 3]", "not a session")


def test_wrong_format_field():
    refused(with_change(lambda d: d.update(format="something-else")), "not a session", "something-else", "format")
    refused(with_change(lambda d: d.pop("format")), "not a session", "format")


@pytest.mark.parametrize("version", [4, 0, "1", None])
def test_unsupported_version(version):
    refused(with_change(lambda d: d.update(version=version)), "version", "not supported")


@pytest.mark.parametrize("field", ["tokens", "x", "w_q", "w_k", "w_v"])
def test_missing_field(field):
    refused(with_change(lambda d: d["scenario"].pop(field)), f"scenario.{field}", "missing")


def test_missing_scenario():
    refused(with_change(lambda d: d.pop("scenario")), "scenario", "missing")


def test_a_string_in_a_matrix_names_the_cell():
    def change(d):
        d["scenario"]["x"][1][2] = "0.5"

    refused(with_change(change), "scenario.x[1][2]", "expected a number", '"0.5"')


@pytest.mark.parametrize("cell", [True, None, [1.0]])
def test_other_non_numbers_in_a_matrix_name_the_cell(cell):
    def change(d):
        d["scenario"]["w_v"][0][1] = cell

    refused(with_change(change), "scenario.w_v[0][1]", "expected a number")


def test_ragged_rows():
    refused(with_change(lambda d: d["scenario"]["w_k"][2].pop()), "scenario.w_k", "different lengths")


def test_a_row_that_is_not_a_list():
    refused(with_change(lambda d: d["scenario"]["w_q"].__setitem__(1, 3.0)), "scenario.w_q[1]")


def test_wrong_shapes():
    refused(with_change(lambda d: d["scenario"]["w_q"].pop()), "scenario.w_q", "expected shape")
    refused(with_change(lambda d: d["scenario"]["tokens"].append("extra")), "scenario.x", "expected shape")
    refused(with_change(lambda d: d["scenario"]["w_v"].pop()), "scenario.w_v", "expected shape")
    refused(with_change(lambda d: d["scenario"]["x"].pop()), "scenario.x", "expected shape")
    refused(with_change(lambda d: [row.append(0.0) for row in d["scenario"]["w_k"]]), "scenario.w_k", "expected shape")


def test_bad_numbers_in_a_matrix():
    def change(d):
        d["scenario"]["w_v"][0][0] = 5e6

    refused(with_change(change), "scenario.w_v[0][0]", "beyond the limit")
    refused(session_format.dumps(sample()).replace('"temperature": ', '"temperature": -', 1), "temperature")


@pytest.mark.parametrize(
    "field,value,fragment",
    [
        ("scale", "yes", "scenario.scale"),
        ("causal", 1, "scenario.causal"),
        ("softmax_over", "rows", "softmax_over"),
        ("temperature", "warm", "scenario.temperature"),
        ("seed", 1.5, "scenario.seed"),
        ("text", 5, "scenario.text"),
        ("spans", [[0, 1]], "spans"),
        ("spans", "0-3", "scenario.spans"),
        ("tokens", ["a", 1], "scenario.tokens"),
    ],
)
def test_bad_options(field, value, fragment):
    refused(with_change(lambda d: d["scenario"].update({field: value})), fragment)


def test_view_must_be_an_object():
    refused(with_change(lambda d: d.update(view=[1])), "view")


def test_a_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.qkv.json"
    path.write_bytes(session_format.dumps(sample()).encode("utf-8").replace(b"The", b"Th\xe9"))
    with pytest.raises(ScenarioError, match="not UTF-8"):
        session_format.load_file(path)


def test_a_missing_file(tmp_path):
    path = tmp_path / "nowhere.qkv.json"
    with pytest.raises(ScenarioError, match="cannot read") as info:
        session_format.load_file(path)
    assert "nowhere.qkv.json" in str(info.value)


def test_a_folder_instead_of_a_file(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read"):
        session_format.load_file(tmp_path)


def test_a_corrupt_file(tmp_path):
    path = tmp_path / "bad.qkv.json"
    text = session_format.dumps(sample())
    path.write_text(text[:-40], encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid JSON"):
        session_format.load_file(path)


# ----- atomic saving ---------------------------------------------------------------------
class Boom(OSError):
    pass


def _boom(*args, **kwargs):
    raise Boom("disk full")


@pytest.mark.parametrize("step", ["replace", "fsync", "write"])
def test_a_failed_save_leaves_the_previous_file_intact(tmp_path, monkeypatch, step):
    path = tmp_path / "keep.qkv.json"
    session_format.save_file(path, presets.load("seed-cat"), {"query": 0})
    before = path.read_bytes()

    if step == "replace":
        monkeypatch.setattr(session_format.os, "replace", _boom)
    elif step == "fsync":
        monkeypatch.setattr(session_format.os, "fsync", _boom)
    else:
        real_fdopen = os.fdopen

        class FailingWrite:
            def __init__(self, fh):
                self.fh = fh

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.fh.close()
                return False

            def write(self, data):
                self.fh.write(data[: len(data) // 2])  # half the bytes reach the disk...
                self.fh.flush()
                raise Boom("disk full")  # ...then the write fails

            def __getattr__(self, name):
                return getattr(self.fh, name)

        monkeypatch.setattr(session_format.os, "fdopen", lambda *a, **k: FailingWrite(real_fdopen(*a, **k)))

    with pytest.raises(Boom):
        session_format.save_file(path, sample(), VIEW)
    monkeypatch.undo()

    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]  # the temporary file was removed
    assert session_format.load_file(path) == (presets.load("seed-cat"), {"query": 0})


def test_a_failed_first_save_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(session_format.os, "replace", _boom)
    with pytest.raises(Boom):
        session_format.save_file(tmp_path / "new.qkv.json", sample())
    assert os.listdir(tmp_path) == []


def test_version_1_documents_still_load():
    s = sample()
    doc = session_format.to_dict(s, VIEW)
    doc["version"] = 1
    for key in ("padding", "blocked", "n_heads", "w_o", "source"):
        del doc["scenario"][key]
    back, view = session_format.from_dict(doc)
    assert back == s and view == VIEW
