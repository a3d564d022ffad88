"""The model's own tokenizer: tokens as shown, spans, the length limit, empty text."""
from __future__ import annotations

import json

import numpy as np
import pytest
from tokenizers import Tokenizer

from qkv_engine import compute
from qkv_engine.models import load_model
from qkv_engine.models.tokenizer import shown_byte_level, shown_metaspace

from .model_files import TINY, TINY_BERT, TINY_GPT2, copy_model


@pytest.fixture(scope="module")
def models():
    return {family: load_model(folder) for family, folder in TINY.items()}


def library_ids(folder, text) -> list:
    """What the tokenizers library gives for the folder's tokenizer.json, used directly."""
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    return tok.encode(text).ids


def test_bert_tokens_spans_and_special_tokens(models):
    text = "The tokens looks at words"
    tokens, ids, spans, dropped = models["bert"].tokenize(text)
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]" and dropped == 0
    assert spans[0] == (0, 0) and spans[-1] == (0, 0)
    assert "##s" in tokens
    for tok, (a, b) in zip(tokens[1:-1], spans[1:-1]):
        assert text[a:b].lower().endswith(tok.removeprefix("##")), (tok, text[a:b])
    assert list(ids) == library_ids(TINY_BERT, text)


def test_gpt2_shows_a_space_as_a_visible_mark(models):
    text = "the cat sat"
    tokens, ids, spans, _ = models["gpt2"].tokenize(text)
    assert all("\u0120" not in t for t in tokens)
    assert any(t.startswith("\u2423") for t in tokens)
    assert "".join(tokens).replace("\u2423", " ") == text
    assert list(ids) == library_ids(TINY_GPT2, text)
    for tok, (a, b) in zip(tokens, spans):
        assert tok.replace("\u2423", " ").endswith(text[a:b]) and b > a


def test_gpt2_shows_new_lines_tabs_and_letters_beyond_ascii(models):
    text = "caf\u00e9\n\tok"
    tokens, _, _, _ = models["gpt2"].tokenize(text)
    joined = "".join(tokens)
    assert "\u21b5" in joined and "\u21e5" in joined  # ↵ and ⇥
    # this tiny vocabulary splits é into its two bytes: each piece shows the byte it holds
    assert joined.replace("\u21b5", "\n").replace("\u21e5", "\t") == "caf\\xc3\\xa9\n\tok"


def test_a_piece_holding_part_of_a_character_shows_its_bytes():
    # "é" is two bytes, c3 a9; GPT-2's byte alphabet writes them as "Ã" and "©".
    assert shown_byte_level("\u00c3\u00a9") == "\u00e9"
    assert shown_byte_level("\u00c3") == "\\xc3"
    assert shown_byte_level("\u0120the") == "\u2423the"
    assert shown_byte_level("<|endoftext|>") == "<|endoftext|>"


def test_a_control_character_is_shown_as_its_picture():
    # byte 0x01: Llama's byte-fallback piece <0x01>, GPT-2's byte-alphabet letter for it (U+0101)
    assert shown_metaspace("<0x01>", byte_fallback=True) == "\u2401"  # ␁
    assert shown_byte_level("\u0101") == "\u2401"
    assert shown_metaspace("<0x7F>", byte_fallback=True) == "\u2421"  # ␡ (delete)
    assert shown_metaspace("<0x00>", byte_fallback=True) == "\u2400"  # ␀
    # the marks that were there before stay
    assert shown_metaspace("<0x0A>", byte_fallback=True) == "\u21b5"
    assert shown_metaspace("<0x09>", byte_fallback=True) == "\u21e5"
    assert shown_metaspace("\u2581a\rb", byte_fallback=True) == "\u2423a\u240db"


def test_no_guess_of_a_model_holds_a_control_character():
    from .model_files import TINY_LLAMA

    model = load_model(TINY_LLAMA)
    texts = [text for text, _id, _p in model.predict(model.run("the cat sat on the mat"), 0, 10)]
    assert "\u2401" in texts  # this random model's guesses include byte 0x01 (was shown as an invisible '\x01')
    assert not any(ch < " " or ch == "\x7f" for text in texts for ch in text)


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_a_text_past_the_model_length_is_cut_and_says_how_much(models, family):
    model = models[family]
    text = " ".join(["the cat sat on the mat."] * 20)
    full = len(library_ids(TINY[family], text))
    tokens, ids, spans, dropped = model.tokenize(text)
    assert len(tokens) == model.info.max_tokens == 64
    assert dropped == full - 64 > 0
    if family == "bert":
        assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"  # still a whole BERT input
        assert list(ids[1:-1]) == library_ids(TINY[family], text)[1:63]
    else:
        assert list(ids) == library_ids(TINY[family], text)[:64]
    trace = model.run(text)
    assert trace.n == 64 and trace.dropped == dropped
    assert model.head_scenario(trace, 0, 0).dropped == dropped


def test_padding_and_truncation_in_tokenizer_json_are_switched_off(tmp_path, models):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    doc = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    doc["padding"] = {"strategy": {"Fixed": 32}, "direction": "Right", "pad_to_multiple_of": None, "pad_id": 0,
                      "pad_type_id": 0, "pad_token": "[PAD]"}
    doc["truncation"] = {"direction": "Right", "max_length": 5, "strategy": "LongestFirst", "stride": 0}
    (folder / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    padded = load_model(folder)
    text = "the quick brown fox jumps over the lazy dog"
    assert padded.tokenize(text) == models["bert"].tokenize(text)
    assert "[PAD]" not in padded.run(text).tokens


def test_empty_text_in_bert_is_cls_and_sep(models):
    trace = models["bert"].run("")
    assert trace.tokens == ("[CLS]", "[SEP]")
    r = compute(models["bert"].head_scenario(trace, 1, 1))
    np.testing.assert_allclose(r.weights, trace.weights[1, 1], atol=1e-5)


def test_empty_text_in_gpt2_gives_a_valid_empty_trace_and_scenario(models):
    model = models["gpt2"]
    trace = model.run("")
    assert trace.n == 0 and trace.tokens == () and trace.ids == () and trace.spans == ()
    assert trace.weights.shape == (2, 2, 0, 0) and trace.q.shape == (2, 2, 0, 8)
    assert trace.hidden.shape == (3, 0, 16) and trace.allowed.shape == (0, 0)
    sc = model.head_scenario(trace, 1, 0)
    assert sc.n == 0 and sc.x.shape == (0, 16)
    r = compute(sc)
    assert r.weights.shape == (0, 0) and r.q.shape == (0, 8)


def test_spaces_alone_are_tokens_in_gpt2(models):
    trace = models["gpt2"].run("   ")
    assert trace.n > 0 and "".join(trace.tokens) == "\u2423" * 3


def test_the_unknown_token_and_accents(models):
    tokens, _, _, _ = models["bert"].tokenize("Zebra caf\u00e9")
    assert "[UNK]" in tokens


def test_a_sentence_run_again_is_split_once_and_a_changed_one_anew():
    """A what-if edit runs the model again on the same sentence: its tokens are kept, not worked out again."""
    model = load_model(TINY_BERT)
    calls = []

    class Counting:
        def __init__(self, inner):
            self.inner = inner

        def encode(self, text, **kw):
            calls.append(text)
            return self.inner.encode(text, **kw)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    model._tokenizer.tokenizer = Counting(model._tokenizer.tokenizer)
    first = model.run("the cat sat")
    again = model.run("the cat sat")
    other = model.run("the dog sat")
    assert calls == ["the cat sat", "the dog sat"]
    assert first.tokens == again.tokens != other.tokens
    assert list(other.ids) == library_ids(TINY_BERT, "the dog sat")
