"""The headless export command: figures and numbers for slides, with no window.

    python main.py export (--preset NAME | --session FILE | --model PATH) --out DIR
                          [--text "..." --layer L --head H]   (with --model)
                          [--target WORD --position I]         (with --model and csv)
                          [--format png,svg,pdf,csv,deck] [--width PX] [--theme slide|screen]
                          [--panels all|heatmap,softmax,...] [--query I --key J] [--transparent]

Writes ``<panel>.<format>`` for each panel and format (embedding, mixing, qk-plane, scaling,
softmax, values, heatmap, matrices, summary; "all" means these nine; the experiments are
exported when named: ``--panels scaling-lab,heads,concat``, the lab with its default d_k and
seed, as there is no window to take them from; with a model, ``model-view`` and ``prediction`` too), the numbers as CSV files plus ``attention.json``
for ``csv``, and ``deck.pdf`` for ``deck``; prints each path written; exits 0. With a trained model,
``csv`` also writes ``rollout.csv`` (the attention rollout through every layer, residual on, one line per query
and key token: query, query token, key, key token, weight); with one that has an output head,
``predictions.csv`` (the ten most likely tokens at every position: position, token, rank, candidate,
probability; positions and ranks counting from 1), and with ``--target WORD --position I``
``head_effects.csv`` (layer, head, delta_log_p: the change in log p(WORD) at token I when that head alone is
knocked out; counting from 1).

Any problem with the arguments, the preset, the session file or the output folder is one line
on stderr and exit code 2, and nothing is left half-written: every file is made in a temporary
folder beside the output folder and only moved into place when all of them are done.
Argument errors are found before Qt is imported.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from .system.blas import one_thread
from .system.command_line import Parser, add_model

one_thread()  # before anything imports numpy

PROG = "qkv-visualizer export"
FORMATS = ("png", "svg", "pdf", "csv", "deck")
DEFAULT_FORMATS = "png,svg,pdf"
THEMES = ("slide", "screen")
PALETTES = ("standard", "high-contrast", "dark")  # the names of qkv_gui.look.style.PALETTES (no Qt needed here)


_APP = None


class UsageError(Exception):
    """A problem the user can fix: one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description="Export figures (PNG, SVG, PDF) and numbers (CSV, JSON) without a window.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--preset", metavar="NAME", help="a preset scenario (see --list-presets)")
    src.add_argument("--session", metavar="FILE", help="a session file (.qkv.json)")
    add_model(p, "the sentence the model reads", group=src)
    p.add_argument("--layer", type=int, metavar="L", help="with --model: the layer, counting from 1 (default 1)")
    p.add_argument("--head", type=int, metavar="H", help="with --model: the head, counting from 1 (default 1)")
    p.add_argument("--target", metavar="WORD",
                   help="with --model and csv: the token whose head effects go to head_effects.csv")
    p.add_argument("--position", type=int, metavar="I",
                   help="with --target: the token (counting from 1) after which the model predicts WORD "
                        "(BERT: the [MASK] it fills)")
    p.add_argument("--out", metavar="DIR", required=True, help="the folder to write into (made if missing)")
    p.add_argument("--format", default=DEFAULT_FORMATS, metavar="LIST",
                   help=f"comma-separated, from {', '.join(FORMATS)} (default: {DEFAULT_FORMATS}); "
                        "csv writes the numbers (with --model also rollout.csv: the attention rollout through "
                        "all the layers, residual on, one line per pair: query, query token, key, key token, "
                        "weight; tokens counted from 1), deck one PDF with every panel")
    p.add_argument("--width", type=int, metavar="PX", help="width of PNG images in pixels (default 1920)")
    p.add_argument("--theme", default="slide", choices=THEMES, help="slide (larger text, default) or screen")
    p.add_argument("--panels", default="all", metavar="LIST",
                   help="'all' (the nine lesson panels) or comma-separated panel names, e.g. heatmap,softmax "
                        "or scaling-lab")
    p.add_argument("--query", type=int, metavar="I", help="the selected query token, counting from 1")
    p.add_argument("--key", type=int, metavar="J", help="the selected key token, counting from 1")
    p.add_argument("--transparent", action="store_true", help="no background (PNG, SVG, PDF)")
    p.add_argument("--colours", default="standard", choices=PALETTES,
                   help="standard (default), high-contrast or dark: the colours of the app's View → Theme")
    return p


def _split(text: str) -> list:
    return [part.strip().lower() for part in text.split(",") if part.strip()]


def parse(argv: list) -> argparse.Namespace:
    """Parse and check everything that needs neither Qt nor the scenario."""
    args = build_parser().parse_args(argv)
    formats = _split(args.format)
    unknown = [f for f in formats if f not in FORMATS]
    if not formats or unknown:
        raise UsageError(f"unknown format '{unknown[0] if unknown else args.format}' (known: {', '.join(FORMATS)})")
    args.formats = list(dict.fromkeys(formats))
    if args.width is not None and not 64 <= args.width <= 16384:
        raise UsageError(f"--width {args.width} is out of range (64 to 16384 pixels)")
    for flag in ("query", "key"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise UsageError(f"--{flag} {value}: tokens are counted from 1")
    for flag in ("text", "layer", "head"):
        if getattr(args, flag) is not None and not args.model:
            raise UsageError(f"--{flag} goes with --model")
    for flag in ("layer", "head"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise UsageError(f"--{flag} {value}: {flag}s are counted from 1")
    for flag, other in (("target", "position"), ("position", "target")):
        if getattr(args, flag) is not None:
            if not args.model:
                raise UsageError(f"--{flag} goes with --model")
            if getattr(args, other) is None:
                raise UsageError(f"--{flag} needs --{other} too")
            if "csv" not in args.formats:
                raise UsageError(f"--{flag} writes head_effects.csv: add csv to --format")
    if args.position is not None and args.position < 1:
        raise UsageError(f"--position {args.position}: tokens are counted from 1")
    if args.target is not None and not args.target.strip():
        raise UsageError("--target: give the token whose chance to follow")
    return args


#: How many guesses predictions.csv lists at each position.
TOP_GUESSES = 10


def prediction_files(model, trace, target: str | None = None, position: int | None = None) -> dict:
    """file name -> bytes: ``predictions.csv`` (the model's ten best guesses at every position), and with
    ``target`` and ``position`` (counting from 1) ``head_effects.csv``. Nothing for a model without an output
    head, unless a target is asked for: then UsageError says why."""
    import csv
    import io

    from qkv_engine import head_effects

    if trace.output_head is None:
        if target is not None:
            raise UsageError(f"{model.info.name} has no output head: it cannot predict '{target}', so there are no "
                             "head effects to write")
        return {}

    def table(header, rows) -> bytes:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        return out.getvalue().encode("utf-8")

    rows = []
    for i, token in enumerate(trace.tokens):
        for rank, (text, _id, p) in enumerate(model.predict(trace, i, TOP_GUESSES), start=1):
            rows.append([i + 1, token, rank, text, repr(float(p))])
    files = {"predictions.csv": table(["position", "token", "rank", "candidate", "probability"], rows)}
    if target is None:
        return files
    n = trace.n
    if not 1 <= position <= n:
        raise UsageError(f"--position {position} is out of range: the sentence has {n} token{'s' if n != 1 else ''}"
                         + (f" (1 to {n})" if n else ""))
    everything = model.predict(trace, position - 1, trace.logits.shape[1])  # every token, most likely first
    found = next((i for text, i, _p in everything if text == target), None)
    if found is None:  # "cat" for the token shown "␣cat" (a space before it)
        found = next((i for text, i, _p in everything if text == "\u2423" + target), None)
    if found is None:
        best = ", ".join(f"'{text}'" for text, _i, _p in everything[:5])
        raise UsageError(f"--target '{target}' is not one token of {model.info.name}; its best guesses at "
                         f"position {position} are {best}")
    deltas = head_effects(model, trace, position - 1, found)
    rows = [[layer + 1, head + 1, repr(float(deltas[layer, head]))]
            for layer in range(deltas.shape[0]) for head in range(deltas.shape[1])]
    files["head_effects.csv"] = table(["layer", "head", "delta_log_p"], rows)
    return files


#: The sentence a model reads when --text is not given.
MODEL_TEXT = "The animal didn't cross the street because it was too tired."


class Document:
    """What to export: a hand-made scenario, or a trained model with its sentence, edits and view."""

    def __init__(self, scenario=None, view=None, model=None, text=None, edits=None):
        self.scenario, self.view = scenario, dict(view or {})
        self.model, self.text, self.edits = model, text, edits

    def open_in(self, session) -> None:
        """Make this document the session's (a model runs its forward at once)."""
        if self.model is None:
            session.set_scenario(self.scenario, view=self.view, preset=self.view.get("preset"))
            return
        session.runner.sync = True
        session.open_model(self.model, text=self.text, view=self.view, edits=self.edits)


def load_document(args) -> Document:
    """The document from --preset, --session or --model; ScenarioError (or ModelError) says what is wrong,
    and a layer or head past the model's is refused here, before any work."""
    from qkv_engine import load_model, presets, session_format

    if args.preset:
        return Document(presets.load(args.preset), {"preset": args.preset})
    if args.session:
        loaded = session_format.load_any(args.session)
        if isinstance(loaded, session_format.ModelSession):
            return Document(model=session_format.open_model(loaded.ref), text=loaded.text, edits=loaded.edits,
                            view=loaded.view)
        return Document(*loaded)
    model = load_model(args.model)
    info = model.info
    view = {}
    for flag, count, unit in (("layer", info.n_layers, "layers"), ("head", info.n_heads, "heads per layer")):
        value = getattr(args, flag)
        if value is not None and value > count:
            raise UsageError(f"--{flag} {value} is out of range: {info.name} has {count} {unit} (1 to {count})")
        view[flag] = (value or 1) - 1
    return Document(model=model, text=MODEL_TEXT if args.text is None else args.text, view=view)


def _selection(args, scenario, view) -> tuple:
    n = scenario.n
    view = view or {}
    picked = []
    for flag in ("query", "key"):
        value = getattr(args, flag)
        if value is None:
            try:
                picked.append(max(0, min(int(view.get(flag, 0) or 0), max(n - 1, 0))))
            except (TypeError, ValueError):
                picked.append(0)
            continue
        if value > n:
            raise UsageError(f"--{flag} {value} is out of range: the sentence has {n} token{'s' if n != 1 else ''}"
                             + (f" (1 to {n})" if n else ""))
        picked.append(value - 1)
    return picked[0], picked[1]


#: Panels that need the app: the compare panel compares with a result pinned on screen.
APP_ONLY = {"compare": "the compare panel needs a pinned A; pin it in the app and export it from there"}


def _panel_names(args, has_model: bool = False) -> list:
    from .export.figures import all_panel_classes, model_panel_classes, panel_classes

    lesson = list(panel_classes())
    for_models = list(model_panel_classes())
    known = [n for n in all_panel_classes() if n not in APP_ONLY] + for_models
    wanted = _split(args.panels)
    if not wanted or wanted == ["all"]:
        return lesson
    for name in wanted:
        if name in APP_ONLY:
            raise UsageError(APP_ONLY[name])
        if name not in known:
            raise UsageError(f"unknown panel '{name}' (known: {', '.join(known)})")
        if name in for_models and not has_model:
            raise UsageError(f"the {name} panel shows a trained model: give --model FOLDER (or a model's session)")
    return list(dict.fromkeys(wanted))


def _staging_folder(out: Path) -> Path:
    """A fresh temporary folder on the same disk as ``out`` (beside it), or UsageError naming the problem."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"cannot write to {out}: it exists and is not a folder")
    anchor = out.parent
    while not anchor.exists():
        if anchor.parent == anchor:
            break
        anchor = anchor.parent
    if not anchor.is_dir():
        raise UsageError(f"cannot write to {out}: {anchor} is not a folder")
    try:
        return Path(tempfile.mkdtemp(prefix=".qkv-export-", dir=str(anchor)))
    except OSError as exc:
        raise UsageError(f"cannot write to {out}: {exc.strerror or exc}") from None


def _quiet_qt():
    """Keep the offscreen platform's harmless notes out of the command's output; returns the old handler."""
    from PySide6 import QtCore

    def handler(mode, context, message):
        if mode == QtCore.QtMsgType.QtFatalMsg:
            sys.stderr.write(f"{PROG}: error: Qt cannot start: {message}\n")
            sys.stderr.flush()
            os._exit(2)
        if "propagateSizeHints" in message or "qt.qpa" in (context.category or "") or "qt.svg" in (
                context.category or ""):
            return
        if mode in (QtCore.QtMsgType.QtCriticalMsg, QtCore.QtMsgType.QtWarningMsg):
            sys.stderr.write(f"Qt: {message}\n")

    return QtCore.qInstallMessageHandler(handler)


def _write_all(args, document: Document, names, staging: Path) -> list:
    """Make every requested file inside ``staging``; returns their names in order."""
    if not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # no window is ever shown; no display needed
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    previous = _quiet_qt()
    from PySide6 import QtCore, QtWidgets

    global _APP
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([sys.argv[0] if sys.argv else PROG])
    _APP = app  # keep the application alive until the process ends
    from qkv_engine import data_export, presets

    from .export import figures as export
    from .look import style
    from .state.session import Session

    from .look import colours

    style.configure_pyqtgraph()
    colours.use(args.colours)
    session = Session(parent=app)
    document.open_in(session)
    session.select(*_selection(args, session.scenario, document.view))
    options = export.ExportOptions(width=args.width or 1920, theme=args.theme, transparent=args.transparent)
    classes = export.known_panel_classes()
    written = []
    try:
        figures = [fmt for fmt in args.formats if fmt in export.FIGURE_FORMATS]
        for name in names:
            if not figures:
                break
            files = export.render_formats(classes[name], session, figures, options)  # one staging per panel
            for fmt in figures:
                (staging / f"{name}.{fmt}").write_bytes(files[fmt])
                written.append(f"{name}.{fmt}")
        if "deck" in args.formats:
            title = presets.get(args.preset).title if args.preset else None
            if session.model_doc is not None:
                title = (f"{session.model_doc.model.info.name}, layer {session.model_layer + 1}, "
                         f"head {session.model_head + 1}")
            (staging / "deck.pdf").write_bytes(export.deck_bytes(session, options, names, title))
            written.append("deck.pdf")
        if "csv" in args.formats:
            files = data_export.data_files(session.result, session.selection, args.preset, session.full_result,
                                          session.model_source())
            doc = session.model_doc
            if doc is not None:
                files.update(prediction_files(doc.model, session.model_trace, args.target, args.position))
            if session.model_trace is not None:
                files[export.ROLLOUT_CSV] = export.rollout_csv(session.model_trace)
            for fname, data in files.items():
                (staging / fname).write_bytes(data)
                written.append(fname)
    finally:
        session.deleteLater()
        QtCore.qInstallMessageHandler(previous)
    return written


class _Counted:
    """Stands for a scenario where only its token count is needed (range checks before any work)."""

    def __init__(self, n: int):
        self.n = n


def run_export(argv: list) -> int:
    """The ``export`` sub-command; returns the exit code."""
    staging = None
    try:
        args = parse(list(argv))
        from qkv_engine import ScenarioError

        try:
            document = load_document(args)
        except ScenarioError as exc:
            raise UsageError(str(exc)) from None
        out = Path(args.out).expanduser().absolute()
        names = _panel_names(args, has_model=document.model is not None)
        if document.model is None:
            _selection(args, document.scenario, document.view)  # range errors before any work
        else:
            tokens = document.model.tokenize(document.text)[0]
            _selection(args, _Counted(len(tokens)), document.view)
            if args.position is not None and args.position > len(tokens):
                n = len(tokens)
                raise UsageError(f"--position {args.position} is out of range: the sentence has {n} "
                                 f"token{'s' if n != 1 else ''}" + (f" (1 to {n})" if n else ""))
        staging = _staging_folder(out)
        written = _write_all(args, document, names, staging)
        try:
            out.mkdir(parents=True, exist_ok=True)
            for fname in written:
                os.replace(staging / fname, out / fname)
        except OSError as exc:
            raise UsageError(f"cannot write to {out}: {exc.strerror or exc}") from None
        for fname in written:
            print(out / fname)
        return 0
    except UsageError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return 2
    except OSError as exc:
        sys.stderr.write(f"{PROG}: error: could not write the files: {exc.strerror or exc}\n")
        return 2
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
