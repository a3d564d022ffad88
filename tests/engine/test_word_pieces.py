"""Words, not pieces: pieces joined into words for each tokenizer family, by hand, and attention between
words against the rule written out with loops."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import ScenarioError, Word, merge_pieces, word_weights
from qkv_engine.models import load_model

from .model_files import TINY_BERT, TINY_GPT2, TINY_LLAMA

SENTENCE = "The cat didn't sit on the e-mail, U.S. mat...  ok! Zo\u00eb"


def words(groups):
    return [(w.text, w.pieces) for w in groups]


def test_wordpiece_pieces_join_the_word_before():
    tokens = ("[CLS]", "the", "cat", "##s", "sat", ".", "[SEP]")
    assert words(merge_pieces(tokens)) == [
        ("[CLS]", (0,)), ("the", (1,)), ("cats", (2, 3)), ("sat", (4,)), (".", (5,)), ("[SEP]", (6,))]


def test_byte_level_pieces_start_a_word_at_a_space():
    tokens = ("<|endoftext|>", "The", "\u2423cat", "s", "\u2423sat", ".", "\u2423", "ok")
    assert words(merge_pieces(tokens)) == [
        ("<|endoftext|>", (0,)), ("The", (1,)), ("cats", (2, 3)), ("sat", (4,)), (".", (5,)), ("ok", (6, 7))]


def test_sentencepiece_pieces_start_a_word_at_a_space():
    tokens = ("<s>", "\u2581The", "\u2581un", "believ", "able", "\u2581story", "!", "</s>")
    assert words(merge_pieces(tokens)) == [
        ("<s>", (0,)), ("The", (1,)), ("unbelievable", (2, 3, 4)), ("story", (5,)), ("!", (6,)), ("</s>", (7,))]
    llama = ("<|begin_of_text|>", "Hello", "\u2423wor", "ld", "<|eot_id|>")
    assert [w.text for w in merge_pieces(llama)] == ["<|begin_of_text|>", "Hello", "world", "<|eot_id|>"]


def test_special_tokens_stay_words_of_their_own():
    tokens = ("[CLS]", "##a", "[MASK]", "##b", "[PAD]", "[SEP]")  # '##' after a special starts a word
    assert [w.pieces for w in merge_pieces(tokens)] == [(0,), (1,), (2,), (3,), (4,), (5,)]
    # an empty span marks a piece the tokenizer added, whatever its name
    assert [w.pieces for w in merge_pieces(("BOS", "a", "b"), ((0, 0), (0, 1), (1, 2)), "ab")] == [(0,), (1, 2)]


def test_punctuation_inside_a_word_stays_in_it_and_runs_of_it_are_one_word():
    tokens = ("\u2423e", "-", "mail", ",", "\u2423wait", ".", ".", ".", "\u2423(", "no", ")")
    assert [w.text for w in merge_pieces(tokens)] == ["e-mail", ",", "wait", "...", "(", "no", ")"]


def test_spans_and_text_tell_where_the_spaces_are():
    # BERT splits didn't into didn ' t with no '##': only the text shows they touch
    tokens = ("[CLS]", "didn", "'", "t", "go", "[SEP]")
    spans = ((0, 0), (0, 4), (4, 5), (5, 6), (7, 9), (0, 0))
    assert words(merge_pieces(tokens, spans, "didn't go")) == [
        ("[CLS]", (0,)), ("didn't", (1, 2, 3)), ("go", (4,)), ("[SEP]", (5,))]
    assert [w.text for w in merge_pieces(tokens)] == ["[CLS]", "didn", "'", "t", "go", "[SEP]"]


@pytest.mark.parametrize("folder, want", [
    (TINY_GPT2, ["The", "cat", "didn't", "sit", "on", "the", "e-mail", ",", "U.S", ".", "mat", "...", "\u2423",
                 "ok", "!", "Zo\u00eb"]),
    (TINY_BERT, ["[CLS]", "The", "cat", "didn't", "sit", "on", "the", "e-mail", ",", "U.S", ".", "mat", "...", "ok",
                 "!", "Zo\u00eb", "[SEP]"]),
    # Llama's piece "at." holds letters and a full stop: a piece is never split, so "mat." keeps it
    (TINY_LLAMA, ["<s>", "The", "cat", "didn't", "sit", "on", "the", "e-mail", ",", "U.S", ".", "mat.", "..",
                  "\u2423", "ok", "!", "Zo\u00eb"]),
])
def test_a_real_tokenizers_pieces(folder, want):
    model = load_model(folder)
    tokens, _, spans, _ = model.tokenize(SENTENCE)
    groups = merge_pieces(tokens, spans, SENTENCE)
    assert [w.text for w in groups] == want  # lower-case pieces, [UNK]s and byte pieces shown as the text has them
    assert [i for w in groups for i in w.pieces] == list(range(len(tokens)))


def brute_word_weights(w, groups):
    m = len(groups)
    out = np.zeros((m, m))
    for a, ga in enumerate(groups):
        for b, gb in enumerate(groups):
            out[a, b] = sum(sum(w[i, j] for j in gb) for i in ga) / len(ga)
    return out


def test_word_weights_add_columns_and_average_rows():
    w = np.array([[0.5, 0.25, 0.25],
                  [0.0, 1.0, 0.0],
                  [0.2, 0.2, 0.6]])
    got = word_weights(w, [(0,), (1, 2)])
    # to word 2: 0.25 + 0.25 from piece 0; from word 2: the mean of rows 1 and 2, columns 1 and 2 added
    np.testing.assert_allclose(got, [[0.5, 0.5], [0.1, 0.9]])


def test_word_weights_of_every_head_against_loops():
    rng = np.random.default_rng(2)
    w = rng.random((2, 3, 7, 7))
    w /= w.sum(axis=-1, keepdims=True)
    groups = merge_pieces(("[CLS]", "un", "##believ", "##able", "story", ".", "[SEP]"))
    assert [g.pieces for g in groups] == [(0,), (1, 2, 3), (4,), (5,), (6,)]
    got = word_weights(w, groups)
    assert got.shape == (2, 3, 5, 5)
    for layer in range(2):
        for h in range(3):
            np.testing.assert_allclose(got[layer, h], brute_word_weights(w[layer, h], [g.pieces for g in groups]))
    np.testing.assert_allclose(got.sum(axis=-1), 1.0)


def test_word_weights_of_pieces_in_any_order_and_in_float32():
    """Groups of pieces that are not runs in order take the other way; both agree with the loops, and a
    float32 answer is the float64 one rounded."""
    rng = np.random.default_rng(3)
    w = rng.random((2, 6, 6)).astype(np.float32)
    for groups in ([(0, 3), (1,), (2, 4, 5)], [(2, 3), (0, 1), (4, 5)], [(0,), (1, 2), (3, 4, 5)]):
        got = word_weights(w, groups)
        assert got.dtype == np.float64 and got.shape == (2, 3, 3)
        for h in range(2):
            np.testing.assert_allclose(got[h], brute_word_weights(w[h].astype(np.float64), groups), rtol=1e-12)
        single = word_weights(w, groups, np.float32)
        assert single.dtype == np.float32 and np.array_equal(single, got.astype(np.float32))


def test_word_weights_of_a_trace():
    model = load_model(TINY_GPT2)
    trace = model.run(SENTENCE)
    groups = merge_pieces(trace.tokens, trace.spans, trace.text)
    got = word_weights(trace.weights, groups)
    assert got.shape == (trace.n_layers, trace.n_heads, len(groups), len(groups))
    np.testing.assert_allclose(got.sum(axis=-1), 1.0, atol=1e-6)
    np.testing.assert_allclose(got[1, 0], brute_word_weights(trace.weights[1, 0], [g.pieces for g in groups]),
                               atol=1e-6)


def test_bad_groups_are_refused():
    w = np.full((3, 3), 1 / 3)
    for bad in ([(0,), (1,)], [(0, 1), (1, 2)], [(0, 1, 2), ()], [Word((0, 1, 2, 3), "x")]):
        with pytest.raises(ScenarioError, match="groups"):
            word_weights(w, bad)
    with pytest.raises(ScenarioError, match="spans"):
        merge_pieces(("a", "b"), ((0, 1),), "ab")
    with pytest.raises(ScenarioError, match="both or neither"):
        merge_pieces(("a",), ((0, 1),))


def test_a_word_may_look_at_a_word_when_some_piece_of_it_may_look_at_some_piece_of_the_other():
    from qkv_engine import word_mask

    causal = np.tril(np.ones((4, 4), dtype=bool))  # pieces 0 | 1 2 | 3
    groups = [(0,), (1, 2), (3,)]
    want = [[any(causal[i, j] for i in a for j in b) for b in groups] for a in groups]
    np.testing.assert_array_equal(word_mask(causal, groups), want)
    assert word_mask(causal, groups).tolist() == [[True, False, False], [True, True, False], [True, True, True]]


def test_a_traces_words_use_its_spans_and_fall_back_to_its_tokens():
    from types import SimpleNamespace

    from qkv_engine import trace_words

    fits = SimpleNamespace(tokens=("[CLS]", "token", "##ization", "[SEP]"), spans=((0, 0), (0, 5), (5, 12), (12, 12)),
                           text="tokenization")
    assert [w.pieces for w in trace_words(fits)] == [(0,), (1, 2), (3,)]
    misfit = SimpleNamespace(tokens=fits.tokens, spans=((0, 1),), text="t")  # spans that do not fit the tokens
    assert [w.pieces for w in trace_words(misfit)] == [w.pieces for w in merge_pieces(fits.tokens)]


def test_a_long_sentences_stack_is_not_copied_to_float64():
    """Every head's weights of a long sentence are large: words of pieces in order are added up a matrix at a
    time, with no float64 copy of the stack."""
    import tracemalloc

    rng = np.random.default_rng(4)
    w = rng.random((2, 8, 90, 90)).astype(np.float32)
    groups = [tuple(range(i, i + 3)) for i in range(0, 90, 3)]
    tracemalloc.start()
    try:
        got = word_weights(w, groups, np.float32)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < w.nbytes / 2  # a float64 copy alone would be twice w
    np.testing.assert_allclose(got[1, 5], brute_word_weights(w[1, 5].astype(np.float64), groups), rtol=1e-6)
