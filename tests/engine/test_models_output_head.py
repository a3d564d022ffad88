"""Every family's output head: the trace's logits equal the transformers library's, and ``predict``
ranks tokens by the softmax of those logits (tests/data reference outputs)."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine.models import ModelError, load_model

from .model_files import TINY_BERT, TINY_BERT_MLM, TINY_DISTILBERT_MLM, TINY_GPT2, TINY_LLAMA, TINY_QWEN2, copy_model, edit_config, \
    reference_outputs, tensors, write_tensors

WITH_HEAD = {"gpt2": TINY_GPT2, "bert-mlm": TINY_BERT_MLM, "distilbert-mlm": TINY_DISTILBERT_MLM, "llama": TINY_LLAMA,
             "qwen2": TINY_QWEN2}


@pytest.fixture(scope="module")
def models():
    return {name: load_model(folder) for name, folder in WITH_HEAD.items()}


@pytest.mark.parametrize("name", sorted(WITH_HEAD))
def test_logits_match_the_library(models, name, either_exp):
    model = models[name]
    assert model.info.has_output_head
    for s, ref in reference_outputs(WITH_HEAD[name]).items():
        trace = model.run(str(ref["text"]))
        assert trace.ids == tuple(int(i) for i in ref["ids"])
        assert trace.logits.shape == ref["logits"].shape and trace.logits.dtype == np.float32
        assert not trace.logits.flags.writeable
        np.testing.assert_allclose(trace.logits, ref["logits"], atol=1e-4 * np.abs(ref["logits"]).max(), rtol=0)


@pytest.mark.parametrize("name", ["bert-mlm", "distilbert-mlm"])
def test_masked_lm_hidden_states_and_weights_match_the_library(models, name):
    for s, ref in reference_outputs(WITH_HEAD[name]).items():
        trace = models[name].run(str(ref["text"]))
        np.testing.assert_allclose(trace.weights, ref["attn"], atol=1e-4, rtol=0)
        np.testing.assert_allclose(trace.hidden, ref["hidden"], atol=1e-4 * np.abs(ref["hidden"]).max(), rtol=0)


def test_a_checkpoint_without_a_head_has_no_logits():
    model = load_model(TINY_BERT)  # BertModel: the layers only, as MiniLM's sentence-transformers export
    assert not model.info.has_output_head
    trace = model.run("the cat sat")
    assert trace.logits is None
    with pytest.raises(ModelError, match="no output head"):
        model.predict(trace, 1)


@pytest.mark.parametrize("name", sorted(WITH_HEAD))
def test_predict_ranks_by_the_softmax_of_the_librarys_logits(models, name):
    model = models[name]
    ref = reference_outputs(WITH_HEAD[name])[0]
    trace = model.run(str(ref["text"]))
    for position in (0, trace.n - 1, -1):
        z = ref["logits"][position].astype(np.float64)
        p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        top = model.predict(trace, position, k=5)
        assert len(top) == 5
        probs = [prob for _, _, prob in top]
        assert probs == sorted(probs, reverse=True)
        assert [i for _, i, _ in top] == list(np.argsort(-p, kind="stable")[:5])
        np.testing.assert_allclose(probs, np.sort(p)[::-1][:5], atol=1e-5)
        for text, i, _ in top:
            assert text == model._tokenizer.shown(i)


def test_predict_shows_tokens_as_the_sentence_shows_them(models):
    model = models["llama"]
    trace = model.run("The cat sat on the mat.")
    for token, token_id in zip(trace.tokens, trace.ids):
        assert model._tokenizer.shown(token_id) == token
    assert all(isinstance(t, str) for t, _, _ in model.predict(trace, 2, k=408))
    assert len(model.predict(trace, 2, k=10_000)) == 408  # at most the whole vocabulary
    np.testing.assert_allclose(sum(p for _, _, p in model.predict(trace, 2, k=408)), 1.0, atol=1e-9)


@pytest.mark.parametrize("position, k", [(99, 5), (-99, 5), (1.5, 5), (0, 0), (0, "5")])
def test_predict_refuses_a_bad_position_or_count(models, position, k):
    trace = models["gpt2"].run("the cat")
    with pytest.raises(ModelError):
        models["gpt2"].predict(trace, position, k)


def test_predict_refuses_another_models_trace(models):
    with pytest.raises(ModelError, match="another model"):
        models["gpt2"].predict(models["llama"].run("the cat"), 0)


def test_an_untied_llama_uses_its_lm_head(tmp_path):
    # tiny-llama ties its head to the embeddings; given an lm_head and tie_word_embeddings false, that is used
    folder = copy_model(TINY_LLAMA, tmp_path / "m")
    t = tensors(folder)
    head = np.random.default_rng(1).standard_normal(t["model.embed_tokens.weight"].shape).astype(np.float32)
    write_tensors(folder, {**t, "lm_head.weight": head})
    edit_config(folder, tie_word_embeddings=False)
    untied = load_model(folder).run("The cat sat")
    tied = load_model(TINY_LLAMA).run("The cat sat")
    np.testing.assert_array_equal(untied.hidden, tied.hidden)
    np.testing.assert_allclose(untied.logits, untied.hidden[-1] @ head.T, rtol=1e-5, atol=1e-5)
    edit_config(folder, tie_word_embeddings=True)  # tied: the lm_head tensor is not used
    np.testing.assert_array_equal(load_model(folder).run("The cat sat").logits, tied.logits)


def test_an_untied_bert_mlm_head_uses_its_own_decoder(tmp_path):
    # a decoder of twice the word embeddings: the untied logits (less the bias) are twice the tied ones
    folder = copy_model(TINY_BERT_MLM, tmp_path / "m")
    t = tensors(folder)
    write_tensors(folder, {**t, "cls.predictions.decoder.weight": 2 * t["bert.embeddings.word_embeddings.weight"]})
    tied = load_model(folder).run("the cat sat")
    np.testing.assert_array_equal(tied.logits, load_model(TINY_BERT_MLM).run("the cat sat").logits)
    edit_config(folder, tie_word_embeddings=False)
    untied = load_model(folder).run("the cat sat")
    bias = t["cls.predictions.bias"]
    np.testing.assert_allclose(untied.logits - bias, 2 * (tied.logits - bias), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(untied.hidden, tied.hidden)


def test_an_output_row_the_tokenizer_has_no_token_for_is_named_by_its_id(models):
    """A model's output may have more rows than its tokenizer has tokens (Qwen2.5: 151,936 for 151,665); such
    a row is listed by its number, not as an empty text."""
    tok = models["llama"]._tokenizer
    size = tok.tokenizer.get_vocab_size(with_added_tokens=True)
    assert tok.shown(size + 5) == f"[id {size + 5}]"
    assert tok.shown(0) != "" and not tok.shown(0).startswith("[id ")
