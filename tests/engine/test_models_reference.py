"""A trained model's numbers equal the transformers library's (tests/data/*/reference_outputs.npz),
and one head stepped into as a Scenario gives the same numbers through ``compute``."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import compute, compute_heads, explain
from qkv_engine.models import ModelEdits, load_model

from .head_check import assert_head_scenarios_match
from .llama_reference import llama_reference
from .model_files import ROPE, TINY, TINY_BERT, TINY_GPT2, TINY_LLAMA, TINY_QWEN2, copy_model, reference_outputs
from .model_reference import reference_forward

ATOL = 1e-4  # float32 against the library's float32: about 1e-6 expected
SENTENCES = range(4)


@pytest.fixture(scope="module")
def models():
    return {family: load_model(folder) for family, folder in {**TINY, **ROPE}.items()}


#: Library pieces the test sentences hold that this app shows otherwise: a new line, the two bytes of é.
_SHOWN = {"<0x0A>": "\u21b5", "\u010a": "\u21b5", "<0xC3>": "\\xc3", "<0xA9>": "\\xa9", "\u00c3": "\\xc3",
          "\u00a9": "\\xa9"}


def shown(token: str) -> str:
    """The library's piece as this app shows it: byte-level Ġ and SentencePiece ▁ become ␣."""
    return _SHOWN.get(token, token.replace("\u0120", "\u2423").replace("\u2581", "\u2423"))


@pytest.mark.parametrize("family", ["bert", "gpt2", "llama", "qwen2"])
@pytest.mark.parametrize("s", SENTENCES)
def test_tokens_ids_and_spans_match_the_library(models, family, s):
    ref = reference_outputs({**TINY, **ROPE}[family])[s]
    trace = models[family].run(str(ref["text"]))
    assert trace.ids == tuple(int(i) for i in ref["ids"])
    assert trace.tokens == tuple(shown(str(t)) for t in ref["tokens"])
    assert trace.dropped == 0
    text = str(ref["text"])
    for token, (a, b) in zip(trace.tokens, trace.spans):
        assert 0 <= a <= b <= len(text)
        if token.strip("\u2423") and not token.startswith(("<", "[", "\\")) and token != "\u21b5":
            assert text[a:b].lower().replace(" ", "\u2423").endswith(token.lstrip("\u2423").lstrip("#").lower()), token


@pytest.mark.parametrize("family", ["bert", "gpt2"])
@pytest.mark.parametrize("s", SENTENCES)
def test_every_layer_and_head_matches_the_library(models, family, s, either_exp):
    ref = reference_outputs(TINY[family])[s]
    trace = models[family].run(str(ref["text"]))
    for ours, theirs in (("weights", "attn"), ("hidden", "hidden"), ("attn_input", "attn_input"),
                         ("q", "q"), ("k", "k"), ("v", "v")):
        got, want = getattr(trace, ours), ref[theirs]
        assert got.shape == want.shape, ours
        np.testing.assert_allclose(got, want, atol=ATOL, rtol=0, err_msg=ours)


REFERENCES = {"bert": (TINY_BERT, reference_forward), "gpt2": (TINY_GPT2, reference_forward),
              "llama": (TINY_LLAMA, llama_reference), "qwen2": (TINY_QWEN2, llama_reference)}


@pytest.mark.parametrize("family", sorted(REFERENCES))
def test_the_test_reference_forward_matches_the_library_too(family):
    # model_reference.py and llama_reference.py check edits: they must themselves agree with the library.
    folder, forward = REFERENCES[family]
    for s, ref in reference_outputs(folder).items():
        out = forward(folder, ref["ids"])
        np.testing.assert_allclose(out["hidden"], ref["hidden"], atol=ATOL * max(1.0, np.abs(ref["hidden"]).max()))
        np.testing.assert_allclose(out["weights"], ref["attn"], atol=ATOL, rtol=0)
        if "q_rot" in ref:
            np.testing.assert_allclose(out["q_rot"], ref["q_rot"], atol=ATOL, rtol=0)
            np.testing.assert_allclose(out["logits"], ref["logits"], atol=ATOL * np.abs(ref["logits"]).max(), rtol=0)


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_scores_and_context_match_an_independent_forward(models, family):
    ref = reference_outputs(TINY[family])[1]
    trace = models[family].run(str(ref["text"]))
    out = reference_forward(TINY[family], ref["ids"])
    np.testing.assert_allclose(trace.scores, out["scores"], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(trace.context, out["context"], atol=ATOL, rtol=0)


def test_masks_follow_the_family(models):
    bert = models["bert"].run("the cat sat")
    gpt2 = models["gpt2"].run("the cat sat")
    assert bert.allowed.all()
    n = gpt2.n
    assert np.array_equal(gpt2.allowed, np.tril(np.ones((n, n), dtype=bool)))
    assert np.all(gpt2.weights[:, :, ~gpt2.allowed] == 0.0)
    np.testing.assert_allclose(gpt2.weights.sum(axis=-1), 1.0, atol=1e-6)


@pytest.mark.parametrize("family", ["bert", "gpt2", "llama", "qwen2"])
@pytest.mark.parametrize("s", SENTENCES)
def test_a_head_scenario_computes_the_trace_numbers(models, family, s):
    model = models[family]
    trace = model.run(str(reference_outputs({**TINY, **ROPE}[family])[s]["text"]))
    assert_head_scenarios_match(model, trace)
    sc = model.head_scenario(trace, 1, 1)
    assert sc.causal == (family != "bert") and sc.scale and sc.temperature == 1.0
    assert sc.rotary == (family in ROPE)
    if sc.rotary:  # the model's own speeds, positions 0 .. n-1
        assert sc.rope_theta == model.info.rope_theta and sc.query_positions == tuple(range(trace.n))
        np.testing.assert_array_equal(sc.rope_frequencies, np.array(model.info.rope_frequencies))


def test_a_head_scenario_carries_the_text_tokens_and_biases(models):
    model = models["bert"]
    trace = model.run("the cat sat on the mat.")
    sc = model.head_scenario(trace, 1, 0)
    assert sc.tokens == trace.tokens and sc.text == trace.text and sc.spans == trace.spans
    assert sc.x.shape == (trace.n, model.info.d_model)
    np.testing.assert_array_equal(sc.x, trace.attn_input[1].astype(np.float64))
    assert sc.has_bias  # a trained model's biases are not zero
    # the worked arithmetic names the bias: q1 of the first token
    text = explain.projection(compute(sc), "q", 0, 0).text
    assert " + b^Q1 = " in text and "(the other 11 terms)" in text  # 16 products, shortened; the bias stays


def test_head_weights_are_the_checkpoint_slices(models):
    from safetensors.numpy import load_file

    raw = load_file(str(TINY_BERT / "model.safetensors"))
    w = models["bert"].head_weights(1, 1)
    dh = 8
    p = "encoder.layer.1.attention.self."
    for kind, name in (("q", "query"), ("k", "key"), ("v", "value")):
        np.testing.assert_array_equal(w["w_" + kind], raw[p + name + ".weight"][dh:2 * dh].T)  # (out, in) stored
        np.testing.assert_array_equal(w["b_" + kind], raw[p + name + ".bias"][dh:2 * dh])
        assert w["w_" + kind].dtype == np.float64 and w["w_" + kind].shape == (16, dh)
    raw2 = load_file(str(TINY_GPT2 / "model.safetensors"))
    g = models["gpt2"].head_weights(0, 1)
    c = raw2["h.0.attn.c_attn.weight"]  # Conv1D (in, out): Q | K | V side by side
    np.testing.assert_array_equal(g["w_k"], c[:, 16 + dh:16 + 2 * dh])
    np.testing.assert_array_equal(g["b_v"], raw2["h.0.attn.c_attn.bias"][32 + dh:32 + 2 * dh])


def test_trace_arrays_are_read_only(models):
    trace = models["gpt2"].run("the cat")
    for name in ("attn_input", "q", "k", "v", "context", "scores", "weights", "hidden", "allowed"):
        a = getattr(trace, name)
        assert not a.flags.writeable, name
    assert trace.edits == ModelEdits()


def test_all_heads_of_a_layer_together_match_the_trace(models):
    # The many-head Scenario of a whole layer (every head's slices side by side) runs through compute_heads.
    from qkv_engine import Scenario

    model = models["bert"]
    trace = model.run("how the quick fox jumps")
    parts = [model.head_weights(0, h) for h in range(2)]
    sc = Scenario(tokens=trace.tokens, x=trace.attn_input[0].astype(np.float64), n_heads=2,
                  **{k: np.concatenate([p[k] for p in parts], axis=-1) for k in parts[0]})
    full = compute_heads(sc)
    for h in range(2):
        np.testing.assert_allclose(full.heads[h].weights, trace.weights[0, h], atol=1e-5)


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_a_folder_with_only_the_vocabulary_files_tokenizes_the_same(tmp_path, family):
    folder = copy_model(TINY[family], tmp_path / "m", skip=("tokenizer.json",))
    model = load_model(folder)
    for s, ref in reference_outputs(TINY[family]).items():
        trace = model.run(str(ref["text"]))
        assert trace.ids == tuple(int(i) for i in ref["ids"]), s
        np.testing.assert_allclose(trace.weights, ref["attn"], atol=ATOL, rtol=0)
