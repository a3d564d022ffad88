"""Benchmark: opening the built-in model and running it on a classroom sentence, printed (not a test).

    OPENBLAS_NUM_THREADS=1 python tests/benchmarks/bench_builtin_model.py [--repeats 9]

Prints the median wall-clock time of load_model(builtin_model_path()) over several opens, and of one
forward pass at 7 tokens ("the dog saw anna . it") and at 100 tokens. Target on a 2-core machine with
one BLAS thread (as the app runs): open < 0.5 s.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the app sets it

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from qkv_engine.models import load_model  # noqa: E402
from qkv_engine.models.builtin import builtin_model_path  # noqa: E402


def median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=9)
    a = p.parse_args(argv)
    folder = builtin_model_path()
    print(f"{folder}")
    print(f"open:                 {median_ms(lambda: load_model(folder), a.repeats):7.1f} ms  (target < 500 ms)")
    model = load_model(folder)
    short = "the dog saw anna . it"
    long = " ".join(["tom met anna at the park . later tom met anna at the park ."] * 7)[:-1]
    for text in (short, long):
        n = len(model.tokenize(text)[0])
        print(f"forward, {n:3d} tokens:  {median_ms(lambda: model.run(text), a.repeats):7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
