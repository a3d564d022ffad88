"""Checkpoints as they come: float16 and bfloat16 weights, name prefixes, old LayerNorm names, split
files, integer buffers, DistilBERT, GPT-2's scaling options; and the activation functions."""
from __future__ import annotations

import json
import math
import struct

import numpy as np
import pytest

from qkv_engine import compute
from qkv_engine.models import load_model
from qkv_engine.models.forward import ACTIVATION, gelu

from .model_files import TINY_BERT, TINY_GPT2, copy_model, edit_config, tensors, write_tensors

TEXT = "the quick brown fox jumps over the lazy dog."


def runs_alike(a, b, atol=1e-6, text=TEXT):
    ta, tb = a.run(text), b.run(text)
    assert ta.tokens == tb.tokens
    for name in ("weights", "hidden", "q", "context"):
        np.testing.assert_allclose(getattr(ta, name), getattr(tb, name), atol=atol, rtol=0, err_msg=name)


def runs_close(a, b, fraction, text=TEXT):
    """Every number of ``a``'s run within ``fraction`` of the largest number of ``b``'s (rounded weights)."""
    ta, tb = a.run(text), b.run(text)
    for name in ("weights", "hidden", "q", "context"):
        got, want = getattr(ta, name), getattr(tb, name)
        assert np.abs(got - want).max() <= fraction * np.abs(want).max(), name


def write_bfloat16(path, data: dict) -> None:
    """A safetensors file with every tensor stored as bfloat16 (the top 16 bits of each float32),
    written byte by byte: the safetensors library cannot write bfloat16 from numpy."""
    header, chunks, offset = {}, [], 0
    for name in sorted(data):
        a = np.ascontiguousarray(data[name], dtype=np.float32)
        raw = (a.view(np.uint32) >> 16).astype("<u2").tobytes()
        header[name] = {"dtype": "BF16", "shape": list(a.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def bfloat16_truncated(a: np.ndarray) -> np.ndarray:
    """The float32 value a bfloat16 file holds for ``a``: its low 16 bits set to zero."""
    return (np.ascontiguousarray(a, dtype=np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)


@pytest.mark.parametrize("source", [TINY_BERT, TINY_GPT2], ids=["bert", "gpt2"])
def test_float16_weights_give_the_numbers_of_their_float32_values(tmp_path, source):
    t = tensors(source)
    half = copy_model(source, tmp_path / "half")
    write_tensors(half, {k: v.astype(np.float16) for k, v in t.items()})
    rounded = copy_model(source, tmp_path / "rounded")  # the same values, stored as float32
    write_tensors(rounded, {k: v.astype(np.float16).astype(np.float32) for k, v in t.items()})
    runs_alike(load_model(half), load_model(rounded), atol=1e-6)
    runs_close(load_model(half), load_model(source), 0.005)  # and close to the original weights


@pytest.mark.parametrize("source", [TINY_BERT, TINY_GPT2], ids=["bert", "gpt2"])
def test_bfloat16_weights_are_read_and_widened(tmp_path, source):
    t = tensors(source)
    bf = copy_model(source, tmp_path / "bf16", skip=("model.safetensors",))
    write_bfloat16(bf / "model.safetensors", t)
    same = copy_model(source, tmp_path / "f32")
    write_tensors(same, {k: bfloat16_truncated(v) for k, v in t.items()})
    model = load_model(bf)
    runs_alike(model, load_model(same), atol=1e-6)
    runs_close(model, load_model(source), 0.05)  # 8 bits of mantissa, cut rather than rounded: close, not equal
    w = model.head_weights(0, 0)["w_q"]
    assert w.dtype == np.float64 and np.all(np.isfinite(w))


def test_float64_weights_are_narrowed_to_float32(tmp_path):
    t = tensors(TINY_BERT)
    folder = copy_model(TINY_BERT, tmp_path / "f64")
    write_tensors(folder, {k: v.astype(np.float64) for k, v in t.items()})
    runs_alike(load_model(folder), load_model(TINY_BERT), atol=1e-6)


def test_bert_names_with_the_bert_prefix_and_extra_heads(tmp_path):
    t = tensors(TINY_BERT)
    folder = copy_model(TINY_BERT, tmp_path / "mlm")
    renamed = {"bert." + k: v for k, v in t.items()}
    renamed["cls.predictions.bias"] = np.zeros(63, np.float32)  # a task head the app does not use
    renamed["bert.embeddings.position_ids"] = np.arange(64, dtype=np.int64)[None, :]  # an integer buffer
    write_tensors(folder, renamed)
    runs_alike(load_model(folder), load_model(TINY_BERT), atol=0)


def test_gpt2_names_with_the_transformer_prefix_and_buffers(tmp_path):
    t = tensors(TINY_GPT2)
    folder = copy_model(TINY_GPT2, tmp_path / "lm")
    renamed = {"transformer." + k: v for k, v in t.items()}
    renamed["lm_head.weight"] = t["wte.weight"]
    renamed["transformer.h.0.attn.bias"] = np.tril(np.ones((1, 1, 64, 64), np.uint8))  # the old mask buffer
    write_tensors(folder, renamed)
    runs_alike(load_model(folder), load_model(TINY_GPT2), atol=0)


def test_old_layer_norm_names_gamma_and_beta(tmp_path):
    t = tensors(TINY_BERT)
    folder = copy_model(TINY_BERT, tmp_path / "old")
    write_tensors(folder, {k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
                           for k, v in t.items()})
    runs_alike(load_model(folder), load_model(TINY_BERT), atol=0)


def test_weights_split_over_several_files(tmp_path):
    from safetensors.numpy import save_file

    t = tensors(TINY_GPT2)
    folder = copy_model(TINY_GPT2, tmp_path / "split", skip=("model.safetensors",))
    names = sorted(t)
    parts = {"model-00001-of-00002.safetensors": names[::2], "model-00002-of-00002.safetensors": names[1::2]}
    weight_map = {}
    for file, keys in parts.items():
        save_file({k: t[k] for k in keys}, str(folder / file))
        weight_map.update({k: file for k in keys})
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    runs_alike(load_model(folder), load_model(TINY_GPT2), atol=0)
    (folder / "model-00002-of-00002.safetensors").unlink()
    with pytest.raises(Exception, match="model-00002-of-00002.safetensors is missing"):
        load_model(folder)


def test_distilbert_runs_like_bert_without_token_types(tmp_path):
    # DistilBERT is BERT without token type embeddings, with other tensor names: the same weights under
    # DistilBERT's names must give what BERT gives when its token type embedding is zero.
    t = tensors(TINY_BERT)
    bert = copy_model(TINY_BERT, tmp_path / "bert")
    zeroed = dict(t)
    zeroed["embeddings.token_type_embeddings.weight"] = np.zeros_like(t["embeddings.token_type_embeddings.weight"])
    write_tensors(bert, zeroed)
    distil = copy_model(TINY_BERT, tmp_path / "distil")
    rename = {
        "attention.self.query": "attention.q_lin", "attention.self.key": "attention.k_lin",
        "attention.self.value": "attention.v_lin", "attention.output.dense": "attention.out_lin",
        "attention.output.LayerNorm": "sa_layer_norm", "intermediate.dense": "ffn.lin1",
        "output.dense": "ffn.lin2", "output.LayerNorm": "output_layer_norm",
    }
    out = {}
    for k, v in t.items():
        if "token_type" in k:
            continue
        name = k
        if k.startswith("encoder.layer."):
            _, _, i, rest = k.split(".", 3)
            part, leaf = rest.rsplit(".", 1)
            name = f"transformer.layer.{i}.{rename[part]}.{leaf}"
        out["distilbert." + name] = v
    write_tensors(distil, out)
    (distil / "config.json").write_text(json.dumps({
        "model_type": "distilbert", "dim": 16, "n_layers": 2, "n_heads": 2, "hidden_dim": 32, "activation": "gelu",
        "max_position_embeddings": 64, "vocab_size": 63}))
    model = load_model(distil)
    assert model.info.family == "bert" and model.info.model_type == "distilbert"
    runs_alike(model, load_model(bert), atol=1e-6)


def test_gpt2_scaled_by_the_inverse_layer_index(tmp_path):
    folder = copy_model(TINY_GPT2, tmp_path / "inv")
    edit_config(folder, scale_attn_by_inverse_layer_idx=True)
    model = load_model(folder)
    trace = model.run(TEXT)
    for layer in range(2):
        z = trace.scores[layer].astype(np.float64) / (math.sqrt(8) * (layer + 1))
        z = np.where(trace.allowed, z, -np.inf)
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        np.testing.assert_allclose(trace.weights[layer], e / e.sum(axis=-1, keepdims=True), atol=1e-6)
        sc = model.head_scenario(trace, layer, 1)
        assert sc.temperature == layer + 1
        np.testing.assert_allclose(compute(sc).weights, trace.weights[layer, 1], atol=1e-5)


def test_gpt2_without_score_scaling(tmp_path):
    folder = copy_model(TINY_GPT2, tmp_path / "noscale")
    edit_config(folder, scale_attn_weights=False)
    model = load_model(folder)
    trace = model.run(TEXT)
    sc = model.head_scenario(trace, 0, 0)
    assert not sc.scale
    np.testing.assert_allclose(compute(sc).weights, trace.weights[0, 0], atol=1e-5)


# ----- activations ----------------------------------------------------------------------------------------
def test_the_exact_gelu_is_within_float32_rounding_of_math_erfs(either_exp):
    xs = np.linspace(-12.0, 12.0, 24001)
    want = np.array([0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in xs.astype(np.float32).tolist()])
    got = gelu(xs.astype(np.float32))
    assert got.dtype == np.float32
    assert np.abs(got - want).max() < 6e-7
    big = np.abs(want) > 0.1
    assert (np.abs(got[big] - want[big]) / np.abs(want[big])).max() < 2e-6  # relative, where GELU is not tiny
    assert gelu(np.float32([0.0]))[0] == 0.0


@pytest.mark.parametrize("name, exact", [
    ("gelu", lambda v: 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))),
    ("gelu_new", lambda v: 0.5 * v * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))),
    ("gelu_pytorch_tanh", lambda v: 0.5 * v * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))),
    ("relu", lambda v: max(v, 0.0)),
    ("silu", lambda v: v / (1.0 + math.exp(-v))),
])
def test_activations_follow_their_formulas(name, exact, either_exp):
    xs = np.linspace(-8.0, 8.0, 3201)
    want = np.array([exact(v) for v in xs])
    got = ACTIVATION[name](xs.astype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, atol=5e-6, rtol=0)


def test_the_exact_and_tanh_gelu_differ_enough_to_matter(tmp_path):
    # Using the wrong GELU would show: the tiny BERT with gelu_new gives different numbers.
    folder = copy_model(TINY_BERT, tmp_path / "tanh")
    edit_config(folder, hidden_act="gelu_new")
    a, b = load_model(folder).run(TEXT), load_model(TINY_BERT).run(TEXT)
    assert np.abs(a.hidden[-1] - b.hidden[-1]).max() > 1e-4
