"""Benchmark: Llama-family checkpoints of real models' shapes, random weights, printed as figures (not a test).

    OPENBLAS_NUM_THREADS=1 python tests/benchmarks/bench_llama_shapes.py [--repeats 5] [--skip-big]

1. SmolLM2-135M's shape (Llama: 30 layers, 576 wide, 9 query / 3 key-value heads of 64, feed-forward 1536,
   vocabulary 49,152; bfloat16 in one model.safetensors, as published): the time to open it, and one forward
   pass (every layer and head kept, logits included) at 16 and 128 tokens, each for three runs, a run being the
   median of several calls, as wall-clock and CPU time (CPU time is steadier when others share the machine);
   then the peak memory (resident set) of a fresh process that opens it and runs 128 tokens.
   Targets: open <= 3 s, 16 tokens <= 150 ms, 128 tokens <= 800 ms, under 1.2 GB.
2. Qwen2.5-0.5B's shape (Qwen2: 24 layers, 896 wide, 14 / 2 heads of 64, feed-forward 4864, vocabulary 151,936,
   bfloat16 in two shards): a fresh process opens it and runs 16 and 128 tokens; its peak memory is printed.
   The weights stay bfloat16 in memory and are widened one layer at a time. Target: under 3 GB.
The checkpoints are written into a temporary folder first (about 1.3 GB for both).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the app sets it

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

from bench_model_forward import RUNS, line, sentence, timed  # noqa: E402
from qkv_engine.models import load_model  # noqa: E402
from random_llama import QWEN25_05B, SMOLLM2_135M, write_random_llama  # noqa: E402


def measure(folder: str, lengths: list[int]) -> None:
    """In this (fresh) process: open, run each length once, print the figures and the peak RSS as JSON."""
    c0, w0 = time.process_time(), time.perf_counter()
    model = load_model(folder)
    figures = {"open_wall": time.perf_counter() - w0, "open_cpu": time.process_time() - c0}
    for n in lengths:
        text = sentence(model, n)
        c0, w0 = time.process_time(), time.perf_counter()
        trace = model.run(text)
        figures[f"forward_{n}_wall"] = time.perf_counter() - w0
        figures[f"forward_{n}_cpu"] = time.process_time() - c0
        assert trace.n == n and trace.logits.shape == (n, model.arch.vocab_size)
    figures["weights_dtype"] = str(model._weights.layers[0].w_qkv.dtype)
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures))


def in_fresh_process(folder: Path, lengths: list[int]) -> dict:
    out = subprocess.run([sys.executable, __file__, "--measure", str(folder), "--lengths",
                          ",".join(str(n) for n in lengths)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_small(folder: Path, repeats: int) -> None:
    open_runs = [timed(lambda: load_model(folder), 1) for _ in range(RUNS)]
    model = load_model(folder)
    a = model.arch
    print(f"SmolLM2-135M shape: {a.n_layers} layers, {a.d_model} wide, {a.n_heads}/{a.kv_heads} heads of "
          f"{a.d_head}, vocabulary {a.vocab_size}, stored bfloat16, held as {model._weights.word.dtype}")
    line("open", open_runs, 3000)
    for n, target in ((16, 150), (128, 800)):
        text = sentence(model, n)
        model.run(text)  # warm
        line(f"forward, {n} tokens", [timed(lambda: model.run(text), repeats) for _ in range(RUNS)], target)
    del model
    peak = [in_fresh_process(folder, [128])["peak_rss_mb"] for _ in range(RUNS)]
    print(f"  {'peak memory':<22} MB      " + "  ".join(f"{p:7.0f}" for p in peak)
          + "   (a fresh process: open + 128 tokens; target < 1200 MB)")


def bench_big(folder: Path) -> None:
    print("Qwen2.5-0.5B shape: 24 layers, 896 wide, 14/2 heads of 64, vocabulary 151936, bfloat16 in 2 shards")
    runs = [in_fresh_process(folder, [16, 128]) for _ in range(RUNS)]
    print(f"  weights held as {runs[0]['weights_dtype']} (uint16: bfloat16 bits, widened a layer at a time)")
    for key, label in (("open", "open"), ("forward_16", "forward, 16 tokens"), ("forward_128", "forward, 128 tokens")):
        walls = "  ".join(f"{r[key + '_wall'] * 1000:7.0f}" for r in runs)
        cpus = "  ".join(f"{r[key + '_cpu'] * 1000:7.0f}" for r in runs)
        print(f"  {label:<22} wall ms {walls}   cpu ms {cpus}   (one call each, a fresh process)")
    print(f"  {'peak memory':<22} MB      " + "  ".join(f"{r['peak_rss_mb']:7.0f}" for r in runs)
          + "   (open + 16 + 128 tokens; target < 3000 MB)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="calls per run (the median is shown)")
    ap.add_argument("--skip-big", action="store_true", help="leave out the 0.5B-parameter checkpoint")
    ap.add_argument("--measure", help=argparse.SUPPRESS)
    ap.add_argument("--lengths", default="16", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.measure:
        measure(args.measure, [int(n) for n in args.lengths.split(",")])
        return
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, numpy {np.__version__}, {RUNS} runs, "
          f"each the median of {args.repeats} calls (open: one call)")
    with tempfile.TemporaryDirectory(prefix="qkv-bench-llama-") as tmp:
        bench_small(write_random_llama(Path(tmp) / "smollm2", SMOLLM2_135M, "BF16"), args.repeats)
        if not args.skip_big:
            bench_big(write_random_llama(Path(tmp) / "qwen25", QWEN25_05B, "BF16", shards=2))


if __name__ == "__main__":
    main()
