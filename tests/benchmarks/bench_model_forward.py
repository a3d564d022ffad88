"""Benchmark: opening a trained model and running it on a sentence, printed as figures (not a test).

    OPENBLAS_NUM_THREADS=1 python tests/benchmarks/bench_model_forward.py [--model PATH] [--repeats 15]

Writes a random 6-layer, 384-wide, 12-head BERT checkpoint and a GPT-2 one of the same size into a
temporary folder (with the tiny test models' tokenizer.json), then prints for each: the time to open it,
and the time of one forward pass (every layer and head kept) at 16 and 128 tokens. Each figure is shown
for three runs; a run is the median of several repeats, as wall-clock time and this process's CPU time
(steadier when other programs share the machine). ``--model`` times a real model folder too.
Targets on a 2-core machine with one BLAS thread (as the app runs): open < 1 s, forward < 30 ms at
16 tokens and < 150 ms at 128 tokens.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the app sets it

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from safetensors.numpy import save_file  # noqa: E402

from qkv_engine.models import load_model  # noqa: E402

DATA = ROOT / "tests" / "data"
LAYERS, WIDTH, HEADS, FF = 6, 384, 12, 1536
RUNS = 3
WORDS = ("the", "cat", "sat", "on", "mat", "dog", "fox", "and", "was", "it", "over", "in")


def _weights(rng: np.random.Generator):
    """Random float32 weights of a given shape (spread as at initialisation), and LayerNorm at rest."""
    def w(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def ln(t: dict, name: str) -> None:
        t[name + ".weight"], t[name + ".bias"] = np.ones(WIDTH, np.float32), np.zeros(WIDTH, np.float32)

    return w, ln


def _write(folder: Path, tiny: str, tensors: dict, config: dict) -> Path:
    folder.mkdir(parents=True)
    shutil.copy(DATA / tiny / "tokenizer.json", folder)
    save_file(tensors, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def random_bert(folder: Path, rng: np.random.Generator) -> Path:
    w, ln = _weights(rng)
    vocab = 63  # the tiny BERT's tokenizer
    t = {"embeddings.word_embeddings.weight": w(vocab, WIDTH), "embeddings.position_embeddings.weight": w(512, WIDTH),
         "embeddings.token_type_embeddings.weight": w(2, WIDTH)}
    ln(t, "embeddings.LayerNorm")
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            t[p + name + ".weight"], t[p + name + ".bias"] = w(WIDTH, WIDTH), w(WIDTH)
        t[p + "intermediate.dense.weight"], t[p + "intermediate.dense.bias"] = w(FF, WIDTH), w(FF)
        t[p + "output.dense.weight"], t[p + "output.dense.bias"] = w(WIDTH, FF), w(WIDTH)
        ln(t, p + "attention.output.LayerNorm")
        ln(t, p + "output.LayerNorm")
    return _write(folder, "tiny-bert", t, {
        "model_type": "bert", "hidden_size": WIDTH, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
        "intermediate_size": FF, "vocab_size": vocab, "max_position_embeddings": 512, "hidden_act": "gelu",
        "layer_norm_eps": 1e-12, "type_vocab_size": 2})


def random_gpt2(folder: Path, rng: np.random.Generator) -> Path:
    w, ln = _weights(rng)
    vocab = 320  # the tiny GPT-2's tokenizer
    t = {"wte.weight": w(vocab, WIDTH), "wpe.weight": w(1024, WIDTH)}
    ln(t, "ln_f")
    for i in range(LAYERS):
        p = f"h.{i}."
        t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"] = w(WIDTH, 3 * WIDTH), w(3 * WIDTH)
        t[p + "attn.c_proj.weight"], t[p + "attn.c_proj.bias"] = w(WIDTH, WIDTH), w(WIDTH)
        t[p + "mlp.c_fc.weight"], t[p + "mlp.c_fc.bias"] = w(WIDTH, FF), w(FF)
        t[p + "mlp.c_proj.weight"], t[p + "mlp.c_proj.bias"] = w(FF, WIDTH), w(WIDTH)
        ln(t, p + "ln_1")
        ln(t, p + "ln_2")
    return _write(folder, "tiny-gpt2", t, {
        "model_type": "gpt2", "n_embd": WIDTH, "n_layer": LAYERS, "n_head": HEADS, "n_inner": FF,
        "vocab_size": vocab, "n_positions": 1024, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5})


def sentence(model, n: int) -> str:
    """A sentence of exactly ``n`` tokens for this model's tokenizer (words that add one token each)."""
    text, i = "", 0
    while len(model.tokenize(text)[0]) < n:
        for _ in range(len(WORDS)):
            word = WORDS[i % len(WORDS)]
            i += 1
            longer = (text + " " + word).strip()
            if len(model.tokenize(longer)[0]) == len(model.tokenize(text)[0]) + 1 or not text:
                text = longer
                break
        else:
            raise SystemExit("cannot build a sentence of exactly one more token")
    if len(model.tokenize(text)[0]) != n:
        raise SystemExit(f"the sentence has {len(model.tokenize(text)[0])} tokens, not {n}")
    return text


def timed(fn, repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``fn()`` over ``repeats`` calls."""
    wall, cpu = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def line(label: str, runs: list, target_ms: float) -> None:
    walls = "  ".join(f"{w * 1000:7.1f}" for w, _ in runs)
    cpus = "  ".join(f"{c * 1000:7.1f}" for _, c in runs)
    print(f"  {label:<22} wall ms {walls}   cpu ms {cpus}   (target < {target_ms:g} ms)")


def bench(folder: Path, repeats: int) -> None:
    load_runs = [timed(lambda: load_model(folder), 3) for _ in range(RUNS)]
    model = load_model(folder)
    info = model.info
    print(f"{info.name}: {info.model_type}, {info.n_layers} layers, {info.d_model} wide, {info.n_heads} heads")
    line("open", load_runs, 1000)
    for n, target in ((16, 30), (128, 150)):
        text = sentence(model, n)
        model.run(text)  # warm
        line(f"forward, {n} tokens", [timed(lambda: model.run(text), repeats) for _ in range(RUNS)], target)


def start(doc: str, repeats: int, argv=None, more=None, note: str = "") -> argparse.Namespace:
    """The command line of a benchmark script (``--repeats``, the calls a run, and what ``more(parser)`` adds),
    parsed, and the line its output begins with: the BLAS threads, numpy's version, the runs and their calls."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    if more is not None:
        more(ap)
    ap.add_argument("--repeats", type=int, default=repeats, help="calls per run (the median is shown)")
    args = ap.parse_args(argv)
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, numpy {np.__version__}, "
          f"{RUNS} runs, each the median of {args.repeats} calls{note}")
    return args


def main(argv=None) -> None:
    args = start(__doc__, 15, argv, note=" (open: of 3)",
                 more=lambda ap: ap.add_argument("--model", action="append", default=[],
                                                 help="also time this model folder"))
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory(prefix="qkv-bench-") as tmp:
        for build in (random_bert, random_gpt2):
            bench(build(Path(tmp) / build.__name__, rng), args.repeats)
    for path in args.model:
        bench(Path(path), args.repeats)


if __name__ == "__main__":
    main()
