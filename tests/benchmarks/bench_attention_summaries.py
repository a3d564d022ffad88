"""Benchmark: the summaries of what attention does, printed as figures (not a test).

    OPENBLAS_NUM_THREADS=1 python tests/benchmarks/bench_attention_summaries.py [--repeats 15]

Times attention rollout and head labels for 6 layers x 12 heads at 128 tokens (random row-stochastic
weights under a causal mask), and head effects (all 72 knock-outs) of a random 6-layer, 384-wide, 12-head
GPT-2 (bench_model_forward's) at 16 tokens, and of the built-in model (its 32 heads, 'anna' after "tom met anna at
the park . later tom met"). Each figure is shown for three runs; a run is the median of
several repeats, as wall-clock time and this process's CPU time (bench_model_forward's timer). Targets on a
2-core machine with one BLAS thread (as the app runs): rollout < 20 ms, head labels < 20 ms, head effects
< 1 s (the built-in model's < 0.3 s).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from bench_model_forward import RUNS, line, random_gpt2, sentence, start, timed  # same folder; sets the BLAS threads

import numpy as np

from qkv_engine import head_effects, head_labels, load_model, rollout

LAYERS, HEADS, TOKENS = 6, 12, 128


def random_weights(rng: np.random.Generator) -> tuple[np.ndarray, tuple, np.ndarray]:
    """(L x H x n x n float32 weights whose rows sum to 1 over the allowed keys, tokens, causal mask)."""
    allowed = np.tril(np.ones((TOKENS, TOKENS), dtype=bool))
    w = rng.random((LAYERS, HEADS, TOKENS, TOKENS)).astype(np.float32) * allowed
    w /= w.sum(axis=-1, keepdims=True)
    tokens = tuple("." if i % 10 == 9 else f"\u2423w{i}" for i in range(TOKENS))
    return w, tokens, allowed


def main(argv=None) -> None:
    args = start(__doc__, 15, argv)
    w, tokens, allowed = random_weights(np.random.default_rng(0))
    print(f"{LAYERS} layers x {HEADS} heads, {TOKENS} tokens")
    line("rollout", [timed(lambda: rollout(w), args.repeats) for _ in range(RUNS)], 20)
    line("head labels", [timed(lambda: head_labels(w, tokens, allowed), args.repeats) for _ in range(RUNS)], 20)
    with tempfile.TemporaryDirectory(prefix="qkv-bench-") as tmp:
        model = load_model(random_gpt2(Path(tmp) / "gpt2", np.random.default_rng(0)))
        trace = model.run(sentence(model, 16))
    info = model.info
    print(f"{info.name}: {info.n_layers} layers, {info.d_model} wide, {info.n_heads} heads, {trace.n} tokens")
    effects = [timed(lambda: head_effects(model, trace, trace.n - 1, 5), 3) for _ in range(RUNS)]
    line(f"head effects, {info.n_layers * info.n_heads}", effects, 1000)
    builtin = load_model("builtin")  # the model the app ships: 'anna' after the copied sentence
    trace = builtin.run("tom met anna at the park . later tom met")
    anna = trace.ids[trace.tokens.index("anna")]
    info = builtin.info
    print(f"{info.name}: {info.n_layers} layers, {info.d_model} wide, {info.n_heads} heads, {trace.n} tokens")
    effects = [timed(lambda: head_effects(builtin, trace, trace.n - 1, anna), 5) for _ in range(RUNS)]
    line(f"head effects, {info.n_layers * info.n_heads}", effects, 300)


if __name__ == "__main__":
    main()
