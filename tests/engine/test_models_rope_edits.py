"""What-if edits of Llama and Qwen2 (a weight, a bias, an input number, a knocked-out head) and the reuse of an
earlier trace's lower layers, checked against the plain float64 forward of llama_reference.py."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import compute
from qkv_engine.models import ModelEdits, load_model

from .llama_reference import llama_reference
from .model_files import ROPE, tensors

TEXT = "The animal didn't cross the street because it was tired."
FIELDS = ("attn_input", "q", "k", "v", "q_unrotated", "k_unrotated", "context", "scores", "weights", "hidden",
          "logits")


@pytest.fixture(scope="module")
def models():
    return {family: load_model(folder) for family, folder in ROPE.items()}


def altered(family, model, layer, head, name, row, col, value) -> dict:
    """The checkpoint's tensors with that entry changed (a query head's W^K, W^V: its key/value head's)."""
    t = {k: v.copy() for k, v in tensors(ROPE[family]).items()}
    dh, part = model.info.d_head, name[-1]
    first = head * dh if part == "q" else model.info.kv_head(head) * dh
    key = f"model.layers.{layer}.self_attn.{part}_proj."
    if name.startswith("w_"):
        t[key + "weight"][first + col, row] = value  # nn.Linear: (out, in)
    else:
        if key + "bias" not in t:  # Llama has no biases: an edited one starts from zeros
            t[key + "bias"] = np.zeros(t[key + "weight"].shape[0], np.float32)
        t[key + "bias"][first + col] = value
    return t


@pytest.mark.parametrize("family", ["llama", "qwen2"])
@pytest.mark.parametrize("name, row", [("w_q", 3), ("w_k", 31), ("w_v", 0), ("b_q", 0), ("b_k", 0), ("b_v", 0)])
def test_a_weight_edit_equals_the_same_change_in_the_checkpoint(models, family, name, row):
    model = models[family]
    layer, head, col, value = 0, 3, 5, 2.5
    edits = ModelEdits().with_weight(layer, head, name, row, col, value)
    trace = model.run(TEXT, edits)
    ref = llama_reference(ROPE[family], trace.ids, tensors=altered(family, model, layer, head, name, row, col, value))
    np.testing.assert_allclose(trace.weights, ref["weights"], atol=1e-4, rtol=0)
    np.testing.assert_allclose(trace.logits, ref["logits"], atol=1e-4 * np.abs(ref["logits"]).max(), rtol=0)
    unedited = model.run(TEXT)
    assert not np.array_equal(trace.weights, unedited.weights)
    grid = model.head_weights(layer, head, edits)[name]
    assert (grid[col] if name.startswith("b_") else grid[row, col]) == value


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_a_key_edit_of_one_query_head_is_an_edit_of_its_whole_group(models, family):
    model = models[family]
    H, KV = model.info.n_heads, model.info.kv_heads
    sibling = model.info.kv_head(1) * (H // KV)  # the first query head reading head 1's key/value head
    assert sibling != 1
    via_1 = model.run(TEXT, ModelEdits().with_weight(1, 1, "w_k", 4, 2, -3.0))
    via_sibling = model.run(TEXT, ModelEdits().with_weight(1, sibling, "w_k", 4, 2, -3.0))
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(via_1, field), getattr(via_sibling, field), err_msg=field)
    np.testing.assert_array_equal(via_1.k[1, 1], via_1.k[1, sibling])
    assert model.head_weights(1, sibling, via_1.edits)["w_k"][4, 2] == -3.0


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_input_edits_and_knocked_out_heads_match_the_reference(models, family):
    model = models[family]
    edits = ModelEdits().with_input(1, 2, 7, 4.0).with_knockout(0, 2, True)
    trace = model.run(TEXT, edits)
    ref = llama_reference(ROPE[family], trace.ids, input_edits={(1, 2, 7): 4.0}, knocked={(0, 2)})
    np.testing.assert_allclose(trace.weights, ref["weights"], atol=1e-4, rtol=0)
    np.testing.assert_allclose(trace.attn_input, ref["attn_input"], atol=1e-4, rtol=0)
    np.testing.assert_allclose(trace.logits, ref["logits"], atol=1e-4 * np.abs(ref["logits"]).max(), rtol=0)
    assert not trace.context[0, 2].any() and trace.knocked_out(0, 2)


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_an_edited_head_scenario_still_computes_the_edited_trace(models, family):
    model = models[family]
    edits = ModelEdits().with_weight(1, 2, "w_q", 0, 1, 1.5).with_weight(1, 2, "b_k", 0, 3, -0.5)
    trace = model.run(TEXT, edits)
    r = compute(model.head_scenario(trace, 1, 2))
    np.testing.assert_allclose(r.weights, trace.weights[1, 2], atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(r.q, trace.q[1, 2], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("family", ["llama", "qwen2"])
@pytest.mark.parametrize("edits", [
    ModelEdits().with_weight(1, 0, "w_v", 2, 2, 0.7),
    ModelEdits().with_input(1, 3, 0, -2.0),
    ModelEdits().with_knockout(1, 3, True),
    ModelEdits().with_weight(0, 1, "b_q", 0, 0, 1.0),
])
def test_reusing_an_earlier_trace_gives_bit_identical_numbers(models, family, edits):
    model = models[family]
    earlier = model.run(TEXT)
    start = model.resume_layer(TEXT, edits, earlier)
    assert start == min(edits.layers())
    reused = model.run(TEXT, edits, reuse=earlier)
    whole = model.run(TEXT, edits)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(reused, field), getattr(whole, field), err_msg=field)
    back = model.run(TEXT, ModelEdits(), reuse=reused)  # and back to no edits
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(back, field), getattr(earlier, field), err_msg=field)
