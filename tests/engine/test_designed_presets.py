"""Designed examples: hand-chosen, named numbers whose attention does what their notes say.

Every figure a note states is recomputed here with the independent reference implementation.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from qkv_engine import compute, feature_names, presets, tokenize

from .reference import attention_of

DESIGNED = ["designed-it", "designed-previous-word", "designed-adjective-noun", "designed-agreement"]

#: The (query word, key word) pairs each example is about: the key gets the most weight in that row.
PAIRS = {
    "designed-it": [("it", "animal")],
    "designed-previous-word": [("New", "New"), ("York", "New"), ("is", "York"), ("a", "is"), ("big", "a"),
                               ("city", "big")],
    "designed-adjective-noun": [("small", "dog"), ("brown", "dog"), ("loudly", "barks")],
    "designed-agreement": [("are", "books")],
}

#: Each percentage written in a note, and the weight (query word, key word) it reports.
FIGURES = {
    "designed-it": [("84%", "it", "animal"), ("5%", "it", "street"), ("9%", "was", "too")],
    "designed-previous-word": [("84%", "York", "New"), ("84%", "city", "big")],
    "designed-adjective-noun": [("93%", "small", "dog"), ("93%", "brown", "dog"), ("93%", "loudly", "barks")],
    "designed-agreement": [("87%", "are", "books"), ("9%", "are", "shelf")],
}


def weights(scenario) -> np.ndarray:
    return np.array(attention_of(scenario).weights)


def test_there_are_four_designed_presets_and_the_old_ones_stay():
    assert [p.name for p in presets.all_presets() if p.designed] == DESIGNED
    pronoun = presets.get("pronoun")
    assert not pronoun.designed and pronoun.random_weights and pronoun.title == "Who is 'it'?"
    assert presets.load("pronoun").n == 13 and presets.load("pronoun").new_tokens == "random"
    assert presets.get("designed-it").title == "Who is 'it'? (designed)"


@pytest.mark.parametrize("name", DESIGNED)
def test_named_pairs_get_the_largest_weight_in_their_rows(name):
    s = presets.load(name)
    w = weights(s)
    for q, k in PAIRS[name]:
        i, j = s.tokens.index(q), s.tokens.index(k)
        others = np.delete(w[i], j)
        assert w[i, j] > others.max() + 0.5, f"{q} -> {k}: {w[i, j]:.3f} vs {others.max():.3f}"
    assert presets.get(name).pairs == tuple((s.tokens.index(q), s.tokens.index(k)) for q, k in PAIRS[name])


@pytest.mark.parametrize("name", DESIGNED)
def test_every_percentage_in_the_note_is_the_computed_weight(name):
    s = presets.load(name)
    w = weights(s)
    note = presets.get(name).note
    stated = re.findall(r"\d+%", note)
    checked = []
    for figure, q, k in FIGURES[name]:
        value = w[s.tokens.index(q), s.tokens.index(k)]
        assert f"{round(100 * value)}%" == figure, f"{q} -> {k} is {100 * value:.2f}%"
        assert figure in stated
        checked.append(figure)
    assert set(stated) <= set(checked), f"a figure in the note is not checked: {set(stated) - set(checked)}"


def test_the_agreement_note_s_experiment_does_what_it_says():
    s = presets.load("designed-agreement")
    t = s.with_text(s.text.replace("are", "is"))
    i = t.tokens.index("is")
    assert np.array_equal(t.x[i], s.x[s.tokens.index("are")])  # 'is' took the features of 'are'
    plural, singular = t.feature_names.index("plural"), t.feature_names.index("singular")
    t = t.with_cell("x", i, plural, 0).with_cell("x", i, singular, 1)
    w = weights(t)
    assert int(np.argmax(w[i])) == t.tokens.index("shelf")
    assert f"{round(100 * w[i].max())}%" in presets.get("designed-agreement").note.split("Now 'is' puts")[1]


def test_the_it_note_s_experiments_do_what_they_say():
    s = presets.load("designed-it")
    dog = s.with_text(s.text.replace("animal", "dog"))
    assert int(np.argmax(weights(dog)[dog.tokens.index("it")])) == dog.tokens.index("dog")
    flat = s.with_cell("x", 1, s.feature_names.index("animate"), 0)
    row = weights(flat)[7]
    assert row[1] == pytest.approx(row[5])  # 'animal' and 'street' now tie: 'it' has lost its choice


@pytest.mark.parametrize("name", DESIGNED)
def test_designed_numbers_are_named_whole_and_explained(name):
    p = presets.get(name)
    s = p.build()
    assert s.new_tokens == "replaced-or-zero" and not p.random_weights
    for kind in ("x", "q", "k", "v"):
        assert all(feature_names.names(s, kind)), f"{kind}: every column has a name"
    for a in (s.x, s.w_q, s.w_k, s.w_v):
        assert np.array_equal(a, np.round(a))
    # every feature that a non-zero W^Q or W^K row reads is named in the note
    for grid in (s.w_q, s.w_k, s.w_v):
        for r in np.flatnonzero(np.any(grid != 0, axis=1)):
            assert s.feature_names[r] in p.note or s.feature_names[r].startswith("place")
    assert "random" not in p.description.lower()
    assert all(len(line) < 400 for line in p.note.split("\n"))


def test_the_it_sentence_has_eleven_tokens_as_the_tokenizer_splits_it():
    s = presets.load("designed-it")
    assert s.tokens == tuple(t.text for t in tokenize(s.text)) and s.n == 11
    assert "didn't" in s.tokens


@pytest.mark.parametrize("name", DESIGNED)
def test_the_engine_agrees_with_the_reference(name):
    s = presets.load(name)
    np.testing.assert_allclose(compute(s).weights, weights(s), atol=1e-12)


#: Every "query of 'w' is (...)", "key of 'w' is (...)" and score sum written in a note, as (kind, word, numbers).
VECTOR = re.compile(r"the (query|key) of '([^']+)' is \(([-\d, ]+)\)")


@pytest.mark.parametrize("name", DESIGNED)
def test_every_query_and_key_written_in_the_note_is_the_computed_one(name):
    s = presets.load(name)
    ref = attention_of(s)
    note = presets.get(name).note
    found = VECTOR.findall(note)
    for kind, word, numbers in found:
        vec = (ref.q if kind == "query" else ref.k)[s.tokens.index(word)]
        assert [float(v) for v in numbers.split(",")] == pytest.approx(vec), f"{kind} of {word}"
    assert len(found) == {"designed-it": 3, "designed-agreement": 3}.get(name, 0)


#: The raw scores each note adds up, as (query word, key word, the number the note gives).
SCORES = {
    "designed-it": [("it", "animal", 6), ("it", "street", 2), ("it", "The", 0)],
    "designed-previous-word": [("York", "New", 8), ("York", "city", 0)],
    "designed-adjective-noun": [("small", "dog", 6), ("loudly", "barks", 6), ("small", "barks", 0)],
    "designed-agreement": [("are", "books", 10), ("are", "shelf", 6), ("are", "are", 4)],
}


@pytest.mark.parametrize("name", DESIGNED)
def test_the_scores_in_the_note_are_the_computed_ones(name):
    s = presets.load(name)
    ref = attention_of(s)
    note = presets.get(name).note
    for q, k, value in SCORES[name]:
        assert ref.scores[s.tokens.index(q)][s.tokens.index(k)] == pytest.approx(value)
        assert f"= {value}" in note or value == 0


def test_the_other_notes_experiments_do_what_they_say():
    s = presets.load("designed-adjective-noun")
    big = s.with_text(s.text.replace("small", "big"))
    assert int(np.argmax(weights(big)[big.tokens.index("big")])) == big.tokens.index("dog")
    s = presets.load("designed-previous-word")
    swapped = s.with_text("York New is a big city")
    row = weights(swapped)[swapped.tokens.index("New")]
    assert int(np.argmax(row)) != swapped.tokens.index("York")  # no longer the word before it
