"""Benchmark: an edit with a trained model open, until every panel has repainted, printed as figures.

    OPENBLAS_NUM_THREADS=1 python tests/benchmarks/bench_model_edit.py [--model PATH] [--runs 3] [--repeats 20]

Opens a random 6-layer, 384-wide, 12-head BERT (as ``bench_model_forward.py`` writes it; ``--model`` takes a
real folder instead, e.g. all-MiniLM-L6-v2) in the window offscreen at 1600 x 1000 with the model view open,
on a sentence of 16 tokens, and times three kinds of edit until the new numbers are on screen:

* ``word``: a word of the sentence changes (the model runs again: every layer and head);
* ``weight``: a number of the shown head's W^Q changes (the model runs again from that layer up, the layers
  below taken from the last run); the edits go to each layer in turn (the layer is chosen before the
  timing starts);
* ``head``: another head is chosen (no forward: the panels show another head of the same run).

A forward slower than a frame runs on a worker thread (the window stays responsive), so an edit is timed
until its trace has landed and every panel has repainted. Three runs; the median and 95th percentile of the
wall-clock time and of this process's CPU time (all threads), in ms.

Then, each run, the longest turn of the event loop (``bench_live_update.longest_turn``: the longest time input
would have waited):

* ``model view``: a burst of what-if edits arriving as fast clicking does (a head knocked out and back, a
  weight, another head chosen, a word), the forwards on the worker as the app runs them, with the model view
  alone open (as before the prediction panel existed);
* ``+ prediction``: the same burst with the prediction panel open beside it (a word pinned: its before -> after);
* ``heads matter``: the same burst while "Which heads matter?" works on its worker thread for a pinned word,
  and the model view's labels are worked out over the example sentences (again after each edit that changes
  the model: a new job each time);
* ``reference``: the same burst of a fixed piece of work that does not depend on the app, for the machine's
  speed (and the hand-made mode's figure from ``bench_live_update.py`` is the one to compare with).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_QPA_UPDATE_IDLE_TIME", "0")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from qkv_gui.system.blas import one_thread  # noqa: E402

one_thread()  # as the app does at start-up: BLAS on one thread, Qt paints without its thread pool

import numpy as np  # noqa: E402

from bench_live_update import longest_turn, machine_reference, percentile, settle_edit  # noqa: E402
from bench_model_forward import random_bert, sentence  # noqa: E402

KINDS = ("word", "weight", "head")


def settle(app, window) -> None:
    window.session.runner.wait()
    settle_edit(app, window)


def one_edit(window, kind: str, r: int, words: list) -> None:
    s = window.session
    if kind == "word":
        words = list(words)
        words[r % len(words)] = ("dog", "fox", "cat", "mat")[r % 4]
        s.set_text(" ".join(words))
    elif kind == "weight":
        w = s.scenario.w_q
        row, col = r % w.shape[0], (r * 7) % w.shape[1]
        s.set_cell("w_q", row, col, float(w[row, col]) + (0.05 if r % 2 else -0.04))
    else:
        s.select_model_head((r // 12) % s.model_doc.model.info.n_layers, r % 12)


def prepare(app, window, kind: str, r: int) -> None:
    """Before edit ``r`` of ``kind`` (not timed): a weight edit goes to layer r mod L."""
    s = window.session
    if kind == "weight":
        s.select_model_head(r % s.model_doc.model.info.n_layers, 1)
        settle(app, window)


def run_once(app, window, repeats: int, words: list) -> dict:
    out = {}
    for kind in KINDS:
        wall, cpu = [], []
        for r in range(repeats + 2):
            prepare(app, window, kind, r)
            t0, c0 = time.perf_counter(), time.process_time()
            one_edit(window, kind, r, words)
            settle(app, window)
            if r >= 2:  # warm-up
                wall.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
        out[kind] = (wall, cpu)
    return out


def what_if_actions(window, words: list) -> list:
    """Callables, each one what-if edit as the Trained model box and the panels make it."""
    s = window.session
    count = [0]

    def knock():
        count[0] += 1
        s.knock_out(1, 2, count[0] % 2 == 1)

    def weight():
        count[0] += 1
        w = s.scenario.w_q
        s.set_cell("w_q", count[0] % w.shape[0], 0, float(w[count[0] % w.shape[0], 0]) + 0.03)

    def head():
        count[0] += 1
        s.select_model_head(count[0] % s.model_doc.model.info.n_layers, count[0] % 4)

    def word():
        count[0] += 1
        changed = list(words)
        changed[count[0] % len(changed)] = ("dog", "fox", "cat", "mat")[count[0] % 4]
        s.set_text(" ".join(changed))

    return [knock, weight, head, word]


def turns(app, window, words: list) -> dict:
    """The longest event-loop turns (wall ms, CPU ms, p95 wall ms) of the three bursts of the docstring."""
    from PySide6 import QtWidgets

    dock = window.models.show_prediction()
    dock.close()
    settle(app, window)
    out = {"model view": longest_turn(app, window, what_if_actions(window, words))}
    settle(app, window)
    window.session.set_text(" ".join(words))
    window.models.show_prediction()
    settle(app, window)
    prediction = window.findChild(QtWidgets.QWidget, "predictionPanel")
    view = window.findChild(QtWidgets.QWidget, "modelViewPanel")
    prediction.bars.rowClicked.emit(0)  # pin the top word
    settle(app, window)
    out["+ prediction"] = longest_turn(app, window, what_if_actions(window, words))
    settle(app, window)
    window.session.set_text(" ".join(words))
    settle(app, window)
    prediction.bars.rowClicked.emit(0)
    settle(app, window)
    view.sources.choose("examples")
    running = prediction.run_effects()  # False for a model without an output head: the labels alone then
    out["heads matter" if running else "labels only"] = longest_turn(app, window, what_if_actions(window, words))
    if prediction.job is not None:
        prediction.job.wait()
    view.sources.choose("sentence")
    settle(app, window)
    out["reference"] = (machine_reference(app, window)[2], float("nan"), float("nan"))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", help="a real model folder, or builtin (default: a random 6 x 384 x 12 BERT)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args(argv)
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    from qkv_engine.models import load_model
    from qkv_gui.window.main_window import MainWindow

    scratch = Path(tempfile.mkdtemp(prefix="qkv-bench-"))
    folder = args.model if args.model else random_bert(scratch / "bert", np.random.default_rng(0))
    model = load_model(folder)
    text = sentence(model, 16)
    window = MainWindow(settings=QtCore.QSettings(str(scratch / "s.ini"), QtCore.QSettings.Format.IniFormat),
                        recovery=scratch / "recovery")
    window.ask_unsaved = lambda: "discard"
    window.resize(1600, 1000)
    window.show()
    window.models.show_model(model, text=text)
    settle(app, window)
    print(f"{model.info.name}: {model.info.n_layers} layers x {model.info.n_heads} heads, d_model "
          f"{model.info.d_model}, {len(model.tokenize(text)[0])} tokens; 1600 x 1000 offscreen, model view open")
    print(f"{'run':>4} {'edit':>7} {'median':>8} {'p95':>8} {'CPU med':>8} {'CPU p95':>8}   (ms, all threads' CPU)")
    for run in range(1, args.runs + 1):
        for kind, (wall, cpu) in run_once(app, window, args.repeats, text.split()).items():
            print(f"{run:>4} {kind:>7} {statistics.median(wall):8.1f} {percentile(wall, 95):8.1f} "
                  f"{statistics.median(cpu):8.1f} {percentile(cpu, 95):8.1f}")
    print(f"\n{'run':>4} {'burst':>13} {'longest turn':>13} {'its CPU':>8} {'p95 turn':>9}   (ms)")
    for run in range(1, args.runs + 1):
        for kind, (longest, cpu, p95) in turns(app, window, text.split()).items():
            print(f"{run:>4} {kind:>13} {longest:13.1f} {cpu:8.1f} {p95:9.1f}")
    window.close()


if __name__ == "__main__":
    main()
