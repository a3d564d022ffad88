"""Benchmark: learning the weights in the window, with every panel following, printed as figures.

    python tests/benchmarks/bench_training_window.py [--runs 3] [--steps 100] [--size 1600x1000]

The window is built offscreen (default 1600 x 1000) on the designed example "Who is 'it'?" (n = 11
tokens) with random W^Q and W^K, the "Learn the weights" experiment open beside the panels, and the
target "'it' looks at 'animal'". Each run presses Train (the experiment's defaults: learning rate 0.05,
momentum 0.5) for ``--steps`` steps and prints:

* steps per second while every panel animates (wall-clock), and the CPU time of this thread per step;
* how long until 'it' puts more than 0.8 of its weight on 'animal' (seconds, steps);
* the longest turn of the event loop during the run (a 1 ms timer ticks whenever the loop gets to it:
  the longest gap between two ticks is the longest time a click or a key would have waited).

Aims: 20 to 60 steps a second, the target within a few seconds, no turn much longer than a frame or two.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from qkv_gui.system.blas import one_thread  # noqa: E402

one_thread()  # as the app does at start-up: BLAS on one thread, Qt paints without its thread pool

from PySide6 import QtCore, QtWidgets  # noqa: E402

GOAL = 0.8
IT, ANIMAL = 7, 1


def one_run(app, steps: int, size: tuple, seed: int) -> dict:
    from qkv_engine.scenario import head_grids
    from qkv_gui.window.main_window import MainWindow

    folder = tempfile.mkdtemp()
    window = MainWindow(preset="designed-it",
                        settings=QtCore.QSettings(folder + "/s.ini", QtCore.QSettings.Format.IniFormat),
                        recovery=Path(folder) / "recovery")
    window.resize(*size)
    window.show()
    s = window.session.scenario
    window.session.apply(s.with_options(w_q=head_grids("q", s.d_model, s.d_k, 1, seed),
                                        w_k=head_grids("k", s.d_model, s.d_k, 1, seed)), "random start")
    window.open_experiment("dockTrain")
    for _ in range(20):
        app.processEvents()
    panel = window.experiment_panels["trainPanel"]
    panel.queryCombo.setCurrentIndex(IT)
    panel.keyCombo.setCurrentIndex(ANIMAL)
    panel.set_target_from_combos()
    panel.stepsSpin.setValue(steps)
    ticks = []
    beat = QtCore.QTimer()
    beat.setInterval(1)
    beat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    reached = None
    beat.start()
    w0, c0 = time.perf_counter(), time.process_time()
    panel.train()
    while panel.running:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        if reached is None and window.session.result.weights[IT, ANIMAL] > GOAL:
            reached = (time.perf_counter() - w0, panel.steps_done)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    beat.stop()
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    out = {"steps": panel.steps_done, "wall": wall, "cpu": cpu, "reached": reached,
           "longest_turn": max(gaps) if gaps else float("nan"),
           "final": float(window.session.result.weights[IT, ANIMAL])}
    window.ask_unsaved = lambda: "discard"
    window.close()
    window.deleteLater()
    app.processEvents()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--size", default="1600x1000")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    print(f"Learn the weights in the window ({size[0]} x {size[1]}), 'Who is it?' (n = 11), random W^Q and "
          f"W^K, {args.steps} steps per run")
    print(f"{'run':>3}  {'steps/s (wall)':>14}  {'CPU ms/step':>11}  {'> 0.8 after':>16}  "
          f"{'longest loop turn ms':>20}  {'final weight':>12}")
    for run in range(args.runs):
        r = one_run(app, args.steps, size, seed=3 + run)
        reached = f"{r['reached'][0]:.2f} s, {r['reached'][1]} steps" if r["reached"] else "not reached"
        print(f"{run + 1:>3}  {r['steps'] / r['wall']:>14.1f}  {1000 * r['cpu'] / r['steps']:>11.1f}  "
              f"{reached:>16}  {1000 * r['longest_turn']:>20.1f}  {r['final']:>12.3f}")


if __name__ == "__main__":
    main()
