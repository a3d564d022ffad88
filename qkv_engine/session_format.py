"""The session file: a scenario and view options as versioned JSON.

    {"format": "qkv-visualizer", "version": 2,
     "scenario": {"text", "tokens", "spans", "seed", "dropped", "x", "w_q", "w_k", "w_v",
                  "scale", "causal", "temperature", "softmax_over",
                  "padding", "blocked", "n_heads", "w_o", "b_q", "b_k", "b_v",
                  "source": null or {"text", "tokens", "spans", "dropped", "x"}},
     "view": {"query": i, "key": j, "lesson_step": s, "head": h, ...}}

Version 1 files (no masks, heads or source) and version 2 files (no biases)
are still read; a missing bias is all zeros.

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
VERSION = 3
READS = (1, 2, 3)
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
            "padding": list(s.padding),
            "blocked": [list(c) for c in s.blocked],
            "n_heads": s.n_heads,
            "w_o": None if s.w_o is None else s.w_o.tolist(),
            "b_q": s.b_q.tolist(),
            "b_k": s.b_k.tolist(),
            "b_v": s.b_v.tolist(),
            "source": None if not s.is_cross else {
                "text": s.source_text,
                "tokens": list(s.source_tokens),
                "spans": None if s.source_spans is None else [list(p) for p in s.source_spans],
                "dropped": s.source_dropped,
                "x": s.source_x.tolist(),
            },
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


def _vector(name: str, value) -> np.ndarray:
    if not isinstance(value, list):
        raise ScenarioError(f"scenario.{name}: expected a list of numbers")
    for c, cell in enumerate(value):
        if isinstance(cell, bool) or not isinstance(cell, (int, float)):
            raise ScenarioError(f"scenario.{name}[{c}]: expected a number, got {json.dumps(cell)}")
    return np.array(value, dtype=np.float64)


def _whole(name: str, value, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ScenarioError(f"scenario.{name}: expected a whole number, {low} or more")
    return value


def _spans(name: str, spans):
    if spans is not None:
        if not isinstance(spans, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in p)
            for p in spans
        ):
            raise ScenarioError(f"scenario.{name}: expected a list of [start, end] pairs")
    return spans


def _version2_fields(sc: dict, d_model: int) -> dict:
    """padding, blocked, n_heads, w_o, the source sentence and (version 3) the biases, all optional."""
    out = {}
    if "padding" in sc:
        pad = sc["padding"]
        if not isinstance(pad, list):
            raise ScenarioError("scenario.padding: expected a list of token numbers")
        out["padding"] = tuple(_whole("padding", p) for p in pad)
    if "blocked" in sc:
        cells = sc["blocked"]
        if not isinstance(cells, list) or not all(isinstance(c, list) and len(c) == 2 for c in cells):
            raise ScenarioError("scenario.blocked: expected a list of [query, key] pairs")
        out["blocked"] = tuple((_whole("blocked", i), _whole("blocked", j)) for i, j in cells)
    if "n_heads" in sc:
        out["n_heads"] = _whole("n_heads", sc["n_heads"], 1)
    if sc.get("w_o") is not None:
        out["w_o"] = _matrix("w_o", sc["w_o"])
    for name in ("b_q", "b_k", "b_v"):
        if sc.get(name) is not None:
            out[name] = _vector(name, sc[name])
    src = sc.get("source")
    if src is not None:
        if not isinstance(src, dict):
            raise ScenarioError("scenario.source: expected an object or null")
        toks = src.get("tokens")
        if not isinstance(toks, list) or not all(isinstance(t, str) for t in toks):
            raise ScenarioError("scenario.source.tokens: expected a list of strings")
        if "x" not in src:
            raise ScenarioError("scenario.source.x: missing")
        sx = _matrix("source.x", src["x"])
        if sx.size == 0:
            sx = sx.reshape(0, d_model)
        text = src.get("text")
        if text is not None and not isinstance(text, str):
            raise ScenarioError("scenario.source.text: expected text or null")
        out.update(source_tokens=tuple(toks), source_x=sx, source_text=text,
                   source_spans=_spans("source.spans", src.get("spans")),
                   source_dropped=_whole("source.dropped", src.get("dropped", 0)))
    return out


def from_dict(doc) -> tuple[Scenario, dict]:
    """Return (scenario, view) from a parsed document, or raise ScenarioError."""
    if not isinstance(doc, dict):
        raise ScenarioError("not a session: the file does not hold a JSON object")
    if doc.get("format") != FORMAT:
        raise ScenarioError(f"not a session: 'format' is {json.dumps(doc.get('format'))}, expected \"{FORMAT}\"")
    version = doc.get("version")
    if version not in READS:
        known = ", ".join(str(v) for v in READS[:-1]) + f" and {READS[-1]}"
        raise ScenarioError(f"version {json.dumps(version)} is not supported (this app reads versions {known})")
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
    spans = _spans("spans", sc.get("spans"))
    extra = _version2_fields(sc, len(arrays["x"][0]) if len(arrays["x"]) else arrays["w_q"].shape[0])
    try:
        scenario = Scenario(tokens=tuple(tokens), seed=seed, text=text, spans=spans, dropped=dropped, **arrays,
                            **options, **extra)
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
