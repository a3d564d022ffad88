"""Benchmark: what the word-wrapped labels whose words change at every edit cost, as ``QLabel`` and as
``WrappedLabel``, printed as figures.

    python tests/benchmarks/bench_wrapped_labels.py [--runs 3] [--sizes 16,64] [--kind "selected row"]

For each number of tokens n it builds the window offscreen at 1600 x 1000 (as ``bench_live_update``), makes
40 edits of ``--kind`` and keeps the words each changing label (the eight a selected-row edit changes) shows
after each. Then it builds two windows holding only those eight labels, each set up like the one in the app
(font, width, style sheet, text format, interaction) in its ``SteadyBox``: one of plain ``QLabel`` objects
and one of ``WrappedLabel`` objects, and replays the 40 edits on both, in turns: ``set_text`` on the eight,
then a repaint of the window. It prints this thread's CPU time per edit (the best of 9 passes): for the new
words (``set_text``) and the repaint after them, for the same repaint with no new words (its own best), and
what new words cost over that. Wall-clock time is not printed: on a shared machine it says more about the
other programs.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_live_update as live  # noqa: E402  (sets the path, the platform and BLAS's threads)

from PySide6 import QtCore, QtWidgets  # noqa: E402

NAMES = ("embeddingCaption", "mixingArithmetic", "qkPlaneWorked", "scalingWorked", "softmaxNote", "valuesCaption",
         "valuesWorked", "heatmapInfo")
EDITS = 40
PASSES = 9


def words_of_edits(app, n: int, kind: str) -> tuple:
    """({label name: [its words after each edit]}, {label name: how it is set up}) from the whole window."""
    scratch = Path(tempfile.mkdtemp())
    settings = QtCore.QSettings(str(scratch / "s.ini"), QtCore.QSettings.Format.IniFormat)
    w = live.make_window(app, settings, scratch, n)
    labels = {name: w.findChild(QtWidgets.QLabel, name) for name in NAMES}
    editor = live.Editor(w, kind)
    words = {name: [] for name in NAMES}
    for _ in range(EDITS):
        editor.edit()
        for _ in range(4):
            app.processEvents()
        for name, label in labels.items():
            words[name].append(label.text())
    setup = {name: (label.font(), label.width(), label.styleSheet(), label.textFormat(),
                    label.textInteractionFlags(), label.sizePolicy()) for name, label in labels.items()}
    w.close()
    return words, setup


def labels_window(app, cls, words: dict, setup: dict):
    """A window of the eight labels, made as ``cls``, one under the other at their widths in the app."""
    from qkv_gui.labels.steady_box import steady_box

    top = QtWidgets.QWidget()
    layout = QtWidgets.QVBoxLayout(top)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addSpacing(40)  # (not under the offscreen pointer at the corner: a selectable one would be hovered)
    labels = {}
    for name in NAMES:
        font, width, sheet, fmt, flags, policy = setup[name]
        row = QtWidgets.QWidget(top)
        row.setFixedWidth(width)
        row_layout = QtWidgets.QVBoxLayout(row)
        row_layout.setContentsMargins(0, 0, 0, 0)
        label = cls(row)
        label.setWordWrap(True)
        label.setTextFormat(fmt)
        label.setTextInteractionFlags(flags)
        label.setSizePolicy(policy)
        label.setFont(font)
        if sheet:
            label.setStyleSheet(sheet)
        label.setText(words[name][-1])
        row_layout.addWidget(steady_box(label))
        layout.addWidget(row)
        labels[name] = label
    layout.addStretch(1)
    top.resize(420, 900)
    top.show()
    for _ in range(3):
        app.processEvents()
    return top, labels


def replay(app, n: int, kind: str) -> dict:
    """{class name: (set_text us, repaint us, repaint with no new words us)} per edit, best of PASSES."""
    from qkv_gui.labels.changed_text import set_text
    from qkv_gui.labels.wrapped_label import WrappedLabel

    words, setup = words_of_edits(app, n, kind)
    windows = {cls.__name__: labels_window(app, cls, words, setup) for cls in (QtWidgets.QLabel, WrappedLabel)}
    best = {}
    for _ in range(PASSES):
        for name, (top, labels) in windows.items():
            setting = painting = 0.0
            for k in range(EDITS):
                t0 = time.thread_time()
                for label_name, label in labels.items():
                    set_text(label, words[label_name][k])
                t1 = time.thread_time()
                top.repaint()
                setting += t1 - t0
                painting += time.thread_time() - t1
            t0 = time.thread_time()
            for _ in range(EDITS):
                top.repaint()
            same = time.thread_time() - t0
            figures = [v / EDITS * 1e6 for v in (setting, painting, same)]
            if name in best:
                if sum(figures[:2]) > sum(best[name][:2]):
                    figures[:2] = best[name][:2]
                figures[2] = min(figures[2], best[name][2])
            best[name] = figures
    for top, _ in windows.values():
        top.close()
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="16,64", help="comma-separated numbers of tokens")
    ap.add_argument("--kind", default="selected row", choices=live.KINDS)
    args = ap.parse_args()
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    for run in range(args.runs):
        for n in (int(s) for s in args.sizes.split(",") if s.strip()):
            best = replay(app, n, args.kind)
            print(f"run {run + 1}, n = {n}, {args.kind}: CPU us per edit, the eight labels")
            for name, (setting, painting, same) in best.items():
                print(f"  {name:13} set_text {setting:6.0f} + repaint {painting:5.0f} = {setting + painting:6.0f}"
                      f"   (repaint, no new words {same:5.0f}; new words cost {setting + painting - same:6.0f})")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown of Qt objects
