"""Llama and Qwen2 (RoPE, grouped keys and values, RMSNorm, SwiGLU) give the transformers library's numbers
(tests/data/tiny-llama, tiny-qwen2) and those of a float64 forward written from the equations (llama_reference.py).
Their tokens and head scenarios are checked with the other families' in test_models_reference.py."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine.models import load_model

from .head_check import assert_head_scenarios_match
from .llama_reference import llama_reference
from .model_files import ROPE, copy_model, edit_config, reference_outputs, tensors, write_tensors

ATOL = 1e-4
SENTENCES = range(4)
TEXT = "The animal didn't cross the street because it was tired."


@pytest.fixture(scope="module")
def models():
    return {family: load_model(folder) for family, folder in ROPE.items()}


def per_kv_head(model, array):
    """L x KV x ...: the first query head of each key/value group (the trace repeats them per query head)."""
    firsts = [model.info.n_heads // model.info.kv_heads * g for g in range(model.info.kv_heads)]
    return array[:, firsts]


def test_llama_adds_its_bos_and_qwen2_adds_none(models):
    assert models["llama"].run("the cat").tokens[0] == "<s>"
    assert models["llama"].run("the cat").spans[0] == (0, 0)
    assert models["qwen2"].run("The cat").tokens[0] == "The"  # the first piece is the text's own


@pytest.mark.parametrize("family", ["llama", "qwen2"])
@pytest.mark.parametrize("s", SENTENCES)
def test_every_layer_and_head_matches_the_library(models, family, s, either_exp):
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


def test_a_llama_with_every_bias_matches_the_reference(tmp_path):
    # attention_bias: q, k, v and o have biases; mlp_bias: gate, up and down too
    folder = copy_model(ROPE["llama"], tmp_path / "m")
    data = tensors(folder)
    rng = np.random.default_rng(5)
    for layer in range(2):
        for name in ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                     "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"):
            rows = data[f"model.layers.{layer}.{name}.weight"].shape[0]
            data[f"model.layers.{layer}.{name}.bias"] = rng.standard_normal(rows).astype(np.float32)
    write_tensors(folder, data)
    edit_config(folder, attention_bias=True, mlp_bias=True)
    model = load_model(folder)
    trace = model.run(TEXT)
    ref = llama_reference(folder, trace.ids)
    np.testing.assert_allclose(trace.weights, ref["weights"], atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.logits, ref["logits"], atol=ATOL * np.abs(ref["logits"]).max(), rtol=0)
    assert model.head_weights(1, 2)["b_k"].any()
    assert_head_scenarios_match(model, trace)


def test_a_head_dim_other_than_width_over_heads(tmp_path):
    # head_dim from config.json (12) while hidden_size / heads is 8: q is 4 x 12 wide, o maps 48 back to 32
    folder = copy_model(ROPE["llama"], tmp_path / "m")
    data = tensors(folder)
    rng = np.random.default_rng(6)
    for layer in range(2):
        p = f"model.layers.{layer}.self_attn."
        for name, shape in (("q_proj", (48, 32)), ("k_proj", (24, 32)), ("v_proj", (24, 32)), ("o_proj", (32, 48))):
            data[p + name + ".weight"] = (rng.standard_normal(shape) * 0.3).astype(np.float32)
    write_tensors(folder, data)
    edit_config(folder, head_dim=12)
    model = load_model(folder)
    assert model.info.d_head == 12 and len(model.info.rope_frequencies) == 6
    trace = model.run(TEXT)
    ref = llama_reference(folder, trace.ids)
    np.testing.assert_allclose(trace.weights, ref["weights"], atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.q, ref["q_rot"], atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.logits, ref["logits"], atol=ATOL * np.abs(ref["logits"]).max(), rtol=0)
    assert_head_scenarios_match(model, trace)


def test_a_byte_level_tokenizer_whose_post_processor_adds_a_bos(tmp_path):
    # as Llama 3's tokenizer.json: byte-level pieces, and a TemplateProcessing that puts <|begin_of_text|> first
    import json

    folder = copy_model(ROPE["qwen2"], tmp_path / "m")
    doc = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    bos = {"id": "<|im_start|>", "type_id": 0}
    doc["post_processor"] = {
        "type": "TemplateProcessing", "single": [{"SpecialToken": bos}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"SpecialToken": bos}, {"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<|im_start|>": {"id": "<|im_start|>", "ids": [1], "tokens": ["<|im_start|>"]}}}
    (folder / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    with_bos = load_model(folder).run("The cat sat")
    plain = load_model(ROPE["qwen2"]).run("The cat sat")
    assert with_bos.tokens == ("<|im_start|>",) + plain.tokens and with_bos.ids == (1,) + plain.ids
    assert with_bos.spans == ((0, 0),) + plain.spans
    assert with_bos.tokens[2] == "\u2423"  # the byte-level space, shown as the app's visible space
