"""Benchmark: one update of the √d_k lab, printed as figures (not a test).

    OPENBLAS_NUM_THREADS=1 python tests/benchmarks/bench_scaling_lab.py [--repeats 15]

The lab draws its q, k pairs, measures their dot products' spread before and after the division by √d_k, and
sweeps the sizes of d_k the lab's chart shows: what the window asks for each time the d_k slider moves. Timed at
d_k = 64 and at the largest d_k the slider offers (its draws for the seed made once beforehand, as when the slider
has moved before). Each figure is shown for three runs; a run is the median of several calls, as wall-clock time
and this process's CPU time (bench_model_forward's timer). Target on a 2-core machine with one BLAS thread (as the
app runs): < 50 ms an update, so that dragging the slider keeps up.
"""
from __future__ import annotations

from bench_model_forward import RUNS, line, start, timed  # same folder; sets the BLAS threads

from qkv_engine.scaling_lab import MAX_DK, scaling_lab


def main(argv=None) -> None:
    args = start(__doc__, 15, argv)
    for d_k in (64, MAX_DK):
        scaling_lab(d_k, seed=0)  # the draws for this seed
        line(f"update at d_k = {d_k}", [timed(lambda: scaling_lab(d_k, seed=0), args.repeats)
                                        for _ in range(RUNS)], 50)


if __name__ == "__main__":
    main()
