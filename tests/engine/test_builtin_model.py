"""The built-in model (resources/models/qkv-tiny-llama) through the app's own numpy forward.

It reaches the issue's targets on held-out sentences of its grammar, its heads do what MODEL_CARD.md
says (the card's numbers, from evaluation.json, reproduced within the card's tolerance; its knock-out
table measured again), it answers the classroom sentences the card suggests, it opens from
the package's resources, and its tokenizer reads the grammar's sentences word by word.
The grammar is imported from tools/ (tests run from a clone's root).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from qkv_engine.models import load_model
from qkv_engine.models.builtin import BUILTIN_NAME, builtin_model_path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from builtin_model import words as W  # noqa: E402
from builtin_model.card import TOLERANCE, named_heads  # noqa: E402
from builtin_model.grammar import KINDS, Generator, all_words  # noqa: E402
from builtin_model.measure import HEAD_SCORES, TARGETS, evaluate, held_out, knock_out  # noqa: E402
from builtin_model.vocabulary import BOS, UNK, encode_words, vocabulary  # noqa: E402

FOLDER = builtin_model_path()


def _card_numbers() -> dict:
    return json.loads((FOLDER / "evaluation.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def model():
    start = time.perf_counter()
    m = load_model(FOLDER)
    print(f"\nthe built-in model opened in {(time.perf_counter() - start) * 1000:.0f} ms")
    return m


@pytest.fixture(scope="module")
def results(model):
    """The card's own measurement again: the same held-out examples through the numpy forward."""
    vocab = vocabulary()

    def run(text):
        trace = model.run(text)
        return np.asarray(trace.logits), np.asarray(trace.weights)

    card = _card_numbers()
    return evaluate(run, lambda words: encode_words(words, vocab), held_out(card["per_kind"], card["seed"]),
                    model.info.n_layers, model.info.n_heads)


# ----- the folder ----------------------------------------------------------------------------------------
def test_the_folder_is_a_small_float16_llama_checkpoint():
    assert FOLDER.name == BUILTIN_NAME and FOLDER.parent.name == "models"
    for name in ("config.json", "model.safetensors", "tokenizer.json", "MODEL_CARD.md"):
        assert (FOLDER / name).is_file(), name
    config = json.loads((FOLDER / "config.json").read_text(encoding="utf-8"))
    assert config["model_type"] == "llama" and config["architectures"] == ["LlamaForCausalLM"]
    assert (config["num_attention_heads"], config["num_key_value_heads"], config["hidden_size"]) == (8, 2, 128)
    assert config["hidden_act"] == "silu"
    assert (FOLDER / "model.safetensors").stat().st_size < 8_000_000
    from safetensors import safe_open

    with safe_open(str(FOLDER / "model.safetensors"), framework="numpy") as fh:
        dtypes = {fh.get_tensor(k).dtype for k in fh.keys()}
    assert dtypes == {np.dtype(np.float16)}


def test_it_opens_as_a_llama_model(model):
    assert model.info.model_type == "llama"
    assert (model.info.n_layers, model.info.n_heads, model.info.d_model) == (4, 8, 128)
    assert model.info.causal


def test_the_package_carries_the_model_and_torch_stays_an_extra():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "models/*/*" in project["tool"]["setuptools"]["package-data"]["qkv_resources"]
    assert project["tool"]["setuptools"]["package-dir"]["qkv_resources"] == "resources"
    assert not any(d.split(">")[0].split("=")[0].strip() in ("torch", "transformers")
                   for d in project["project"]["dependencies"])
    assert any(d.startswith("torch") for d in project["project"]["optional-dependencies"]["train"])


# ----- the tokenizer --------------------------------------------------------------------------------------
def test_the_tokenizer_reads_the_grammars_sentences_word_by_word(model):
    vocab = vocabulary()
    gen = Generator(7)
    for _ in range(60):
        words = gen.document(40)
        tokens, ids, spans, dropped = model.tokenize(" ".join(words))
        assert tokens == (BOS, *words)
        assert list(ids) == encode_words(words, vocab)
        assert dropped == 0


def test_typed_text_is_lower_cased_split_at_punctuation_and_unknown_words_are_unk(model):
    tokens, ids, spans, _ = model.tokenize("The Dog saw Anna. It barked, grumpily!")
    assert tokens == (BOS, "the", "dog", "saw", "anna", ".", "it", "barked", ",", UNK, "!")
    text = "The Dog saw Anna. It barked, grumpily!"
    assert [text[a:b] for a, b in spans[1:4]] == ["The", "Dog", "saw"]
    assert ids[9] == vocabulary()[UNK]


def test_the_vocabulary_is_every_grammar_word_once_with_unk_and_bos():
    vocab = vocabulary()
    assert list(vocab)[:2] == [UNK, BOS]
    assert len(vocab) == len(all_words()) + 2 and 1000 <= len(vocab) <= 2000
    assert all(w == w.lower() for w in all_words())


def test_the_shipped_tokenizer_is_the_one_the_grammar_builds():
    shipped = json.loads((FOLDER / "tokenizer.json").read_text(encoding="utf-8"))
    assert shipped["model"]["type"] == "WordLevel" and shipped["model"]["vocab"] == vocabulary()
    assert shipped["normalizer"]["type"] == "Lowercase"


# ----- the grammar ----------------------------------------------------------------------------------------
def test_the_grammar_is_reproducible_and_seeds_differ():
    assert Generator(5).document(200) == Generator(5).document(200)
    assert Generator(5).document(200) != Generator(6).document(200)


def test_each_word_list_gives_its_words_one_role():
    lists = [W.FEMALE_NAMES, W.MALE_NAMES, list(W.ANIMAL_VERBS), list(W.ANIMAL_VERBS.values()),
             list(W.PERSON_VERBS.values()), W.MEETING_VERBS, list(W.NOUN_PLURALS), list(W.NOUN_PLURALS.values()),
             W.PREPOSITIONS, W.ADJECTIVES, W.PLACES, W.STORY_VERBS, W.FINDING_VERBS, W.FUNCTION_WORDS,
             W.EXTRA_WORDS, W.PUNCTUATION]
    seen: dict[str, int] = {}
    for i, words in enumerate(lists):
        for w in words:
            assert seen.setdefault(w, i) == i, f"{w!r} is in two word lists"
        assert len(set(words)) == len(words)


def test_every_example_scores_words_it_has():
    gen = Generator(11)
    for kind in KINDS:
        for _ in range(50):
            ex = gen.example(kind)
            assert ex.targets and all(0 < i < len(ex.words) for i in ex.targets)
            if kind == "agreement":
                assert ex.words[ex.targets[0]] == ("are" if ex.words[ex.antecedent] in W.NOUN_PLURALS.values()
                                                   else "is")
                assert ex.words[ex.antecedent] in W.NOUN_PLURALS or ex.words[ex.antecedent] in W.NOUN_PLURALS.values()
            if kind == "pronoun":
                assert ex.words[ex.pronoun] in ("it", "she", "he") and ex.antecedent < ex.pronoun
                assert W.PERSON_VERBS.get(ex.words[ex.pronoun]) == ex.words[ex.targets[0]] or \
                    W.ANIMAL_VERBS[ex.words[ex.antecedent]] == ex.words[ex.targets[0]]


# ----- what the model does ---------------------------------------------------------------------------------
def test_it_reaches_the_issues_targets_on_held_out_sentences(results):
    for kind, target in TARGETS.items():
        assert results.accuracy(kind) >= target, f"{kind}: {results.accuracy(kind):.1%} < {target:.0%}"


def test_its_accuracies_are_the_cards(results):
    card = _card_numbers()
    for kind, value in card["accuracy"].items():
        assert results.accuracy(kind) == pytest.approx(value, abs=0.01), kind


def test_the_heads_the_card_names_do_what_it_says(results):
    """Each named head's weight is the card's, within the card's tolerance, and no head beats it by more
    (heads 4 to 7 of layer 3 tie at 1.00: which of them is named may change with rounding)."""
    for kind, head in named_heads(_card_numbers()).items():
        measured = results.head_score(kind)[head["layer"], head["head"]]
        assert measured == pytest.approx(head["weight"], abs=TOLERANCE), kind
        assert measured >= results.best_head(kind)[2] - TOLERANCE, kind
    card = (FOLDER / "MODEL_CARD.md").read_text(encoding="utf-8")
    for kind, head in named_heads(_card_numbers()).items():
        assert f"| layer {head['layer']} head {head['head']} |" in card, kind


def test_the_named_heads_stand_out(results):
    """The named head does its job clearly better than the heads' average."""
    for kind in HEAD_SCORES:
        scores = results.head_score(kind)
        assert results.best_head(kind)[2] > 0.3 and results.best_head(kind)[2] > 4 * scores.mean(), kind


def test_one_copying_head_knocked_out_makes_anna_fall(model):
    """The card's demonstration, with whole forwards (not the app's head_effects): after "tom met anna at the
    park . later tom met" the model says "anna"; with the card's head knocked out, "anna" falls below a third,
    and the card's numbers are what the forwards give."""
    from qkv_engine.models import ModelEdits

    demo = _card_numbers()["copy_demo"]
    trace = model.run(demo["text"])
    position = len(trace.tokens) - 1
    word, token_id, p = model.predict(trace, position, 1)[0]
    assert (word, round(p, 4)) == (demo["word"], demo["p"]) and word == "anna" and p > 0.9
    for layer, head, left in demo["knocked"]:
        knocked = model.run(demo["text"], ModelEdits(knocked_out=frozenset({(layer, head)})))
        logits = knocked.logits[position].astype(np.float64)
        probs = np.exp(logits - logits.max())
        assert probs[token_id] / probs.sum() == pytest.approx(left, abs=1e-3), (layer, head)
    assert demo["knocked"][0][2] < 0.33


@pytest.mark.slow
def test_knocking_the_named_heads_out_does_what_the_card_says(model):
    """The card's knock-out table measured again; the copying heads' jobs fail without them."""
    card = _card_numbers()
    vocab = vocabulary()
    examples = held_out(card["per_kind"], card["seed"])
    found = {}
    for ko in card["knock_outs"]:
        res = knock_out(model, ko["heads"], examples, lambda words: encode_words(words, vocab))
        for kind, value in ko["accuracy"].items():
            assert res.accuracy(kind) == pytest.approx(value, abs=0.01), (ko["job"], kind)
        found[ko["job"]] = res
    assert found["previous_token"].accuracy("random_copy") < 0.5
    assert found["induction"].accuracy("random_copy") < 0.1 and found["induction"].accuracy("agreement") < 0.7
    assert found["induction"].accuracy("pronoun_it") < 0.5


def test_the_dog_saw_anna_it_barked(model):
    """The lead's classroom check: at "it" the card's head looks at "dog" most, and "barked" comes first."""
    head = named_heads(_card_numbers())["it_antecedent"]
    trace = model.run("the dog saw anna . it")
    assert trace.tokens == (BOS, "the", "dog", "saw", "anna", ".", "it")
    row = trace.weights[head["layer"], head["head"], 6]
    assert int(np.argmax(row)) == 2
    assert model.predict(trace, 6, 1)[0][0] == "barked"
    trace = model.run("anna saw the dog . she")
    assert model.predict(trace, 6, 1)[0][0] == "smiled"


def test_the_keys_to_the_old_cabinet_are(model):
    """At "cabinet" the card's subject head looks at "keys", and "are" comes first; "is" for one key."""
    head = named_heads(_card_numbers())["subject"]
    for text, verb in (("the keys to the old cabinet", "are"), ("the key to the old cabinets", "is")):
        trace = model.run(text)
        assert int(np.argmax(trace.weights[head["layer"], head["head"], 6])) == 2, text
        assert model.predict(trace, 6, 1)[0][0] == verb, text
