"""What-if edits of a trained model: a weight, a bias, an input number, a knocked-out head.

Each is checked against an independent computation: the same change written into the
safetensors file and the model reloaded, or the plain forward pass of model_reference.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import compute
from qkv_engine.models import ModelEdits, ModelError, load_model

from .model_files import TINY, copy_model, tensors, write_tensors
from .model_reference import reference_forward

TEXT = "the quick brown fox jumps over the lazy dog."
D, DH = 16, 8


@pytest.fixture(scope="module")
def models():
    return {family: load_model(folder) for family, folder in TINY.items()}


def write_edit(family, folder, layer, head, name, row, col, value):
    """The same change made in the checkpoint's own tensors."""
    t = tensors(folder)
    part = "qkv".index(name[-1])
    if family == "gpt2":
        key = f"h.{layer}.attn.c_attn." + ("weight" if name.startswith("w_") else "bias")
        index = part * D + head * DH + col
        if name.startswith("w_"):
            t[key][row, index] = value  # Conv1D: (in, out)
        else:
            t[key][index] = value
    else:
        which = ("query", "key", "value")[part]
        key = f"encoder.layer.{layer}.attention.self.{which}." + ("weight" if name.startswith("w_") else "bias")
        if name.startswith("w_"):
            t[key][head * DH + col, row] = value  # nn.Linear: (out, in)
        else:
            t[key][head * DH + col] = value
    write_tensors(folder, t)


@pytest.mark.parametrize("family", ["bert", "gpt2"])
@pytest.mark.parametrize("name, row", [("w_q", 3), ("w_k", 15), ("w_v", 0), ("b_q", 0), ("b_k", 0), ("b_v", 0)])
def test_a_weight_edit_equals_the_same_change_in_the_checkpoint(tmp_path, models, family, name, row):
    layer, head, col, value = 1, 1, 2, 2.5
    edits = ModelEdits().with_weight(layer, head, name, row, col, value)
    edited = models[family].run(TEXT, edits)
    folder = copy_model(TINY[family], tmp_path / "m")
    write_edit(family, folder, layer, head, name, row, col, value)
    changed = load_model(folder).run(TEXT)
    for field in ("weights", "hidden", "q", "k", "v", "context", "attn_input"):
        np.testing.assert_allclose(getattr(edited, field), getattr(changed, field), atol=1e-6, rtol=0,
                                   err_msg=field)
    grid = models[family].head_weights(layer, head, edits)[name]
    assert (grid[col] if name.startswith("b_") else grid[row, col]) == value
    assert edited.edits == edits


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_a_weight_edit_changes_its_layer_and_above_not_below(models, family):
    model = models[family]
    plain = model.run(TEXT)
    edited = model.run(TEXT, ModelEdits().with_weight(1, 0, "w_k", 4, 1, -3.0))
    np.testing.assert_array_equal(edited.weights[0], plain.weights[0])
    np.testing.assert_array_equal(edited.hidden[:2], plain.hidden[:2])
    np.testing.assert_array_equal(edited.k[1, 1], plain.k[1, 1])  # the other head of the layer
    assert not np.array_equal(edited.k[1, 0], plain.k[1, 0])
    assert not np.array_equal(edited.weights[1, 0], plain.weights[1, 0])
    assert np.abs(edited.hidden[2] - plain.hidden[2]).max() > 1e-3


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_an_edited_head_steps_into_a_scenario_with_the_edit(models, family):
    model = models[family]
    edits = ModelEdits().with_weight(0, 1, "w_q", 2, 3, 4.0).with_weight(0, 1, "b_v", 0, 0, -1.5)
    trace = model.run(TEXT, edits)
    sc = model.head_scenario(trace, 0, 1)
    assert sc.w_q[2, 3] == 4.0 and sc.b_v[0] == -1.5
    r = compute(sc)
    np.testing.assert_allclose(r.weights, trace.weights[0, 1], atol=1e-5)
    np.testing.assert_allclose(r.output, trace.context[0, 1], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_a_knocked_out_head_gives_zero_and_matches_the_plain_forward(models, family):
    model = models[family]
    plain = model.run(TEXT)
    edits = ModelEdits().with_knockout(0, 1, True)
    trace = model.run(TEXT, edits)
    assert trace.knocked_out(0, 1) and not trace.knocked_out(0, 0)
    assert not trace.context[0, 1].any()
    np.testing.assert_array_equal(trace.weights[0], plain.weights[0])  # its weights are still shown
    np.testing.assert_array_equal(trace.context[0, 0], plain.context[0, 0])
    assert np.abs(trace.hidden[1] - plain.hidden[1]).max() > 1e-3
    ref = reference_forward(TINY[family], trace.ids, knocked={(0, 1)})
    np.testing.assert_allclose(trace.hidden, ref["hidden"], atol=1e-4, rtol=0)
    np.testing.assert_allclose(trace.weights, ref["weights"], atol=1e-4, rtol=0)


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_an_input_edit_changes_that_layer_and_above(models, family):
    model = models[family]
    plain = model.run(TEXT)
    edits = ModelEdits().with_input(1, 2, 5, 3.0)
    trace = model.run(TEXT, edits)
    assert trace.attn_input[1, 2, 5] == 3.0
    np.testing.assert_array_equal(trace.weights[0], plain.weights[0])
    np.testing.assert_array_equal(trace.hidden[0], plain.hidden[0])
    if family == "bert":  # the attention input of a BERT layer is the hidden state entering it
        assert trace.hidden[1, 2, 5] == 3.0
    else:  # GPT-2 edits the output of ln_1; the residual stream entering the block stays
        np.testing.assert_array_equal(trace.hidden[1], plain.hidden[1])
    assert not np.array_equal(trace.weights[1], plain.weights[1])
    assert np.abs(trace.hidden[2] - plain.hidden[2]).max() > 1e-3
    ref = reference_forward(TINY[family], trace.ids, input_edits={(1, 2, 5): 3.0})
    for name in ("hidden", "attn_input", "weights", "q", "context"):
        np.testing.assert_allclose(getattr(trace, name), ref[name], atol=1e-4, rtol=0, err_msg=name)


def test_an_input_edit_of_a_token_the_sentence_does_not_reach_waits(models):
    model = models["bert"]
    edits = ModelEdits().with_input(0, 40, 1, 9.0)
    short = model.run("the cat", edits)
    np.testing.assert_array_equal(short.hidden, model.run("the cat").hidden)


def test_no_edits_is_the_checkpoint(models):
    model = models["gpt2"]
    a = model.run(TEXT, ModelEdits().with_weight(0, 0, "w_q", 0, 0, 1.0).with_knockout(1, 1, True))
    b = model.run(TEXT, ModelEdits())
    c = model.run(TEXT)
    np.testing.assert_array_equal(b.hidden, c.hidden)
    assert not np.array_equal(a.hidden, c.hidden)


def test_the_model_itself_is_not_changed_by_edits(models):
    model = models["bert"]
    before = model.head_weights(0, 0)["w_q"].copy()
    model.run(TEXT, ModelEdits().with_weight(0, 0, "w_q", 0, 0, 7.0))
    np.testing.assert_array_equal(model.head_weights(0, 0)["w_q"], before)


@pytest.mark.parametrize("edits, fragment", [
    (ModelEdits().with_weight(2, 0, "w_q", 0, 0, 1.0), "layer 3 is past the model's 2 layers"),
    (ModelEdits().with_weight(0, 2, "w_q", 0, 0, 1.0), "head 3 is past the model's 2 heads"),
    (ModelEdits().with_weight(0, 0, "w_q", 16, 0, 1.0), "row 17 is past the model's 16 rows"),
    (ModelEdits().with_weight(0, 0, "b_k", 0, 8, 1.0), "column 9 is past the model's 8 columns of a head"),
    (ModelEdits().with_input(0, 0, 16, 1.0), "number 17 is past the model's 16 numbers per token"),
    (ModelEdits().with_knockout(5, 0, True), "layer 6 is past"),
])
def test_edits_outside_the_model_are_refused(models, edits, fragment):
    with pytest.raises(ModelError, match=fragment):
        models["bert"].run(TEXT, edits)


# ----- ModelEdits as a value --------------------------------------------------------------------------------
def test_edits_are_values_equal_whatever_the_order():
    a = ModelEdits().with_weight(0, 1, "w_q", 2, 3, 1.0).with_input(1, 0, 0, 2.0).with_knockout(0, 0, True)
    b = ModelEdits().with_knockout(0, 0, True).with_input(1, 0, 0, 2.0).with_weight(0, 1, "w_q", 2, 3, 1.0)
    assert a == b and hash(a) == hash(b)
    assert not a.is_empty() and ModelEdits().is_empty()
    assert a.with_knockout(0, 0, False) != a
    assert a.with_knockout(0, 0, False).with_knockout(0, 0, True) == a
    assert a.layers() == {0, 1}


def test_a_second_edit_of_the_same_number_replaces_the_first():
    e = ModelEdits().with_weight(0, 0, "b_q", 0, 1, 1.0).with_weight(0, 0, "b_q", 0, 1, 2.0)
    assert e.weights == ((0, 0, "b_q", 0, 1, 2.0),)
    assert e.weight_value(0, 0, "b_q", 0, 1) == 2.0 and e.weight_value(0, 0, "b_q", 0, 0) is None
    assert e.without_weight(0, 0, "b_q", 0, 1).is_empty()
    i = ModelEdits().with_input(0, 1, 2, 3.0).with_input(0, 1, 2, 4.0)
    assert i.inputs == ((0, 1, 2, 4.0),) and i.without_input(0, 1, 2).is_empty()


def test_numpy_numbers_are_accepted():
    e = ModelEdits().with_weight(np.int64(0), np.int32(1), "w_v", np.int64(2), 3, np.float32(0.5))
    assert e.weights == ((0, 1, "w_v", 2, 3, 0.5),)


@pytest.mark.parametrize("args, fragment", [
    ((0, 0, "w_o", 0, 0, 1.0), "'w_o' is not one of"),
    ((0, 0, "b_q", 1, 0, 1.0), "a bias has one row"),
    ((-1, 0, "w_q", 0, 0, 1.0), "layer must be a whole number"),
    ((0, True, "w_q", 0, 0, 1.0), "head must be a whole number"),
    ((0, 0, "w_q", 0.5, 0, 1.0), "row must be a whole number"),
    ((0, 0, "w_q", 0, 0, float("nan")), "finite number"),
    ((0, 0, "w_q", 0, 0, "x"), "must be a number"),
    ((0, 0, "w_q", 0, 0, 2e6), "beyond the limit"),
])
def test_bad_edits_are_refused(args, fragment):
    with pytest.raises(ModelError, match=fragment):
        ModelEdits().with_weight(*args)


FIELDS = ("attn_input", "q", "k", "v", "context", "scores", "weights", "hidden", "allowed")


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_a_run_that_reuses_the_layers_below_an_edit_gives_the_numbers_of_a_whole_run(models, family, monkeypatch):
    """Each edit in a row of edits (and undone again) runs from the layer it changes, on the trace before it:
    every number is the same, to the bit, as a run from the start."""
    from qkv_engine.models import forward

    starts = []
    whole_run = forward.run

    def recorded(arch, w, ids, edits, start=0, before=None, blocks=None, wide=None):
        starts.append(start)
        return whole_run(arch, w, ids, edits, start, before, blocks, wide)

    monkeypatch.setattr(forward, "run", recorded)
    model = models[family]
    steps = [
        ModelEdits().with_weight(1, 0, "w_q", 3, 2, 0.7),  # layer 2 only
        ModelEdits().with_weight(1, 0, "w_q", 3, 2, 0.7).with_knockout(1, 1, True),
        ModelEdits().with_weight(1, 0, "w_q", 3, 2, 0.7).with_knockout(1, 1, True).with_input(1, 2, 5, 3.0),
        ModelEdits().with_weight(1, 0, "w_q", 3, 2, 0.7).with_knockout(1, 1, True),  # the input edit undone
        ModelEdits().with_weight(1, 0, "w_q", 3, 2, 0.7).with_weight(0, 1, "b_v", 0, 1, -2.0),  # layer 1
        ModelEdits(),
    ]
    trace = model.run(TEXT)
    for edits in steps:
        trace = model.run(TEXT, edits, reuse=trace)
        whole = model.run(TEXT, edits)
        for name in FIELDS:
            np.testing.assert_array_equal(getattr(trace, name), getattr(whole, name), err_msg=f"{edits}: {name}")
    # (each step: the run reusing the trace, then the whole run) the edits of layer 2 ran from layer 2;
    # undoing BERT's input edit could not (its layer's stored hidden state held the edited numbers), nor
    # could the edit of layer 1 or going back to no edits
    assert starts[0] == 0 and starts[2::2] == [0] * len(steps)
    assert starts[1::2] == [1, 1, 1, 0 if family == "bert" else 1, 0, 0]


def test_a_trace_of_another_sentence_is_not_reused(models):
    model = models["bert"]
    other = model.run("a different sentence")
    trace = model.run(TEXT, ModelEdits().with_weight(1, 0, "w_k", 0, 0, 1.0), reuse=other)
    whole = model.run(TEXT, ModelEdits().with_weight(1, 0, "w_k", 0, 0, 1.0))
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(trace, name), getattr(whole, name), err_msg=name)


def test_output_edits_are_the_heads_knocked_out_or_fixed():
    edits = (ModelEdits().with_knockout(1, 2, True).with_fixed_output(0, 3, [0.5, 0.5])
             .with_weight(0, 0, "w_q", 0, 0, 1.0))
    assert edits.output_edits() == {(1, 2), (0, 3)}  # a weight edit is not one: it changes its own head
    assert ModelEdits().output_edits() == set()
