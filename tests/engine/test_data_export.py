"""The numbers as files: every CSV read back equals the computation, the JSON reopens the session."""
import json

import numpy as np

from qkv_engine import Scenario, compute, compute_heads, data_export, presets, session_format

from .reference import attention_of, multi_head_of


def read(folder, stem):
    return data_export.read_csv((folder / f"{stem}.csv").read_text(encoding="utf-8"))


def test_every_csv_read_back_equals_an_independent_computation(tmp_path):
    scenario = presets.load("repeated-word").with_options(causal=True)
    written = data_export.write_data(tmp_path, compute(scenario))
    assert {p.name for p in written} == {f"{s}.csv" for s in data_export.DATA_FILES} | {"attention.json"}
    ref = attention_of(scenario)  # loops over plain lists, nothing from the engine
    labels = ["The", "dog", "saw", "the", "other", "dog (2)", "."]
    assert list(scenario.tokens) == ["The", "dog", "saw", "the", "other", "dog", "."]
    expected = {"x": scenario.x, "w_q": scenario.w_q, "w_k": scenario.w_k, "w_v": scenario.w_v,
                "q": ref.q, "k": ref.k, "v": ref.v, "scores": ref.scores, "scaled": ref.scaled,
                "weights": ref.weights, "output": ref.output}
    assert set(expected) == set(data_export.DATA_FILES)
    for stem, want in expected.items():
        table = read(tmp_path, stem)
        np.testing.assert_allclose(table.values, np.array(want, dtype=float), rtol=1e-12, atol=1e-12,
                                   err_msg=stem)
        if stem in ("scores", "scaled", "weights"):
            assert table.header[1:] == labels and table.rows == labels
        elif stem in ("x", "q", "k", "v", "output"):
            assert table.rows == labels
        elif stem.startswith("w_"):
            assert table.rows == ["x1", "x2", "x3", "x4"][: scenario.d_model]
    assert np.isneginf(read(tmp_path, "scaled").values[2, 3])  # the causal mask, kept as -inf
    # Full precision: what the app computed, bit for bit.
    assert np.array_equal(read(tmp_path, "weights").values, compute(scenario).weights)


def test_the_json_holds_the_same_matrices_and_reopens_the_session(tmp_path):
    scenario = presets.load("repeated-word").with_options(causal=True)
    result = compute(scenario)
    data_export.write_data(tmp_path, result, preset="repeated-word")
    doc = json.loads((tmp_path / "attention.json").read_text(encoding="utf-8"))
    assert doc["tokens"] == list(scenario.tokens) and doc["labels"][5] == "dog (2)"
    m = doc["matrices"]
    assert set(m) == set(data_export.DATA_FILES)
    for stem in data_export.DATA_FILES:
        csv_values = read(tmp_path, stem).values
        json_values = np.array([[np.nan if v is None else v for v in row] for row in m[stem]], dtype=float)
        open_cells = ~np.isneginf(csv_values)
        assert np.array_equal(json_values[open_cells], csv_values[open_cells]), stem
        assert np.isnan(json_values[~open_cells]).all(), stem  # -inf is null in JSON
    reopened, view = session_format.from_dict(doc["session"])
    assert reopened == scenario and view["preset"] == "repeated-word"


def test_cross_attention_with_heads_names_source_tokens_and_adds_w_o(tmp_path):
    scenario = (Scenario.from_sentence("the black cat", seed=2).with_heads(2).with_source("le chat noir dort")
                .with_padding(3))
    full = compute_heads(scenario)
    written = {p.name for p in data_export.write_data(tmp_path, full.heads[1], full=full)}
    assert {"x_source.csv", "concat.csv", "w_o.csv", "projected.csv"} <= written
    ref = multi_head_of(scenario)
    keys = ["le", "chat", "noir", "dort"]
    weights = read(tmp_path, "weights")
    assert weights.header[1:] == keys and weights.rows == ["the", "black", "cat"]
    np.testing.assert_allclose(weights.values, ref.heads[1].weights, atol=1e-12)
    assert weights.values[:, 3].tolist() == [0.0, 0.0, 0.0]  # 'dort' is padding
    v = read(tmp_path, "v")
    assert v.rows == keys and v.header[0] == "key token"
    np.testing.assert_allclose(v.values, ref.heads[1].v, atol=1e-12)
    assert read(tmp_path, "w_q").header[0] == "W^Q (head 2)"
    np.testing.assert_allclose(read(tmp_path, "concat").values, ref.concat, atol=1e-12)
    np.testing.assert_allclose(read(tmp_path, "projected").values, ref.projected, atol=1e-12)
    assert read(tmp_path, "w_o").rows == ["h1.v1", "h1.v2", "h1.v3", "h2.v1", "h2.v2", "h2.v3"][: 2 * scenario.d_v]
    doc = json.loads((tmp_path / "attention.json").read_text(encoding="utf-8"))
    assert doc["key_tokens"] == keys and doc["settings"]["head"] == 1 and doc["settings"]["n_heads"] == 2
    assert set(doc["matrices"]) == {p[:-4] for p in written if p.endswith(".csv")}
    back, view = session_format.from_dict(doc["session"])
    assert back == scenario and view["head"] == 1  # the whole scenario, every head, not only the shown one
    assert any("Cross-attention" in line for line in doc["about"])
    assert any("padding ('dort')" in line for line in doc["about"])


def test_an_empty_sentence_still_writes_every_file(tmp_path):
    scenario = presets.load("seed-cat").with_text("")
    written = data_export.write_data(tmp_path, compute(scenario))
    assert len(written) == len(data_export.DATA_FILES) + 1
    weights = read(tmp_path, "weights")
    assert weights.values.shape == (0, 0) and weights.rows == []


def test_biases_are_written_when_there_are_some(tmp_path):
    scenario = presets.load("seed-the-cat-sat").with_heads(2)
    assert not {"b_q.csv", "b_k.csv", "b_v.csv"} & {p.name for p in data_export.write_data(tmp_path / "none",
                                                                                          compute(scenario))}
    scenario = scenario.with_cell("b_q", 0, 3, 0.5).with_cell("b_v", 0, 1, -0.25)
    full = compute_heads(scenario)
    result = full.heads[1]
    data_export.write_data(tmp_path, result, full=full)
    x, w_q, b_q, q = (read(tmp_path, stem) for stem in ("x", "w_q", "b_q", "q"))
    assert b_q.rows == ["bias"] and b_q.header[0] == "b^Q (head 2)"
    d_k = scenario.d_k
    np.testing.assert_array_equal(b_q.values[0], scenario.b_q[d_k:2 * d_k])  # head 2's part
    np.testing.assert_allclose(q.values, x.values @ w_q.values + b_q.values, atol=1e-12)  # the files agree
    v = read(tmp_path, "v")
    np.testing.assert_allclose(v.values, x.values @ read(tmp_path, "w_v").values + read(tmp_path, "b_v").values,
                               atol=1e-12)


def test_a_trained_heads_settings_name_the_model_and_no_seed():
    from pathlib import Path

    from qkv_engine.data_export import ModelSource, settings_lines
    from qkv_engine.models import load_model

    model = load_model(Path(__file__).resolve().parents[1] / "data" / "tiny-gpt2")
    trace = model.run("the cat sat")
    result = compute(model.head_scenario(trace, 1, 0))
    lines = settings_lines(result, model=ModelSource(model.info, "the cat sat", trace.edits, 1, 0))
    assert lines[0] == "Trained model tiny-gpt2, layer 2 of 2, head 1 of 2."
    assert not any("seed" in line for line in lines)
    assert any("causal" in line for line in lines)


def test_csv_headers_carry_the_feature_and_column_names(tmp_path):
    s = presets.load("designed-it").with_column_name("q", 1, "").with_options(b_q=np.array([0.5, 0.0]))
    data_export.write_data(tmp_path, compute(s))
    features = ["x1 \u00b7 animate", "x2 \u00b7 noun", "x3 \u00b7 pronoun", "x4 \u00b7 verb"]
    assert read(tmp_path, "x").header == ["token"] + features
    assert read(tmp_path, "w_q").rows == features and read(tmp_path, "w_k").rows == features
    assert read(tmp_path, "w_q").header == ["W^Q", "q1 \u00b7 looks for animate", "q2"]  # an empty name: q2
    assert read(tmp_path, "q").header[1:] == read(tmp_path, "b_q").header[1:] == ["q1 \u00b7 looks for animate",
                                                                                    "q2"]
    assert read(tmp_path, "k").header[1:] == ["k1 \u00b7 is animate", "k2 \u00b7 is a noun"]
    assert read(tmp_path, "v").header[1:] == ["v1 \u00b7 animate", "v2 \u00b7 noun"]
    assert read(tmp_path, "output").header[1:] == ["out1 \u00b7 animate", "out2 \u00b7 noun"]
    # the numbers under the named headers are still the computation's
    np.testing.assert_array_equal(read(tmp_path, "output").values, compute(s).output)
    # with several heads each head's file names that head's columns
    two = s.with_heads(2).with_column_name("k", 2, "looks twice")
    full = compute_heads(two)
    tables = data_export.data_tables(full.heads[1], full)
    assert tables["k"].header[1:] == ["k1 \u00b7 looks twice", "k2"]
    assert tables["w_k"].rows == features
