"""The sentences head labels are worked out over: each model's examples, and a typed list read line by line."""
from __future__ import annotations

import pytest

from qkv_engine import BUILTIN_NAME, ScenarioError, presets
from qkv_engine.model_examples import EXAMPLES, MAX_SENTENCE_CHARS, MAX_SENTENCES, example_sentences, sentence_list


def test_the_built_in_model_gets_its_own_examples_and_any_other_model_the_designed_ones():
    built_in = example_sentences(BUILTIN_NAME)
    assert built_in[:len(EXAMPLES)] == [e.text for e in EXAMPLES] and len(built_in) > len(EXAMPLES)
    designed = example_sentences("gpt2")
    assert designed == [presets.load(p.name).text for p in presets.all_presets() if p.designed]
    assert "New York is a big city" in designed and len(designed) == 4


def test_a_typed_list_is_one_sentence_a_line_blank_lines_left_out():
    assert sentence_list("  the dog ran \n\n\ta cat sat\n") == ["the dog ran", "a cat sat"]
    assert sentence_list("one") == ["one"]


@pytest.mark.parametrize("typed, says", [
    ("", "at least one sentence"),
    (" \n\t\n", "at least one sentence"),
    ("\n".join(["a b"] * (MAX_SENTENCES + 1)), f"at most {MAX_SENTENCES}"),
    ("fine\n" + "x" * (MAX_SENTENCE_CHARS + 1), f"sentence 2 has {MAX_SENTENCE_CHARS + 1} characters"),
])
def test_a_bad_list_is_refused_saying_why(typed, says):
    with pytest.raises(ScenarioError, match=says):
        sentence_list(typed)
