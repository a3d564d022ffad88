"""Benchmark: the engine's training steps, printed as figures (not a test).

    python tests/benchmarks/bench_training.py [--steps 500] [--seeds 10]

On the 'it' sentence (n = 11 tokens, d_model 4, d_k 2, d_v 3, random weights from a seed) with the
target "make 'it' look at 'animal'":

1. steps per second of ``training.train_step`` (W^Q and W^K; then also the embeddings), three runs,
   wall-clock and CPU time;
2. how many steps, from random weights, until 'it' puts more than 0.8 of its weight on 'animal',
   for several seeds and learning rates (with and without momentum), and the engine time that takes.
   At the 20-60 steps a second the panels can animate, the number of steps gives the time the
   class waits: 60 steps at 30 steps a second is 2 seconds.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from qkv_engine import Scenario, compute, training  # noqa: E402

TEXT = "The animal didn't cross the street because it was too tired"
GOAL = 0.8


def steps_per_second(steps: int, what) -> tuple:
    s = Scenario.from_sentence(TEXT, seed=1)
    target = training.look_at(s, "it", "animal")
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        s, _ = training.train_step(s, target, lr=0.05, what=what)
    return steps / (time.perf_counter() - w0), steps / (time.process_time() - c0)


def steps_to_goal(seed: int, lr: float, momentum: float, limit: int = 2000) -> tuple:
    s = Scenario.from_sentence(TEXT, seed=seed)
    i, j = s.tokens.index("it"), s.tokens.index("animal")
    trainer = training.Trainer(training.look_at(s, "it", "animal"), lr=lr, momentum=momentum)
    c0 = time.process_time()
    n = 0
    while compute(s).weights[i, j] <= GOAL and n < limit:
        s, _ = trainer.step(s)
        n += 1
    return n, time.process_time() - c0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=10)
    args = ap.parse_args()
    s = Scenario.from_sentence(TEXT, seed=1)
    print(f"'it' sentence: n = {s.n}, d_model {s.d_model}, d_k {s.d_k}, d_v {s.d_v}; {args.steps} steps per run")
    for what in (("w_q", "w_k"), ("w_q", "w_k", "x")):
        runs = [steps_per_second(args.steps, what) for _ in range(3)]
        print(f"train_step on {' + '.join(what)}: steps per second, 3 runs: wall "
              + ", ".join(f"{w:,.0f}" for w, _ in runs) + "; CPU " + ", ".join(f"{c:,.0f}" for _, c in runs))
    print(f"\nsteps until 'it' puts > {GOAL} on 'animal', from random weights (seeds 0-{args.seeds - 1}):")
    print(f"{'lr':>5} {'momentum':>8}   {'median':>6} {'max':>5}   {'seconds at 30 steps/s (max)':>27}   "
          f"{'engine CPU ms (max), 3 runs':>28}")
    for lr, momentum in ((0.2, 0.0), (0.5, 0.0), (1.0, 0.0), (0.2, 0.8), (0.5, 0.8)):
        runs = [[steps_to_goal(seed, lr, momentum) for seed in range(args.seeds)] for _ in range(3)]
        counts = [n for n, _ in runs[0]]
        cpu = [1000 * max(c for _, c in run) for run in runs]
        print(f"{lr:>5} {momentum:>8}   {statistics.median(counts):>6.0f} {max(counts):>5}   "
              f"{max(counts) / 30:>27.1f}   {', '.join(f'{c:.1f}' for c in cpu):>28}")


if __name__ == "__main__":
    main()
