"""Checkpoints as they come from the Hugging Face cache: sharded, float16 and bfloat16, and big models
whose weights stay in the stored width (widened one layer at a time) give the same numbers."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine.models import ModelEdits, ModelError, load_model
from qkv_engine.models import architecture, forward

from .model_files import TINY_BERT, TINY_GPT2, TINY_LLAMA, TINY_QWEN2, bfloat16_bits, copy_model, on_two_threads, \
    tensors, write_safetensors, write_shards

TEXT = "The animal didn't cross the street because it was tired."


#: A what-if edit: a weight of layer 0's head 0 and a knocked-out head of layer 1 (every family has them).
EDITS = ModelEdits().with_weight(0, 0, "w_q", 1, 0, 0.5).with_knockout(1, 1, True)


def traced(model):
    """A run, the same run again (weights kept narrow are widened into memory kept from the first), and a run with
    a what-if edit: their attention weights, hidden states and logits."""
    trace, again, edited = model.run(TEXT), model.run(TEXT), model.run(TEXT, EDITS)
    return tuple(getattr(t, name) for t in (trace, again, edited) for name in ("weights", "hidden", "logits"))


def run_all(folder):
    return traced(load_model(folder))


def widened_bfloat16(data: dict) -> dict:
    """What a bfloat16 copy of ``data`` holds, as float32."""
    return {k: (bfloat16_bits(v).astype(np.uint32) << 16).view(np.float32) for k, v in data.items()}


@pytest.mark.parametrize("source", [TINY_LLAMA, TINY_QWEN2, TINY_GPT2])
def test_a_sharded_checkpoint_gives_the_same_numbers(tmp_path, source):
    folder = copy_model(source, tmp_path / "m")
    write_shards(folder, tensors(source), parts=3)
    assert not (folder / "model.safetensors").exists()
    for ours, whole in zip(run_all(folder), run_all(source)):
        np.testing.assert_array_equal(ours, whole)


@pytest.mark.parametrize("source", [TINY_LLAMA, TINY_QWEN2, TINY_BERT, TINY_GPT2])
@pytest.mark.parametrize("keep_width", [False, True])
def test_bfloat16_weights_give_the_numbers_of_their_float32_values(tmp_path, monkeypatch, source, keep_width):
    data = tensors(source)
    as_bf16 = copy_model(source, tmp_path / "bf16")
    write_safetensors(as_bf16 / "model.safetensors", data, "BF16")
    as_f32 = copy_model(source, tmp_path / "f32")
    write_safetensors(as_f32 / "model.safetensors", widened_bfloat16(data), "F32")
    if keep_width:  # as a big model: weights kept as their 16 bits, widened layer by layer in the forward pass
        monkeypatch.setattr(architecture, "WIDEN_LIMIT", 0)
    model = load_model(as_bf16)
    assert model._weights.layers[0].w_qkv.dtype == (np.uint16 if keep_width else np.float32)
    got = traced(model)
    monkeypatch.undo()
    for ours, theirs in zip(got, run_all(as_f32)):
        if ours is None:  # tiny-bert has no output head
            assert theirs is None
        else:
            np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("source", [TINY_LLAMA, TINY_GPT2])
def test_narrow_weights_are_widened_into_memory_each_thread_keeps_for_them(tmp_path, monkeypatch, source):
    """A big model's weights (kept in their 16 bits) are widened into one array a matrix of a layer, the same from
    layer to layer and run to run, a thread's own: two threads running it at once get the right numbers."""
    import threading

    as_bf16 = copy_model(source, tmp_path / "bf16")
    write_safetensors(as_bf16 / "model.safetensors", tensors(source), "BF16")
    wide = load_model(as_bf16)
    want = {text: wide.run(text).hidden for text in (TEXT, "the cat sat on the mat")}
    want_logits = wide.run(TEXT).logits
    monkeypatch.setattr(architecture, "WIDEN_LIMIT", 0)
    monkeypatch.setattr(forward, "_VOCAB_CHUNK", 16)  # the output head's decoder widened 16 rows at a time
    model = load_model(as_bf16)
    trace = model.run(TEXT)
    fresh = forward.logits(model.arch, model._weights.output, trace.hidden[-1])  # each slice widened afresh
    np.testing.assert_array_equal(trace.logits, fresh)
    np.testing.assert_allclose(trace.logits, want_logits, atol=1e-5, rtol=0)  # 16-row products round a little apart
    kept = dict(vars(model._wide._local))
    assert sorted(kept) == ["decoder", "in", "o", "out", "qkv"] and all(a.dtype == np.float32 for a in kept.values())
    model.run("the cat sat on the mat", EDITS)
    assert all(vars(model._wide._local)[role] is array for role, array in kept.items())
    wrong, seen = [], []
    together = threading.Barrier(2, timeout=60)

    def work(offset):
        for i in range(12):
            text = list(want)[(i + offset) % 2]
            if not np.array_equal(model.run(text).hidden, want[text]):
                wrong.append(text)
            if i == 0:
                together.wait()  # both threads hold their arrays from here on
        seen.append({role: a.ctypes.data for role, a in vars(model._wide._local).items()})
        together.wait()  # neither ends (and gives its arrays back) before both have said where theirs are

    on_two_threads(work)
    assert wrong == []
    assert not set(seen[0].values()) & set(seen[1].values())  # each thread widened into its own arrays


@pytest.mark.parametrize("keep_width", [False, True])
def test_float16_weights_in_one_or_several_files(tmp_path, monkeypatch, keep_width):
    data = tensors(TINY_LLAMA)
    half = copy_model(TINY_LLAMA, tmp_path / "f16")
    write_shards(half, data, parts=2, dtype="F16")
    single = copy_model(TINY_LLAMA, tmp_path / "f32")
    write_safetensors(single / "model.safetensors", {k: v.astype(np.float16) for k, v in data.items()}, "F32")
    if keep_width:
        monkeypatch.setattr(architecture, "WIDEN_LIMIT", 0)
    model = load_model(half)
    assert model._weights.word.dtype == (np.float16 if keep_width else np.float32)
    got = traced(model)
    monkeypatch.undo()
    for ours, theirs in zip(got, run_all(single)):
        np.testing.assert_array_equal(ours, theirs)


def test_a_missing_shard_is_named(tmp_path):
    folder = copy_model(TINY_LLAMA, tmp_path / "m")
    files = write_shards(folder, tensors(TINY_LLAMA), parts=2)
    (folder / files[1]).unlink()
    with pytest.raises(ModelError) as err:
        load_model(folder)
    assert files[1] in str(err.value) and "missing" in str(err.value) and "\n" not in str(err.value)


def test_an_index_naming_a_tensor_no_shard_holds_is_named(tmp_path):
    import json

    folder = copy_model(TINY_LLAMA, tmp_path / "m")
    files = write_shards(folder, tensors(TINY_LLAMA), parts=2)
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    index["weight_map"]["model.layers.0.mlp.up_proj.weight"] = files[0] if index["weight_map"][
        "model.layers.0.mlp.up_proj.weight"] == files[1] else files[1]
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(ModelError) as err:
        load_model(folder)
    message = str(err.value)
    assert "model.layers.0.mlp.up_proj.weight" in message and "model.safetensors.index.json" in message
    assert "\n" not in message


def test_a_tensor_missing_from_every_shard_is_named(tmp_path):
    folder = copy_model(TINY_QWEN2, tmp_path / "m")
    data = tensors(TINY_QWEN2)
    del data["model.layers.1.self_attn.k_proj.bias"]
    write_shards(folder, data, parts=2)
    with pytest.raises(ModelError, match="model.layers.1.self_attn.k_proj.bias"):
        load_model(folder)


@pytest.mark.parametrize("source", [TINY_BERT, TINY_GPT2])
def test_every_layers_joined_weights_are_carved_out_of_one_allocation_on_64_byte_lines(source):
    """One allocation (mapped in huge pages when it is large: test_models_memory), the arrays apart and each on a
    cache line."""
    layers = load_model(source)._weights.layers
    arrays = [a for layer in layers for a in layer.joined.values()]
    assert len(arrays) == 4 * len(layers) > 4
    assert all(a.base is arrays[0].base and a.ctypes.data % 64 == 0 for a in arrays)
    spans = sorted((a.ctypes.data, a.ctypes.data + a.nbytes) for a in arrays)
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))


def test_a_layer_the_allocation_has_no_room_for_gets_joined_arrays_of_its_own():
    rng = np.random.default_rng(0)

    def layer(d):
        w = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in
             dict(w_qkv=(d, 3 * d), w_o=(d, d), w_in=(d, 2 * d), w_out=(2 * d, d)).items()}
        return architecture.LayerWeights(**w, b_qkv=None, b_o=None, b_in=None, b_out=None, ln_attn=(), ln_ffn=())

    store = architecture.JoinedStore(1)  # made for one layer's arrays
    first, other = layer(4), layer(6)
    a, b = store.join(first), store.join(other)
    assert all(x.base is store.block.base for x in a.joined.values())
    assert not any(np.shares_memory(x, store.block) for x in b.joined.values())
    for joined, plain in ((a, first), (b, other)):
        for name in ("qkv", "o", "in", "out"):
            np.testing.assert_array_equal(getattr(joined, "w_" + name), getattr(plain, "w_" + name))
            np.testing.assert_array_equal(joined.joined[name][:, -1], 0)
