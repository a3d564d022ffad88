"""The session file: a scenario and view options as versioned JSON.

    {"format": "qkv-visualizer", "version": 1,
     "scenario": {"text", "tokens", "spans", "seed", "dropped", "x", "w_q", "w_k", "w_v",
                  "scale", "causal", "temperature", "softmax_over"},
     "view": {"query": i, "key": j, "lesson_step": s, ...}}

Floats are written with full precision, so a round trip gives the same numbers.
Anything wrong in a document raises ScenarioError naming where.
"""
from __future__ import annotations

import json
import os
import tempfile

import numpy as np

from .errors import ScenarioError
from .scenario import Scenario

FORMAT = "qkv-visualizer"
VERSION = 1
SUFFIX = ".qkv.json"
_FIELDS = ("tokens", "x", "w_q", "w_k", "w_v")


def to_dict(scenario: Scenario, view: dict | None = None) -> dict:
    s = scenario
    return {
        "format": FORMAT,
        "version": VERSION,
        "scenario": {
            "text": s.text,
            "tokens": list(s.tokens),
            "spans": None if s.spans is None else [list(p) for p in s.spans],
            "seed": s.seed,
            "dropped": s.dropped,
            "x": s.x.tolist(),
            "w_q": s.w_q.tolist(),
            "w_k": s.w_k.tolist(),
            "w_v": s.w_v.tolist(),
            "scale": s.scale,
            "causal": s.causal,
            "temperature": s.temperature,
            "softmax_over": s.softmax_over,
        },
        "view": dict(view or {}),
    }


def _matrix(name: str, value) -> np.ndarray:
    if not isinstance(value, list):
        raise ScenarioError(f"scenario.{name}: expected a list of rows")
    for r, row in enumerate(value):
        if not isinstance(row, list):
            raise ScenarioError(f"scenario.{name}[{r}]: expected a row (a list of numbers)")
        for c, cell in enumerate(row):
            if isinstance(cell, bool) or not isinstance(cell, (int, float)):
                raise ScenarioError(f"scenario.{name}[{r}][{c}]: expected a number, got {json.dumps(cell)}")
    widths = {len(row) for row in value}
    if len(widths) > 1:
        raise ScenarioError(f"scenario.{name}: rows have different lengths {sorted(widths)}")
    return np.array(value, dtype=np.float64)


def from_dict(doc) -> tuple[Scenario, dict]:
    """Return (scenario, view) from a parsed document, or raise ScenarioError."""
    if not isinstance(doc, dict):
        raise ScenarioError("not a session: the file does not hold a JSON object")
    if doc.get("format") != FORMAT:
        raise ScenarioError(f"not a session: 'format' is {json.dumps(doc.get('format'))}, expected \"{FORMAT}\"")
    version = doc.get("version")
    if version != VERSION:
        raise ScenarioError(f"version {json.dumps(version)} is not supported (this app reads version {VERSION})")
    sc = doc.get("scenario")
    if not isinstance(sc, dict):
        raise ScenarioError("scenario: missing or not an object")
    for key in _FIELDS:
        if key not in sc:
            raise ScenarioError(f"scenario.{key}: missing")
    tokens = sc["tokens"]
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise ScenarioError("scenario.tokens: expected a list of strings")
    arrays = {}
    for key in ("x", "w_q", "w_k", "w_v"):
        a = _matrix(key, sc[key])
        if a.size == 0 and key == "x":
            a = a.reshape(0, len(sc["w_q"]))
        arrays[key] = a
    options = {}
    for key, kind in (("scale", bool), ("causal", bool), ("softmax_over", str)):
        if key in sc:
            if not isinstance(sc[key], kind):
                raise ScenarioError(f"scenario.{key}: expected {'true or false' if kind is bool else 'text'}")
            options[key] = sc[key]
    if "temperature" in sc:
        t = sc["temperature"]
        if isinstance(t, bool) or not isinstance(t, (int, float)):
            raise ScenarioError("scenario.temperature: expected a number")
        options["temperature"] = float(t)
    seed = sc.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScenarioError("scenario.seed: expected a whole number")
    dropped = sc.get("dropped", 0)
    if isinstance(dropped, bool) or not isinstance(dropped, int) or dropped < 0:
        raise ScenarioError("scenario.dropped: expected a whole number, 0 or more")
    text = sc.get("text")
    if text is not None and not isinstance(text, str):
        raise ScenarioError("scenario.text: expected text or null")
    spans = sc.get("spans")
    if spans is not None:
        if not isinstance(spans, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in p)
            for p in spans
        ):
            raise ScenarioError("scenario.spans: expected a list of [start, end] pairs")
    try:
        scenario = Scenario(tokens=tuple(tokens), seed=seed, text=text, spans=spans, dropped=dropped, **arrays,
                            **options)
    except ScenarioError as exc:
        raise ScenarioError(f"scenario.{exc}") from None
    view = doc.get("view", {})
    if not isinstance(view, dict):
        raise ScenarioError("view: expected an object")
    return scenario, view


def dumps(scenario: Scenario, view: dict | None = None) -> str:
    return json.dumps(to_dict(scenario, view), indent=1, ensure_ascii=False)


def loads(text: str) -> tuple[Scenario, dict]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    return from_dict(doc)


def load_file(path) -> tuple[Scenario, dict]:
    """Read a session file; every failure (missing, unreadable, not UTF-8, corrupt) is a ScenarioError."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise ScenarioError(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(f"{os.fspath(path)}: not a text file (not UTF-8)") from None
    return loads(text)


def write_atomic(path, data: bytes) -> None:
    """Write ``data`` to a temporary file in the same folder, then rename it over ``path``.

    A crash or a full disk part-way leaves the previous file as it was and no temporary file behind.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".qkv-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save_file(path, scenario: Scenario, view: dict | None = None) -> None:
    """Write a session file atomically (see ``write_atomic``)."""
    write_atomic(path, dumps(scenario, view).encode("utf-8"))
