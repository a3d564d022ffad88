"""Llama and Qwen2 (RoPE, grouped keys and values, RMSNorm, SwiGLU) give the transformers library's numbers
(tests/data/tiny-llama, tiny-qwen2), and one head stepped into as a Scenario gives the trace's numbers."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import compute
from qkv_engine.models import load_model

from .llama_reference import llama_reference
from .model_files import ROPE, reference_outputs

ATOL = 1e-4
SENTENCES = range(4)


@pytest.fixture(scope="module")
def models():
    return {family: load_model(folder) for family, folder in ROPE.items()}


def shown(token: str) -> str:
    """The library's piece as this app shows it (the test sentences: ▁ and Ġ spaces, one new line, é)."""
    special = {"<0x0A>": "\u21b5", "\u010a": "\u21b5", "<0xC3>": "\\xc3", "<0xA9>": "\\xa9", "\u00c3": "\\xc3",
               "\u00a9": "\\xa9"}
    return special.get(token, token.replace("\u2581", "\u2423").replace("\u0120", "\u2423"))


def per_kv_head(model, array):
    """L x KV x ...: the first query head of each key/value group (the trace repeats them per query head)."""
    firsts = [model.info.n_heads // model.info.kv_heads * g for g in range(model.info.kv_heads)]
    return array[:, firsts]


@pytest.mark.parametrize("family", ["llama", "qwen2"])
@pytest.mark.parametrize("s", SENTENCES)
def test_tokens_ids_and_spans_follow_the_models_own_tokenizer(models, family, s):
    ref = reference_outputs(ROPE[family])[s]
    trace = models[family].run(str(ref["text"]))
    assert trace.ids == tuple(int(i) for i in ref["ids"])
    assert trace.tokens == tuple(shown(str(t)) for t in ref["tokens"])
    assert trace.dropped == 0
    text = str(ref["text"])
    for token, (a, b) in zip(trace.tokens, trace.spans):
        assert 0 <= a <= b <= len(text)
        if token.strip("\u2423") and not token.startswith(("<", "\\")) and token != "\u21b5":
            assert text[a:b].replace(" ", "\u2423").endswith(token.lstrip("\u2423")), (token, text[a:b])


def test_llama_adds_its_bos_and_qwen2_adds_none(models):
    assert models["llama"].run("the cat").tokens[0] == "<s>"
    assert models["llama"].run("the cat").spans[0] == (0, 0)
    assert models["qwen2"].run("The cat").tokens[0] == "The"  # the first piece is the text's own


@pytest.mark.parametrize("family", ["llama", "qwen2"])
@pytest.mark.parametrize("s", SENTENCES)
def test_every_layer_and_head_matches_the_library(models, family, s):
    model = models[family]
    ref = reference_outputs(ROPE[family])[s]
    trace = model.run(str(ref["text"]))
    np.testing.assert_allclose(trace.weights, ref["attn"], atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.attn_input, ref["attn_input"], atol=ATOL, rtol=0)
    scale = np.abs(ref["hidden"]).max()
    np.testing.assert_allclose(trace.hidden, ref["hidden"], atol=ATOL * scale, rtol=0)
    np.testing.assert_allclose(trace.q_unrotated, ref["q"], atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.q, ref["q_rot"], atol=ATOL, rtol=0)
    np.testing.assert_allclose(per_kv_head(model, trace.k_unrotated), ref["k"], atol=ATOL, rtol=0)
    np.testing.assert_allclose(per_kv_head(model, trace.k), ref["k_rot"], atol=ATOL, rtol=0)
    np.testing.assert_allclose(per_kv_head(model, trace.v), ref["v"], atol=ATOL, rtol=0)
    assert trace.logits.shape == ref["logits"].shape and trace.logits.dtype == np.float32
    np.testing.assert_allclose(trace.logits, ref["logits"], atol=ATOL * np.abs(ref["logits"]).max(), rtol=0)


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_query_heads_of_a_group_share_their_key_and_value_head(models, family):
    model = models[family]
    trace = model.run("The cat sat on the mat.")
    H, KV = model.info.n_heads, model.info.kv_heads
    assert H > KV and [model.info.kv_head(h) for h in range(H)] == [h // (H // KV) for h in range(H)]
    for h in range(H):
        first = model.info.kv_head(h) * (H // KV)
        np.testing.assert_array_equal(trace.k[:, h], trace.k[:, first])
        np.testing.assert_array_equal(trace.v[:, h], trace.v[:, first])
    assert not np.array_equal(trace.q[:, 0], trace.q[:, 1])


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_the_test_reference_forward_matches_the_library_too(family):
    # llama_reference.py checks edits below: it must itself agree with the library.
    for s, ref in reference_outputs(ROPE[family]).items():
        out = llama_reference(ROPE[family], ref["ids"])
        np.testing.assert_allclose(out["weights"], ref["attn"], atol=ATOL, rtol=0)
        np.testing.assert_allclose(out["q_rot"], ref["q_rot"], atol=ATOL, rtol=0)
        np.testing.assert_allclose(out["logits"], ref["logits"], atol=ATOL * np.abs(ref["logits"]).max(), rtol=0)


@pytest.mark.parametrize("family", ["llama", "qwen2"])
@pytest.mark.parametrize("s", SENTENCES)
def test_a_rope_head_scenario_computes_the_trace_numbers(models, family, s):
    model = models[family]
    trace = model.run(str(reference_outputs(ROPE[family])[s]["text"]))
    for layer in range(model.info.n_layers):
        for head in range(model.info.n_heads):
            sc = model.head_scenario(trace, layer, head)
            assert sc.rotary and sc.causal and sc.n_heads == 1 and sc.d_k == model.info.d_head
            np.testing.assert_array_equal(sc.rope_frequencies, np.array(model.info.rope_frequencies))
            r = compute(sc)
            for name, ours in (("q", r.q), ("k", r.k), ("v", r.v), ("q_unrotated", r.q_unrotated),
                               ("k_unrotated", r.k_unrotated), ("weights", r.weights), ("context", r.output)):
                np.testing.assert_allclose(ours, getattr(trace, name)[layer, head], atol=1e-5, rtol=1e-5,
                                           err_msg=f"layer {layer} head {head} {name}")
            np.testing.assert_allclose(r.scores, trace.scores[layer, head], atol=1e-5, rtol=1e-5)


def test_qwen2_head_scenarios_carry_the_biases_of_their_key_value_head(models):
    from safetensors.numpy import load_file

    model = models["qwen2"]
    raw = load_file(str(ROPE["qwen2"] / "model.safetensors"))
    w = model.head_weights(1, 3)  # 4 query heads, 1 key/value head: head 3 reads key head 0
    dh = model.info.d_head
    p = "model.layers.1.self_attn."
    np.testing.assert_array_equal(w["w_q"], raw[p + "q_proj.weight"][3 * dh:4 * dh].T)
    np.testing.assert_array_equal(w["b_q"], raw[p + "q_proj.bias"][3 * dh:4 * dh])
    np.testing.assert_array_equal(w["w_k"], raw[p + "k_proj.weight"].T)
    np.testing.assert_array_equal(w["b_k"], raw[p + "k_proj.bias"])
    np.testing.assert_array_equal(w["b_v"], raw[p + "v_proj.bias"])
    llama = models["llama"].head_weights(0, 3)  # Llama has no biases: zeros
    assert not llama["b_q"].any() and not llama["b_k"].any()
    np.testing.assert_array_equal(llama["w_k"], load_file(str(ROPE["llama"] / "model.safetensors"))[
        "model.layers.0.self_attn.k_proj.weight"][dh:2 * dh].T)  # head 3 of 4 reads key head 1 of 2


def test_model_info_describes_the_rotation_and_the_groups(models):
    llama, qwen2 = models["llama"].info, models["qwen2"].info
    assert (llama.family, llama.model_type, llama.n_heads, llama.n_kv_heads, llama.d_head) == ("llama", "llama", 4, 2, 8)
    assert (qwen2.model_type, qwen2.n_kv_heads, qwen2.rope_theta) == ("qwen2", 1, 1e6)
    assert llama.rotary and llama.rope_theta == 10000.0 and llama.rope_type == "default" and llama.has_output_head
    np.testing.assert_allclose(llama.rope_frequencies, [10000.0 ** (-2 * i / 8) for i in range(4)], rtol=1e-6)
    assert llama.causal and qwen2.causal
