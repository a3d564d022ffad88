"""Splitting sentences into tokens, with spans that point back into the text."""
from __future__ import annotations

import pytest

from qkv_engine import Token, tokenize


def texts(text):
    toks = tokenize(text)
    for t in toks:
        assert text[t.start:t.end] == t.text, t  # every span points at its token
        assert t.text and not t.text.isspace()
    starts = [t.start for t in toks]
    assert starts == sorted(starts)
    for a, b in zip(toks, toks[1:]):
        assert a.end <= b.start  # no overlaps
    return [t.text for t in toks]


def test_words_and_punctuation_with_spans():
    toks = tokenize("Hello, world!")
    assert toks == [Token("Hello", 0, 5), Token(",", 5, 6), Token("world", 7, 12), Token("!", 12, 13)]


def test_spaces_between_tokens_are_not_tokens():
    assert texts("  The   cat\tsat\n") == ["The", "cat", "sat"]
    assert tokenize("  The")[0] == Token("The", 2, 5)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("don't", ["don't"]),
        ("it's the cat's toy", ["it's", "the", "cat's", "toy"]),
        ("don\u2019t", ["don\u2019t"]),  # typographic apostrophe
        ("'quoted'", ["'", "quoted", "'"]),
        ("the cats' toys", ["the", "cats", "'", "toys"]),
        ("rock 'n' roll", ["rock", "'", "n", "'", "roll"]),
    ],
)
def test_apostrophes_inside_words_stay_in_the_word(text, expected):
    assert texts(text) == expected


def test_numbers_and_underscores_are_words():
    assert texts("x_1 = 42 rooms2") == ["x_1", "=", "42", "rooms2"]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("東京", ["東京"]),
        ("我爱你。", ["我爱你", "。"]),
        ("東京タワーへ行く", ["東京タワーへ行く"]),
        ("안녕 세상", ["안녕", "세상"]),
    ],
)
def test_cjk(text, expected):
    assert texts(text) == expected


def test_arabic_words():
    assert texts("مرحبا بالعالم") == ["مرحبا", "بالعالم"]
    assert texts("كيف حالك؟") == ["كيف", "حالك", "؟"]


def test_combining_marks_stay_with_their_letter():
    decomposed = "nai\u0308ve cafe\u0301"
    assert texts(decomposed) == ["nai\u0308ve", "cafe\u0301"]
    assert texts("naïve") == ["naïve"]
    assert texts("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"]  # Devanagari vowel signs are marks


@pytest.mark.parametrize(
    "text,expected",
    [
        ("\U0001F44D", ["\U0001F44D"]),  # thumbs up
        ("\U0001F44D\U0001F3FD", ["\U0001F44D\U0001F3FD"]),  # with a skin tone
        ("\U0001F468\u200d\U0001F469\u200d\U0001F467", ["\U0001F468\u200d\U0001F469\u200d\U0001F467"]),  # family (ZWJ)
        ("\U0001F469\U0001F3FD\u200d\U0001F4BB", ["\U0001F469\U0001F3FD\u200d\U0001F4BB"]),  # technologist, toned
        ("I \u2764\ufe0f NY", ["I", "\u2764\ufe0f", "NY"]),  # heart with a variation selector
        ("hi\U0001F44B\U0001F44B", ["hi", "\U0001F44B", "\U0001F44B"]),  # each emoji its own token
        ("1\ufe0f\u20e3", ["1\ufe0f\u20e3"]),  # keycap
    ],
)
def test_emoji(text, expected):
    assert texts(text) == expected


@pytest.mark.parametrize("text", ["", " ", "   \t\n  ", "\u00a0\u2003"])
def test_only_spaces_gives_no_tokens(text):
    assert tokenize(text) == []


def test_only_punctuation_gives_one_token_per_mark():
    assert texts("?!...") == ["?", "!", ".", ".", "."]
    assert tokenize("--") == [Token("-", 0, 1), Token("-", 1, 2)]


def test_tokens_are_frozen():
    t = tokenize("cat")[0]
    with pytest.raises(AttributeError):
        t.text = "dog"
