"""Head effects against a fresh forward per knock-out and against the float64 reference forward; generation
checked step by step against the model's own next-token scores."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from qkv_engine.models import ModelEdits, ModelError, load_model
from qkv_engine.models.what_if import generate, head_effects, mean_edits

from .model_files import TINY_BERT, TINY_BERT_MLM, TINY_GPT2, TINY_LLAMA, copy_model, runs_kept_to, tensors
from .llama_reference import llama_reference
from .model_reference import reference_forward

TEXT = "the quick brown fox jumps over the lazy dog."


@pytest.fixture(scope="module")
def gpt2():
    return load_model(TINY_GPT2)


def log_p(logits_row, token_id) -> float:
    """log softmax of one row, one number at a time."""
    top = max(float(z) for z in logits_row)
    total = sum(math.exp(float(z) - top) for z in logits_row)
    return float(logits_row[token_id]) - top - math.log(total)


def reference_log_p(ids, position, token_id, knocked=frozenset(), tensors_=None) -> float:
    """log p(token) from the float64 reference forward of the tiny GPT-2 (logits = ln_f(h) wte^T, tied)."""
    t = tensors_ if tensors_ is not None else tensors(TINY_GPT2)
    out = reference_forward(TINY_GPT2, ids, knocked=knocked, tensors=t)
    logits = out["hidden"][-1][position] @ np.asarray(t["wte.weight"], dtype=np.float64).T
    return log_p(logits, token_id)


@pytest.mark.parametrize("position", [4, -1])
def test_zero_knock_outs_are_fresh_forwards(gpt2, position):
    trace = gpt2.run(TEXT)
    target = int(np.argsort(trace.logits[position])[-3])  # the third most likely token
    got = head_effects(gpt2, trace, position, target)
    assert got.shape == (2, 2)
    base = log_p(trace.logits[position], target)
    for layer in range(2):
        for head in range(2):
            fresh = gpt2.run(TEXT, ModelEdits().with_knockout(layer, head, True))  # no reuse: every layer
            assert got[layer, head] == pytest.approx(log_p(fresh.logits[position], target) - base, abs=1e-5)
    assert np.abs(got).max() > 0.01  # the heads matter in this model: a test of nothing would pass with zeros


def test_zero_knock_outs_match_the_reference_forward(gpt2):
    trace = gpt2.run(TEXT)
    target = int(np.argmax(trace.logits[5]))
    got = head_effects(gpt2, trace, 5, target)
    base = reference_log_p(trace.ids, 5, target)
    want = [[reference_log_p(trace.ids, 5, target, {(layer, head)}) - base for head in range(2)] for layer in range(2)]
    np.testing.assert_allclose(got, want, atol=2e-4)


def test_a_knock_out_in_layer_l_reruns_layers_l_and_up_only(gpt2, monkeypatch):
    trace = gpt2.run(TEXT)
    run, starts = gpt2.run, []

    def recorded(text, edits=ModelEdits(), reuse=None):
        starts.append(gpt2.resume_layer(text, edits, reuse))  # the layer that run starts from
        return run(text, edits, reuse)

    monkeypatch.setattr(gpt2, "run", recorded)
    head_effects(gpt2, trace, 3, 7)
    assert starts == [0, 0, 1, 1]  # (layer 0, head 0), (0, 1), (1, 0), (1, 1)


def test_progress_is_told_and_can_stop_the_work(gpt2):
    trace = gpt2.run(TEXT)
    seen = []
    assert head_effects(gpt2, trace, 2, 5, progress=lambda done, total: seen.append((done, total))) is not None
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    seen.clear()
    assert head_effects(gpt2, trace, 2, 5, progress=lambda done, total: seen.append(done) or done < 2) is None
    assert seen == [1, 2]


def test_a_head_already_knocked_out_changes_nothing(gpt2):
    edits = ModelEdits().with_knockout(1, 0, True)
    trace = gpt2.run(TEXT, edits)
    got = head_effects(gpt2, trace, -1, 11)
    assert got[1, 0] == 0.0
    fresh = gpt2.run(TEXT, edits.with_knockout(0, 1, True))
    assert got[0, 1] == pytest.approx(log_p(fresh.logits[-1], 11) - log_p(trace.logits[-1], 11), abs=1e-5)


def test_mean_knock_outs_give_each_position_the_heads_mean(gpt2):
    trace = gpt2.run(TEXT)
    target = int(np.argmax(trace.logits[-1]))
    got = head_effects(gpt2, trace, -1, target, mode="mean")
    t = tensors(TINY_GPT2)
    d, dh = 16, 8
    base = reference_log_p(trace.ids, -1, target)
    for layer in range(2):
        for head in range(2):
            edited = gpt2.run(TEXT, mean_edits(trace, layer, head))
            mean = trace.context[layer, head].astype(np.float64).mean(axis=0)
            np.testing.assert_allclose(edited.context[layer, head], np.tile(mean, (trace.n, 1)), atol=1e-5)
            np.testing.assert_allclose(edited.context[layer, 1 - head], trace.context[layer, 1 - head], atol=1e-6)
            # independently: the head knocked out and its mean output, through W^O, added to the layer's bias
            moved = {name: np.array(value) for name, value in t.items()}
            w_o = np.asarray(t[f"h.{layer}.attn.c_proj.weight"], dtype=np.float64)  # Conv1D: (in, out)
            moved[f"h.{layer}.attn.c_proj.bias"] = t[f"h.{layer}.attn.c_proj.bias"] + mean @ w_o[head * dh:(head + 1) * dh]
            assert w_o.shape == (d, d)
            want = reference_log_p(trace.ids, -1, target, {(layer, head)}, moved) - base
            assert got[layer, head] == pytest.approx(want, abs=2e-4)
    assert not np.allclose(got, head_effects(gpt2, trace, -1, target), atol=1e-3)  # mean is not zero


def test_mean_knock_outs_of_grouped_query_heads_give_each_position_the_heads_mean():
    """In a grouped-query model a head shares its W^V; its output is set instead: the change in log p against
    the float64 forward of tests/engine/llama_reference.py."""
    llama = load_model(TINY_LLAMA)  # 4 query heads, 2 key/value heads
    trace = llama.run(TEXT)
    target = int(np.argmax(trace.logits[-1]))
    got = head_effects(llama, trace, -1, target, mode="mean")
    base = log_p(llama_reference(TINY_LLAMA, trace.ids)["logits"][-1], target)
    for layer in range(2):
        for head in range(4):
            edited = llama.run(TEXT, mean_edits(trace, layer, head))
            mean = trace.context[layer, head].astype(np.float64).mean(axis=0)
            np.testing.assert_allclose(edited.context[layer, head], np.tile(mean, (trace.n, 1)), atol=1e-5)
            np.testing.assert_allclose(edited.weights[layer], trace.weights[layer], atol=1e-6)  # it still attends
            want = log_p(llama_reference(TINY_LLAMA, trace.ids, mean_of={(layer, head)})["logits"][-1], target) - base
            assert got[layer, head] == pytest.approx(want, abs=2e-4)
    assert not np.allclose(got, head_effects(llama, trace, -1, target), atol=1e-3)  # mean is not zero


def test_a_fixed_output_of_the_wrong_size_is_refused():
    llama = load_model(TINY_LLAMA)
    with pytest.raises(ModelError, match="8 numbers"):
        llama.run(TEXT, ModelEdits().with_fixed_output(0, 1, (0.5,) * 3))
    with pytest.raises(ModelError, match="finite"):
        ModelEdits().with_fixed_output(0, 1, (float("nan"),) * 8)


def test_bert_effects_are_at_the_masked_position():
    bert = load_model(TINY_BERT_MLM)
    trace = bert.run("the cat [MASK] on the mat")
    got = head_effects(bert, trace, 3, 9)
    fresh = bert.run(trace.text, ModelEdits().with_knockout(0, 1, True))
    assert got[0, 1] == pytest.approx(log_p(fresh.logits[3], 9) - log_p(trace.logits[3], 9), abs=1e-5)


def test_bad_requests_are_refused(gpt2):
    trace = gpt2.run(TEXT)
    for position, target, mode, match in ((trace.n, 1, "zero", "position"), (0, 320, "zero", "token id"),
                                          (0, 1, "half", "mode"), (True, 1, "zero", "position")):
        with pytest.raises(ModelError, match=match):
            head_effects(gpt2, trace, position, target, mode=mode)
    with pytest.raises(ModelError, match="another model"):
        head_effects(load_model(TINY_LLAMA), trace, 0, 1)
    bert = load_model(TINY_BERT)
    with pytest.raises(ModelError, match="no output head"):
        head_effects(bert, bert.run(TEXT), 0, 1)


def greedy_by_hand(model, text, steps):
    """Each step: the model run on the text, the argmax of its last row, that token's text appended."""
    for _ in range(steps):
        trace = model.run(text)
        best = int(np.argmax(trace.logits[-1]))
        shown, token_id, _ = model.predict(trace, -1, 1)[0]
        assert token_id == best and not shown.startswith("\\x")  # a whole character: its text is as shown
        text += shown.replace("\u2423", " ")
    return text


@pytest.mark.parametrize("folder, text", [(TINY_GPT2, "a cat sat on"), (TINY_LLAMA, "a cat sat on")])
def test_greedy_generation_step_by_step(folder, text):
    model = load_model(folder)
    want = greedy_by_hand(model, text, 4)
    got = generate(model, text, 4)
    assert got.text == want
    assert got.tokens == model.run(want).tokens
    np.testing.assert_array_equal(got.logits, model.run(want).logits)
    if folder == TINY_LLAMA:
        assert want == "a cat sat onU inimecau"  # the third token begins with a space ("␣in")


def test_sampling_draws_from_the_softmax_with_the_seed(gpt2):
    text = "the cat"
    for seed in (0, 1, 2):
        rng = np.random.default_rng(seed)
        want = text
        for _ in range(2):
            z = gpt2.run(want).logits[-1].astype(np.float64) / 0.7
            p = np.exp(z - z.max())
            token = int(rng.choice(p.size, p=p / p.sum()))
            want += gpt2._tokenizer.tokenizer.decode([token])
        assert generate(gpt2, text, 2, temperature=0.7, seed=seed).text == want
    texts = {generate(gpt2, text, 4, temperature=1.5, seed=seed).text for seed in range(5)}
    assert len(texts) > 1  # the seed matters


def test_generation_stops_at_the_end_of_text_token(tmp_path, gpt2):
    text = "the quick brown fox"
    first = greedy_by_hand(gpt2, text, 1)
    second_id = int(np.argmax(gpt2.run(first).logits[-1]))
    assert second_id != int(np.argmax(gpt2.run(text).logits[-1]))
    vocab = json.loads((TINY_GPT2 / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    piece = {i: p for p, i in vocab.items()}[second_id]
    folder = copy_model(TINY_GPT2, tmp_path / "ends")
    (folder / "tokenizer_config.json").write_text(json.dumps({"eos_token": piece}))
    ending = load_model(folder)
    got = generate(ending, text, 5)
    assert got.text == first  # one token, then the model's next is the end of text
    assert generate(gpt2, text, 5).text.startswith(first) and len(generate(gpt2, text, 5).text) > len(first)


def test_generation_stops_at_the_models_length(gpt2):
    got = generate(gpt2, "a cat sat on", 200)
    assert got.dropped == 0 and gpt2.info.max_tokens - 3 <= got.n <= gpt2.info.max_tokens  # a token adds 1 to 3


def test_generation_needs_a_left_to_right_model_and_sensible_settings(gpt2):
    assert generate(gpt2, TEXT, 0).text == TEXT
    with pytest.raises(ModelError, match="left to right"):
        generate(load_model(TINY_BERT_MLM), TEXT, 2)
    for bad in (-1.0, float("nan"), "hot"):
        with pytest.raises(ModelError, match="temperature"):
            generate(gpt2, TEXT, 1, temperature=bad)
    with pytest.raises(ModelError, match="some text"):
        generate(gpt2, "", 1)


def test_generation_stops_at_the_tokens_whose_run_fits_in_memory(monkeypatch):
    runs_kept_to(TINY_GPT2, 20, monkeypatch)
    small = load_model(TINY_GPT2)
    assert small.info.token_limit == 20 < small.info.max_tokens
    got = generate(small, "a cat sat on", 200)
    assert got.dropped == 0 and 20 - 3 <= got.n <= 20  # a token adds 1 to 3
