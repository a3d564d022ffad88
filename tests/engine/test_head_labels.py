"""Head labels: the scores against their definitions written out with loops, and heads made by hand whose
label is known."""
from __future__ import annotations

import math

import numpy as np
import pytest

from qkv_engine import BROAD_MIN, FOCUSED_MIN, ScenarioError, head_labels, head_labels_over
from qkv_engine.head_labels import LEGEND, SCORES
from qkv_engine.models import load_model

from .model_files import TINY_GPT2

TOKENS = ("[CLS]", "the", "cat", ",", "sat", ".", "[SEP]")
PUNCTUATION = {3, 5, 6}  # ",", "." and [SEP]


def brute_scores(w, tokens, allowed):
    """Every score of every head, one number at a time (rows with one allowed key left out)."""
    L, H, n, _ = w.shape
    marked = [j for j, t in enumerate(tokens) if t in ("[SEP]", "</s>") or t.strip("\u2423") in (",", ".", "!")]
    out = {name: np.zeros((L, H)) for name in SCORES}
    for layer in range(L):
        for h in range(H):
            rows = [i for i in range(n) if sum(allowed[i]) > 1]
            a = w[layer, h]
            per_row = {
                "previous": [a[i, i - 1] for i in rows if i >= 1],
                "next": [a[i, i + 1] for i in rows if i + 1 < n],
                "self": [a[i, i] for i in rows],
                "first": [a[i, 0] for i in rows],
                "separator": [sum(a[i, j] for j in marked) for i in rows],
                "broad": [-sum(a[i, j] * math.log(a[i, j]) for j in range(n) if allowed[i][j] and a[i, j] > 0)
                          / math.log(sum(allowed[i])) for i in rows],
            }
            for name, values in per_row.items():
                out[name][layer, h] = sum(values) / len(values) if values else 0.0
    return out


def random_weights(rng, L, H, allowed):
    w = rng.random((L, H) + allowed.shape) ** 4 * allowed  # some peaked rows
    return w / w.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("causal", [False, True])
def test_scores_are_their_definitions(causal):
    n = len(TOKENS)
    allowed = np.tril(np.ones((n, n), bool)) if causal else np.ones((n, n), bool)
    w = random_weights(np.random.default_rng(3), 3, 4, allowed)
    got = head_labels(w, TOKENS, allowed)
    want = brute_scores(w, TOKENS, allowed)
    assert set(got.scores) == set(SCORES)
    for name in SCORES:
        np.testing.assert_allclose(got.scores[name], want[name], atol=1e-12, err_msg=name)
    if causal:
        assert (got.scores["next"] == 0.0).all()


def one_layer(*heads):
    """A 1 x H x n x n array from n x n heads."""
    return np.array([heads], dtype=np.float64)


def test_hand_made_heads_get_their_labels():
    n = len(TOKENS)  # 7, no mask
    eye = np.eye(n)
    previous = np.roll(eye, -1, axis=1)  # row i: 1 at i - 1 (row 0 wraps round to the last)
    following = np.roll(eye, 1, axis=1)  # row i: 1 at i + 1
    first = np.zeros((n, n))
    first[:, 0] = 1.0
    separator = np.zeros((n, n))
    separator[:, [3, 5, 6]] = [0.2, 0.2, 0.3]  # 0.7 on punctuation and [SEP]
    separator[:, 1] = 0.3
    uniform = np.full((n, n), 1.0 / n)
    mixed = 0.45 * eye + 0.45 * previous + 0.1 * first
    got = head_labels(one_layer(previous, following, eye, first, separator, uniform, mixed), TOKENS)
    assert got.labels == (("previous", "next", "self", "first", "separator", "broad", "mixed"),)
    np.testing.assert_allclose(got.scores["previous"][0, 0], 1.0)  # rows 1 .. 6 all on the one before
    np.testing.assert_allclose(got.scores["separator"][0, 4], 0.7)
    np.testing.assert_allclose(got.scores["broad"][0, 5], 1.0)
    np.testing.assert_allclose(got.scores["previous"][0, 6], 0.45 + 0.1 / 6)  # row 1's previous is token 0


def test_thresholds_are_strict_and_named():
    assert (FOCUSED_MIN, BROAD_MIN) == (0.5, 0.8)
    half = np.array([[0.5, 0.5], [0.5, 0.5]])  # 0.5 on itself: not above 0.5; entropy 1
    got = head_labels(one_layer(half), ("a", "b"))
    assert got.scores["self"][0, 0] == 0.5
    assert got.labels == (("broad",),)
    # normalised entropy of [0.6, 0.2, 0.2] over 3 keys is 0.865: broad, not mixed; [0.7, 0.15, 0.15]: 0.744
    for top, label in ((0.6, "broad"), (0.7, "mixed")):
        rest = (1 - top) / 2
        rows = np.array([[top, rest, rest], [rest, rest, top], [rest, top, rest]])  # no pattern above 0.5
        assert head_labels(one_layer(rows), ("a", "b", "c")).labels == ((label,),)


def test_the_highest_score_wins_and_a_tie_goes_to_the_one_named_first():
    # tokens [".", "b", "."]: every row 0.6 on token 0 and 0.3 on token 2: first 0.6, separator 0.9
    rows = np.tile([0.6, 0.1, 0.3], (3, 1))
    got = head_labels(one_layer(rows), (".", "b", "."))
    assert got.labels == (("separator",),)
    np.testing.assert_allclose([got.scores["first"][0, 0], got.scores["separator"][0, 0]], [0.6, 0.9])
    # every row 0.7 on token 0, which is "." : first 0.7 = separator 0.7, and first comes first
    rows = np.tile([0.7, 0.3, 0.0], (3, 1))
    assert head_labels(one_layer(rows), (".", "b", "c")).labels == (("first",),)


def test_a_row_without_a_choice_says_nothing_about_the_head():
    n = 5
    allowed = np.tril(np.ones((n, n), bool))
    previous = np.roll(np.eye(n), -1, axis=1)
    previous[0] = [1, 0, 0, 0, 0]  # row 0 under the causal mask can only look at itself
    got = head_labels(one_layer(previous), ("a",) * n, allowed)
    assert got.labels == (("previous",),)
    assert got.scores["self"][0, 0] == 0.0 and got.scores["first"][0, 0] == 0.25  # row 0 is left out
    uniform = allowed / allowed.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(head_labels(one_layer(uniform), ("a",) * n, allowed).scores["broad"], 1.0)


def test_a_trace_is_read_as_its_weights_tokens_and_mask():
    model = load_model(TINY_GPT2)
    trace = model.run("the cat sat on the mat. the dog sat, too.")
    got = head_labels(trace)
    apart = head_labels(trace.weights, trace.tokens, trace.allowed)
    assert got.labels == apart.labels and len(got.labels) == 2 and len(got.labels[0]) == 2
    want = brute_scores(trace.weights.astype(np.float64), trace.tokens, trace.allowed)
    for name in SCORES:
        np.testing.assert_allclose(got.scores[name], want[name], atol=1e-6, err_msg=name)
    assert all(label != "next" for row in got.labels for label in row)
    assert {name for name, _ in got.legend} >= {label for row in got.labels for label in row}


def test_over_sentences_the_scores_are_averaged_then_labelled():
    rng = np.random.default_rng(8)
    sentences = []
    for n in (4, 6, 9):
        tokens = ("a",) * (n - 1) + (".",)
        allowed = np.tril(np.ones((n, n), bool))
        sentences.append((random_weights(rng, 2, 3, allowed), tokens, allowed))
    got = head_labels_over(sentences)
    each = [brute_scores(*s) for s in sentences]
    for name in SCORES:
        np.testing.assert_allclose(got.scores[name], np.mean([e[name] for e in each], axis=0), atol=1e-12)
    # a previous-token head in one sentence (score 1) and not in two others (score 0.2): mean 0.47, not above 0.5
    strong = np.roll(np.eye(4), -1, axis=1)
    weak = 0.2 * strong + 0.8 * np.eye(4)
    over = head_labels_over([(one_layer(strong), "abcd", None)] + [(one_layer(weak), "abcd", None)] * 2)
    np.testing.assert_allclose(over.scores["previous"], [[(1 + 0.2 + 0.2) / 3]])
    np.testing.assert_allclose(over.scores["self"], [[(0.0 + 0.8 + 0.8) / 3]])
    assert over.labels == (("self",),)
    assert head_labels(one_layer(strong), "abcd").labels == (("previous",),)


def test_legend_names_every_label_once():
    names = [name for name, _ in LEGEND]
    assert names == ["previous", "next", "self", "first", "separator", "broad", "mixed"]
    assert all(text and "\n" not in text for _, text in LEGEND)


def test_bad_input_is_refused():
    w = np.full((1, 1, 3, 3), 1 / 3)
    with pytest.raises(ScenarioError, match="tokens"):
        head_labels(w, ("a", "b"))
    with pytest.raises(ScenarioError, match="allowed"):
        head_labels(w, ("a", "b", "c"), np.ones((2, 2), bool))
    with pytest.raises(ScenarioError, match="same layers"):
        head_labels_over([(w, "abc", None), (np.full((2, 1, 3, 3), 1 / 3), "abc", None)])
    with pytest.raises(ScenarioError, match="at least one"):
        head_labels_over([])
