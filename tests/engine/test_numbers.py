"""Reading numbers typed into a cell."""
from __future__ import annotations

import pytest

from qkv_engine import MAX_ABS, parse_number


@pytest.mark.parametrize(
    "text,value",
    [
        ("-0.5", -0.5),
        ("\u22120.5", -0.5),  # typographic minus sign
        ("\u20130.5", -0.5),  # en dash, as word processors turn a hyphen
        (".5", 0.5),
        ("-.5", -0.5),
        ("1e-3", 0.001),
        ("1E3", 1000.0),
        (" +2 ", 2.0),
        ("0,5", 0.5),
        ("-0,25", -0.25),
        ("3", 3.0),
        ("\u00a01.5\u00a0", 1.5),
        ("1000000", MAX_ABS),
        ("-1e6", -MAX_ABS),
        ("0", 0.0),
    ],
)
def test_accepted(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize(
    "text,reason",
    [
        ("abc", "is not a number"),
        ("1.2.3", "is not a number"),
        ("0,5,5", "is not a number"),
        ("2x", "is not a number"),
        ("", "empty"),
        ("   ", "empty"),
        (None, "empty"),
        ("nan", "not a finite number"),
        ("NaN", "not a finite number"),
        ("inf", "not a finite number"),
        ("-Infinity", "not a finite number"),
        ("1e400", "too large"),
        ("-1e400", "too large"),
        ("2e6", "beyond the limit"),
        ("-1000000.5", "beyond the limit"),
    ],
)
def test_refused_with_a_reason(text, reason):
    with pytest.raises(ValueError) as info:
        parse_number(text)
    message = str(info.value)
    assert reason in message
    if text and text.strip():
        assert text.strip() in message  # the message quotes what was typed
