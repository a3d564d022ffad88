"""The live numbers of the appendix "Where do the weights come from?"."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from qkv_engine import compute, presets, training
from qkv_engine.lesson_numbers import names_in, placeholder_values
from qkv_engine import training_text

from .reference import attention_of

APPENDIX = Path(__file__).resolve().parents[2] / "resources" / "lessons" / "appendix-where-weights-come-from.md"


def test_one_cell_target_gives_minus_log_of_the_reference_weight():
    s = presets.load("pronoun")
    i, j = s.tokens.index("it"), s.tokens.index("animal")
    w = attention_of(s).weights[i][j]
    vals = training_text.placeholder_values(compute(s), training.look_at(s, "it", "animal"), steps=7, lr=0.25,
                                            loss_start=3.0)
    assert vals["train_loss_worked"] == f"L = -log({w:.4f}) = {-math.log(w):.4f}"
    assert vals["train_loss"] == f"{-math.log(w):.4f}" and vals["train_weight"] == f"{w:.2f}"
    assert vals["train_pairs"] == "'it' → 'animal'" and (vals["train_query"], vals["train_key"]) == ("it", "animal")
    assert (vals["train_steps"], vals["train_lr"], vals["train_loss_start"]) == ("7", "0.25", "3.0000")
    assert f"'animal' +{1 - w:.2f}" in vals["train_push_row"]
    assert f"'The' -{attention_of(s).weights[i][0]:.2f}" in vals["train_push_row"]


def test_several_cells_are_averaged_over_their_rows():
    s = presets.load("designed-it")
    t = training.target_from_cells(s, [(7, 1), (7, 5), (2, 3)])
    ref = attention_of(s).weights
    expected = -(math.log(ref[2][3]) + 0.5 * math.log(ref[7][1]) + 0.5 * math.log(ref[7][5])) / 2
    text = training_text.placeholder_values(compute(s), t)["train_loss_worked"]
    assert text.startswith("L = -(log(") and text.endswith(f") / 2 = {expected:.4f}")
    assert "0.5·log(" in text


def test_masked_keys_read_masked_in_the_push_row():
    s = presets.load("designed-it").with_options(causal=True)
    vals = training_text.placeholder_values(compute(s), training.look_at(s, "it", "animal"))
    assert vals["train_push_row"].endswith("'tired' masked")


def test_without_a_target_every_value_says_so():
    vals = training_text.placeholder_values(compute(presets.load("designed-it")), None)
    assert set(vals) == set(training_text.KEYS)
    assert vals["train_loss_worked"] == "(no target yet)" and vals["train_steps"] == "0"


def test_the_appendix_uses_only_known_placeholders_and_is_not_a_lesson_step_yet():
    text = APPENDIX.read_text(encoding="utf-8")
    s = presets.load("designed-it")
    known = set(training_text.KEYS) | set(placeholder_values(compute(s), 7, 1))
    used = names_in(text)
    assert set(used) <= known, set(used) - known
    assert {"train_loss_worked", "train_push_row", "train_pairs"} <= set(used)
    assert not APPENDIX.name[0].isdigit()  # the lesson reads only files whose names start with a digit


@pytest.mark.parametrize("field", ["title", "panel", "role", "exercise"])
def test_the_appendix_has_front_matter(field):
    head = APPENDIX.read_text(encoding="utf-8").split("---")[1]
    assert f"\n{field}: " in head
