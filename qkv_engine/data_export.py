"""The numbers of one computation as files: a CSV per matrix and one JSON document.

    tables = data_tables(result, full)          # stem -> Table(header, row labels, values)
    files = data_files(result, selection, preset, full)   # file name -> bytes
    write_data(folder, result, selection, preset, full)   # written atomically; returns the paths

``result`` is the head the panels show (an AttentionResult); ``full`` (the
MultiHeadResult) adds the heads' joined outputs, W^O and the final output when
the scenario has several heads or a W^O. Every matrix is listed once, in
``MATRICES``: the CSV files and the JSON document are both made from it.
Floats keep their full precision; a masked scaled score is ``-inf`` in the CSV
and ``null`` in the JSON. Columns and rows of embedding dimensions and of q, k,
v and output coordinates carry the scenario's names as the app shows them
("x3 · animate", "q1 · looks for animate"; ``feature_names.header_names``).
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import feature_names, session_format
from .attention import AttentionResult

DATA_JSON = "attention.json"


@dataclass(frozen=True)
class Table:
    """One matrix with its labels: ``header`` names the columns (the first names the row labels)."""

    header: list
    rows: list  # row labels, one per row of values
    values: np.ndarray


def token_labels(tokens) -> list:
    """Token texts as column headers; a repeated token gets its occurrence: 'dog', 'dog (2)'."""
    seen: dict = {}
    labels = []
    for t in tokens:
        seen[t] = seen.get(t, 0) + 1
        labels.append(t if seen[t] == 1 else f"{t} ({seen[t]})")
    return labels


def _dims(prefix: str, d: int) -> list:
    return [f"{prefix}{c + 1}" for c in range(d)]


#: Every matrix of the data export, in file order:
#: stem -> (when it is written, row labels, header of the row labels, column labels, the numbers).
#: Row and column labels name a kind: "tokens" (the queries' sentence), "keys" (the keys' sentence:
#: the source in cross-attention), "x" (x1, x2, ...), "bias" (one row), or a prefix for numbered columns.
MATRICES = {
    "x": ("always", "tokens", "token", "x", lambda r, s, f: s.x),
    "x_source": ("cross", "keys", "source token", "x", lambda r, s, f: s.source_x),
    "w_q": ("always", "x", "W^Q", "q", lambda r, s, f: s.w_q),
    "w_k": ("always", "x", "W^K", "k", lambda r, s, f: s.w_k),
    "w_v": ("always", "x", "W^V", "v", lambda r, s, f: s.w_v),
    "b_q": ("bias", "bias", "b^Q", "q", lambda r, s, f: s.b_q[None, :]),
    "b_k": ("bias", "bias", "b^K", "k", lambda r, s, f: s.b_k[None, :]),
    "b_v": ("bias", "bias", "b^V", "v", lambda r, s, f: s.b_v[None, :]),
    "q": ("always", "tokens", "token", "q", lambda r, s, f: r.q),
    "k": ("always", "keys", "key token", "k", lambda r, s, f: r.k),
    "v": ("always", "keys", "key token", "v", lambda r, s, f: r.v),
    "scores": ("always", "tokens", "query \\ key", "keys", lambda r, s, f: r.scores),
    "scaled": ("always", "tokens", "query \\ key", "keys", lambda r, s, f: r.scaled),
    "weights": ("always", "tokens", "query \\ key", "keys", lambda r, s, f: r.weights),
    "output": ("always", "tokens", "token", "out", lambda r, s, f: r.output),
    "concat": ("heads", "tokens", "token", "joined", lambda r, s, f: f.concat),
    "w_o": ("w_o", "joined", "W^O", "y", lambda r, s, f: f.scenario.w_o),
    "projected": ("heads", "tokens", "token", "y", lambda r, s, f: f.projected),
}
#: The files every export has (cross-attention adds x_source; biases add b_q, b_k, b_v; heads or W^O add
#: concat, w_o, projected).
DATA_FILES = tuple(stem for stem, spec in MATRICES.items() if spec[0] == "always")


def data_tables(result: AttentionResult, full=None) -> dict:
    """stem -> Table for every matrix of the computation (see ``MATRICES``).

    Keys and values (and the columns of the scores and weights) are labelled with the key tokens:
    the source sentence's in cross-attention. The weight grids say which head they are when there
    are several.
    """
    s = result.scenario
    whole = None if full is None else full.scenario
    with_heads = whole is not None and (whole.n_heads > 1 or whole.w_o is not None)
    written = {"always": True, "cross": s.is_cross, "bias": s.has_bias, "heads": with_heads,
               "w_o": with_heads and whole.w_o is not None}
    joined = [] if whole is None else [f"h{h + 1}.v{c + 1}" for h in range(whole.n_heads) for c in range(whole.d_v)]
    labels = {"tokens": token_labels(result.tokens), "keys": token_labels(result.key_tokens),
              "joined": joined, "bias": ["bias"]}
    labels.update({kind: feature_names.header_names(s, kind) for kind in ("x", "q", "k", "v", "out")})
    head = f" (head {result.head + 1})" if result.n_heads > 1 else ""
    tables = {}
    for stem, (when, rows, corner, columns, values) in MATRICES.items():
        if not written[when]:
            continue
        a = np.asarray(values(result, s, full))
        if stem in ("w_q", "w_k", "w_v", "b_q", "b_k", "b_v"):
            corner += head
        names = labels.get(columns)
        if names is None or len(names) != a.shape[1]:
            names = _dims(columns, a.shape[1])
        tables[stem] = Table([corner] + list(names), list(labels[rows]), a)
    return tables


def _cell(v: float) -> str:
    v = float(v)
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    return repr(v)


def csv_text(table: Table) -> str:
    """A CSV document: the header, then each row's label and its numbers at full precision."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(table.header)
    for label, values in zip(table.rows, np.asarray(table.values)):
        w.writerow([label] + [_cell(v) for v in values])
    return out.getvalue()


def read_csv(text: str) -> Table:
    """A CSV document written by ``csv_text`` back as a Table (numbers as float64, 'inf' kept)."""
    rows = list(csv.reader(io.StringIO(text)))
    values = np.array([[float(v) for v in r[1:]] for r in rows[1:]], dtype=np.float64)
    return Table(rows[0], [r[0] for r in rows[1:]], values.reshape(len(rows) - 1, len(rows[0]) - 1))


def _json_matrix(a) -> list:
    return [[None if math.isinf(float(v)) else float(v) for v in row] for row in np.asarray(a)]


@dataclass(frozen=True)
class ModelSource:
    """Where a trained model's head came from: the model, its sentence and edits, and the layer and head
    (0-based) the numbers are of."""

    info: object  # qkv_engine.models.ModelInfo
    text: str
    edits: object  # qkv_engine.models.ModelEdits
    layer: int
    head: int

    def line(self) -> str:
        return (f"Trained model {self.info.name}, layer {self.layer + 1} of {self.info.n_layers}, "
                f"head {self.head + 1} of {self.info.n_heads}.")

    def to_dict(self) -> dict:
        return {"name": self.info.name, "path": str(self.info.path), "family": self.info.family,
                "config_sha256": self.info.config_sha256, "layer": self.layer + 1, "head": self.head + 1,
                "counted_from": 1}


def settings_lines(result: AttentionResult, selection=None, model: ModelSource | None = None) -> list:
    """The scenario's settings in plain words (the deck's title page, the JSON export); with ``model``,
    which trained model, layer and head they are."""
    s = result.scenario
    lines = [model.line()] if model is not None else []
    lines += [
        f"{s.n} token{'s' if s.n != 1 else ''}; each is a row of d_model = {s.d_model} numbers.",
        f"Queries and keys have d_k = {s.d_k} numbers, values d_v = {s.d_v}.",
        "Scores are divided by \u221ad_k." if s.scale else "Scores are not divided by \u221ad_k.",
    ]
    if s.temperature != 1.0:
        lines.append(f"Temperature T = {s.temperature:g} (scores are also divided by T).")
    if s.is_cross:
        lines.append(f"Cross-attention: the queries come from this sentence, the keys and values from the "
                     f"source sentence ({s.n_keys} token{'s' if s.n_keys != 1 else ''}: "
                     f"{' '.join(s.key_tokens[:12])}{' ...' if s.n_keys > 12 else ''}).")
    if result.n_heads > 1:
        lines.append(f"{result.n_heads} heads; these pictures show head {result.head + 1}.")
    masks = []
    if s.causal and not s.is_cross:
        masks.append("causal (each token looks only at itself and earlier tokens)")
    if s.padding:
        masks.append("padding (" + ", ".join(f"'{s.key_tokens[p]}'" for p in s.padding[:6])
                     + (", ..." if len(s.padding) > 6 else "") + ")")
    if s.blocked:
        masks.append(f"{len(s.blocked)} cell{'s' if len(s.blocked) != 1 else ''} blocked by hand")
    lines.append("Masks: " + "; ".join(masks) + "." if masks else "No mask: every token may look at every token.")
    lines.append("Softmax over each query's row (keys)." if s.softmax_over == "keys"
                 else "Softmax over each key's column (queries) \u2014 the classic mistake, shown on purpose.")
    if model is None:
        lines.append(f"Random seed {s.seed}.")
    elif not model.edits.is_empty():
        lines.append("Some of the model's numbers were edited (what-if): these are not the checkpoint's.")
    if selection is not None and s.n and s.n_keys:
        i, j = selection.query, min(selection.key, s.n_keys - 1)
        lines.append(f"Selected pair: query {i + 1} '{s.tokens[i]}' \u2192 key {j + 1} '{s.key_tokens[j]}'.")
    if s.dropped:
        lines.append(f"{s.dropped} more tokens of the text were left out (the limit).")
    return lines


def data_json(result: AttentionResult, selection=None, preset: str | None = None, full=None,
              model: ModelSource | None = None) -> str:
    """Every matrix in one JSON document (masked scaled scores are null), plus the session to reopen it.

    ``full`` (the MultiHeadResult) gives the whole scenario for the session entry; without it the
    shown head's own scenario is written. With ``model`` the document names the trained model, layer and
    head, and its session entry is the model's (where it is, the sentence and the edits, never weights)."""
    s = result.scenario
    whole = s if full is None else full.scenario
    view = {"preset": preset, "head": result.head}
    if selection is not None:
        view.update(query=selection.query, key=selection.key)
    doc = {
        "format": "qkv-visualizer-data",
        "version": 1,
        "tokens": list(s.tokens),
        "labels": token_labels(s.tokens),
        "key_tokens": list(s.key_tokens),
        "key_labels": token_labels(s.key_tokens),
        "settings": {"d_model": s.d_model, "d_k": s.d_k, "d_v": s.d_v, "scale": s.scale, "causal": s.causal,
                     "temperature": s.temperature, "softmax_over": s.softmax_over, "seed": s.seed,
                     "divisor": result.divisor, "head": result.head, "n_heads": result.n_heads,
                     "cross_attention": s.is_cross, "padding": list(s.padding),
                     "blocked": [list(c) for c in s.blocked]},
        "about": settings_lines(result, selection, model),
        "matrices": {stem: _json_matrix(t.values) for stem, t in data_tables(result, full).items()},
        "masked_note": "In 'scaled', null marks a pair a mask blocks (minus infinity): causal, padding or "
                       "blocked by hand. A row whose keys are all masked has weights 0 and output 0.",
        "session": session_format.to_dict(whole, view) if model is None else session_format.model_to_dict(
            model.info, model.text, model.edits, dict(view, layer=model.layer, head=model.head)),
    }
    if model is not None:
        doc["model"] = model.to_dict()
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False)


def data_files(result: AttentionResult, selection=None, preset: str | None = None, full=None,
               model: ModelSource | None = None) -> dict:
    """file name -> bytes for the data export: ``<stem>.csv`` for each matrix, then ``attention.json``."""
    files = {f"{stem}.csv": csv_text(table).encode("utf-8") for stem, table in data_tables(result, full).items()}
    files[DATA_JSON] = data_json(result, selection, preset, full, model).encode("utf-8")
    return files


def write_data(folder, result: AttentionResult, selection=None, preset: str | None = None, full=None,
               model: ModelSource | None = None) -> list:
    """Write every file of ``data_files`` into ``folder`` (made if missing; each file atomically); returns
    their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in data_files(result, selection, preset, full, model).items():
        session_format.write_atomic(folder / name, data)
        written.append(folder / name)
    return written
