"""The names shown for embedding dimensions and q/k/v columns, in one place.

A scenario may name its embedding dimensions (``feature_names``: "animate",
"noun", ...) and the columns of its grids (``q_names``, ``k_names``,
``v_names``: "looks for animate", ...). Empty names fall back to the symbol.

    symbol(s, "x", 2)        "x3"           (with several heads: "h2·q1")
    header(s, "x", 2)        "x3 · animate" (table headers, axes, CSV columns)
    plain(s, "x", 2)         "animate"      (sentences; "x3" when unnamed)
    header_names(s, "x")     every column's header, e.g. for a CSV file

Kinds: "x" (embedding dimensions), "q", "k", "v" (columns of W^Q, W^K, W^V;
on a one-head scenario, such as ``result.scenario``, they are that head's), and
"out" (an output coordinate, named like the value column it mixes).
"""
from __future__ import annotations

from .errors import ScenarioError

KINDS = ("x", "q", "k", "v", "out")
_NAMES = {"x": "feature_names", "q": "q_names", "k": "k_names", "v": "v_names", "out": "v_names"}
#: Joins a symbol and its name in headers: "x3 · animate".
JOIN = " \u00b7 "


def names(scenario, kind: str) -> tuple:
    """The names of every column of ``kind`` ("" where unnamed)."""
    if kind not in _NAMES:
        raise ScenarioError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    return getattr(scenario, _NAMES[kind])


def symbol(scenario, kind: str, c: int) -> str:
    """"x3", "q2", "out1"; with several heads a grid column reads "h2·q1" (head 2's first)."""
    count = len(names(scenario, kind))
    if not 0 <= c < count:
        raise ScenarioError(f"column {c + 1}: there are {count} {kind} columns")
    if kind == "x" or scenario.n_heads == 1:
        return f"{kind}{c + 1}"
    d = scenario.d_k if kind in ("q", "k") else scenario.d_v
    return f"h{c // d + 1}\u00b7{kind}{c % d + 1}"


def name(scenario, kind: str, c: int) -> str:
    """The name given to column ``c`` of ``kind``, or ""."""
    symbol(scenario, kind, c)  # checks the column
    return names(scenario, kind)[c]


def header(scenario, kind: str, c: int) -> str:
    """"x3 · animate", or just "x3" when the column has no name."""
    sym, given = symbol(scenario, kind, c), names(scenario, kind)[c]
    return f"{sym}{JOIN}{given}" if given else sym


def plain(scenario, kind: str, c: int) -> str:
    """The name alone for a sentence ("animate"), or the symbol ("x3") when unnamed."""
    return names(scenario, kind)[c] or symbol(scenario, kind, c)


def header_names(scenario, kind: str) -> list:
    """The header of every column of ``kind``, in order."""
    return [header(scenario, kind, c) for c in range(len(names(scenario, kind)))]


def any_named(scenario, kind: str) -> bool:
    """Whether at least one column of ``kind`` has a name."""
    return any(names(scenario, kind))
