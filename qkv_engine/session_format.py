"""The session file: a scenario and view options as versioned JSON.

    {"format": "qkv-visualizer", "version": 3,
     "scenario": {"text", "tokens", "spans", "seed", "dropped", "x", "w_q", "w_k", "w_v",
                  "scale", "causal", "temperature", "softmax_over",
                  "padding", "blocked", "n_heads", "w_o", "b_q", "b_k", "b_v",
                  "source": null or {"text", "tokens", "spans", "dropped", "x"},
                  "feature_names", "q_names", "k_names", "v_names", "new_tokens",
                  "rotary", "rope_theta", "rope_frequencies", "positions"},
     "view": {"query": i, "key": j, "lesson_step": s, "head": h, ...}}

Version 1 files (no masks, heads or source) and version 2 files (no biases, no
names) are still read: a missing bias is all zeros, every feature and column
opens unnamed. Rotary positions (``rotary``, ``rope_theta``, and a trained model's
``rope_frequencies`` and ``positions``, null when not given) are optional: a file
without them opens with rotary positions off.

A session with a trained model (version 3) names the model instead of holding a
scenario; the weights are never written, only where the model was and the sha256
of its config.json, the sentence and the what-if edits:

    {"format": "qkv-visualizer", "version": 3,
     "model": {"path", "name", "config_sha256", "family"},
     "text": "...",
     "edits": {"weights": [[layer, head, name, row, col, value], ...],
               "inputs": [[layer, token, dim, value], ...], "knocked_out": [[layer, head], ...]},
     "view": {"layer": l, "head": h, ...}}

``load_any`` reads either kind; ``open_model`` opens the model a ModelRef names.

Floats are written with full precision, so a round trip gives the same numbers.
Anything wrong in a document raises ScenarioError naming where.
"""
from __future__ import annotations

import json
import os
import tempfile

import numpy as np

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from .errors import ModelError, ScenarioError
from .models import ModelEdits, ModelInfo, load_model
from .models.checkpoint import config_sha256
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
            "feature_names": list(s.feature_names),
            "q_names": list(s.q_names),
            "k_names": list(s.k_names),
            "v_names": list(s.v_names),
            "new_tokens": s.new_tokens,
            "rotary": s.rotary,
            "rope_theta": s.rope_theta,
            "rope_frequencies": None if s.rope_frequencies is None else s.rope_frequencies.tolist(),
            "positions": None if s.positions is None else list(s.positions),
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


def _version3_fields(sc: dict) -> dict:
    """The names of features and columns, and the rule for new words (all optional)."""
    out = {}
    for key in ("feature_names", "q_names", "k_names", "v_names"):
        if key in sc:
            names = sc[key]
            if not isinstance(names, list) or not all(isinstance(v, str) for v in names):
                raise ScenarioError(f"scenario.{key}: expected a list of names (text)")
            out[key] = tuple(names)
    if "new_tokens" in sc:
        if not isinstance(sc["new_tokens"], str):
            raise ScenarioError("scenario.new_tokens: expected text")
        out["new_tokens"] = sc["new_tokens"]
    out.update(_rotary_fields(sc))
    return out


def _rotary_fields(sc: dict) -> dict:
    """Rotary positions (optional: absent means off)."""
    out = {}
    if "rotary" in sc:
        if not isinstance(sc["rotary"], bool):
            raise ScenarioError("scenario.rotary: expected true or false")
        out["rotary"] = sc["rotary"]
    if "rope_theta" in sc:
        theta = sc["rope_theta"]
        if isinstance(theta, bool) or not isinstance(theta, (int, float)):
            raise ScenarioError("scenario.rope_theta: expected a number")
        out["rope_theta"] = float(theta)
    if sc.get("rope_frequencies") is not None:
        out["rope_frequencies"] = _vector("rope_frequencies", sc["rope_frequencies"])
    if sc.get("positions") is not None:
        pos = sc["positions"]
        if not isinstance(pos, list) or any(isinstance(p, bool) or not isinstance(p, int) for p in pos):
            raise ScenarioError("scenario.positions: expected a list of whole numbers")
        out["positions"] = tuple(pos)
    return out


def _check_header(doc) -> None:
    if not isinstance(doc, dict):
        raise ScenarioError("not a session: the file does not hold a JSON object")
    if doc.get("format") != FORMAT:
        raise ScenarioError(f"not a session: 'format' is {json.dumps(doc.get('format'))}, expected \"{FORMAT}\"")
    version = doc.get("version")
    if version not in READS:
        known = ", ".join(str(v) for v in READS[:-1]) + f" and {READS[-1]}"
        raise ScenarioError(f"version {json.dumps(version)} is not supported (this app reads versions {known})")


def from_dict(doc) -> tuple[Scenario, dict]:
    """Return (scenario, view) from a parsed document, or raise ScenarioError."""
    _check_header(doc)
    if is_model_session(doc):
        raise ScenarioError("this session is for a trained model, not a hand-made example: open it with load_any")
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
    extra.update(_version3_fields(sc))
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
    return from_dict(_parse(text))


def _parse(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None


def load_file(path) -> tuple[Scenario, dict]:
    """Read a session file; every failure (missing, unreadable, not UTF-8, corrupt) is a ScenarioError."""
    return loads(_read_text(path))


def _read_text(path) -> str:
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise ScenarioError(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(f"{os.fspath(path)}: not a text file (not UTF-8)") from None


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


# ----- sessions with a trained model ---------------------------------------------------------------
@dataclass(frozen=True)
class ModelRef:
    """Which model a session needs: where it was, its name, and the sha256 of its config.json."""

    path: Path
    name: str
    config_sha256: str


class ModelSession(NamedTuple):
    """A session with a trained model, as read from a file."""

    ref: ModelRef
    text: str
    edits: ModelEdits
    view: dict


def is_model_session(doc) -> bool:
    return isinstance(doc, dict) and "model" in doc


def model_to_dict(info: ModelInfo, text: str, edits: ModelEdits = ModelEdits(), view: dict | None = None) -> dict:
    """A session document for a trained model: where it is, never its weights."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "model": {"path": str(info.path), "name": info.name, "config_sha256": info.config_sha256,
                  "family": info.family},
        "text": text,
        "edits": {
            "weights": [list(e) for e in edits.weights],
            "inputs": [list(e) for e in edits.inputs],
            "knocked_out": [list(e) for e in sorted(edits.knocked_out)],
        },
        "view": dict(view or {}),
    }


def _text_field(value, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ScenarioError(f"{where}: expected text")
    return value


def model_from_dict(doc) -> ModelSession:
    """(ModelRef, text, edits, view) from a parsed session document with a model, or a ScenarioError."""
    _check_header(doc)
    if doc.get("version") != 3:
        raise ScenarioError("model: sessions with a trained model start at version 3")
    m = doc.get("model")
    if not isinstance(m, dict):
        raise ScenarioError("model: expected an object")
    ref = ModelRef(Path(_text_field(m.get("path"), "model.path")), _text_field(m.get("name"), "model.name"),
                   _text_field(m.get("config_sha256"), "model.config_sha256"))
    text = doc.get("text", "")
    if not isinstance(text, str):
        raise ScenarioError("text: expected text")
    e = doc.get("edits", {})
    if not isinstance(e, dict):
        raise ScenarioError("edits: expected an object")
    lists = {}
    for key in ("weights", "inputs", "knocked_out"):
        value = e.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, list) for v in value):
            raise ScenarioError(f"edits.{key}: expected a list of lists")
        lists[key] = value
    try:
        edits = ModelEdits(weights=tuple(tuple(v) for v in lists["weights"]),
                           inputs=tuple(tuple(v) for v in lists["inputs"]),
                           knocked_out=frozenset(tuple(v) for v in lists["knocked_out"]))
    except ModelError as exc:
        raise ScenarioError(f"edits: {str(exc).removeprefix('edit: ')}") from None
    view = doc.get("view", {})
    if not isinstance(view, dict):
        raise ScenarioError("view: expected an object")
    return ModelSession(ref, text, edits, view)


def load_any(path) -> tuple[Scenario, dict] | ModelSession:
    """Read a session file of either kind: (scenario, view) for a hand-made one, a ModelSession for a model."""
    doc = _parse(_read_text(path))
    return model_from_dict(doc) if is_model_session(doc) else from_dict(doc)


def save_model_file(path, info: ModelInfo, text: str, edits: ModelEdits = ModelEdits(),
                    view: dict | None = None) -> None:
    """Write a session with a trained model atomically (see ``write_atomic``)."""
    data = json.dumps(model_to_dict(info, text, edits, view), indent=1, ensure_ascii=False)
    write_atomic(path, data.encode("utf-8"))


def open_model(ref: ModelRef):
    """The model a session needs, or a ModelError that says which model is missing and where it was."""
    folder = Path(ref.path)
    needs = f"This session needs the model '{ref.name}', which was at {folder}"
    if not (folder / "config.json").is_file():
        raise ModelError(f"{needs}: not found")
    if config_sha256(folder) != ref.config_sha256:
        raise ModelError(f"{needs}: its config.json has changed")
    return load_model(folder)
