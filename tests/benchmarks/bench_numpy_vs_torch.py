"""Benchmark: the app's numpy forward against transformers + torch on the same checkpoint, one thread each,
printed side by side as figures (not a test).

    OPENBLAS_NUM_THREADS=1 /path/to/python-with-torch tests/benchmarks/bench_numpy_vs_torch.py [--repeats 7] [--floor]

A MiniLM-shaped BERT (6 layers, 384 wide, 12 heads, feed-forward 1536): the real all-MiniLM-L6-v2 when
``QKV_MINILM`` names its folder, else random weights of that shape (tests/benchmarks/bench_model_forward.py's).
Each side runs every layer and keeps every head's attention weights and every hidden state (torch with eager
attention, ``output_attentions`` and ``output_hidden_states``, under ``no_grad``) at 16, 128 and 512 tokens.
Three runs, each the median of several calls, as wall-clock and CPU time; in a run the two sides' calls take
turns (numpy, torch, numpy, ...), so that a change in the machine's speed (a virtual machine's neighbours)
falls on both alike. The ratio numpy / torch is of CPU time, steadier than wall-clock when others share the
machine. torch is imported only if it is installed: without it the numpy figures are printed and the
comparison says it was skipped. The numpy side is ``Model.run`` on the text, as the app calls it: a sentence
run again is not split into tokens again (the model keeps its last few sentences' tokens, as for a what-if
edit), and torch starts from the ids.

Both sides share one process, and so the C library's memory allocator, whose threshold for handing out fresh
memory from the system (a page fault every 4 KB when first written) rises to the size of the largest block
freed so far, up to 32 MB. Left alone, it would depend on what the other side freed last: numpy keeping its
run's memory for the next run (forward.RunBlocks) left torch's blocks of a few MB above the threshold: 200 to
1,200 page faults a call at 128 tokens, about 1 ms (4 %) of its time. So a 32 MB block is made and freed first:
each side then gets its blocks below 32 MB from the allocator's own pool, as in a process that has run a while.

``--floor`` measures what the numpy side cannot go below while it computes GELU, LayerNorm and the softmax the
way it does: those three are switched off (GELU and LayerNorm leave their input as it is, the attention is the
two products alone), so the numbers are wrong and only the time counts. What is left is the matrix products,
the copies, and the biases and residual sums.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

from bench_model_forward import RUNS, random_bert, sentence, start, timed  # noqa: E402
from qkv_engine.models import forward, load_model  # noqa: E402

LENGTHS = (16, 128, 512)


def torch_runner(folder: Path):
    """A function running transformers' BertModel on token ids, or None when torch is not installed."""
    try:
        import torch
        from transformers import BertModel
    except ImportError:
        return None
    torch.set_num_threads(1)
    bert = BertModel.from_pretrained(str(folder), attn_implementation="eager", use_safetensors=True).eval()

    def run(ids):
        with torch.no_grad():
            return bert(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    return run


def switch_off_the_elementwise_work() -> None:
    """GELU and LayerNorm leave their input as it is; the attention is Q K^T and its product with V alone."""

    def attend(q, k, v, scale, hidden_keys, weights, context):
        np.matmul(q, k.transpose(0, 2, 1), out=weights)
        np.matmul(weights, v, out=context)

    forward.ACTIVATION["gelu"] = lambda x, out=None: x
    forward.layer_norm = lambda x, gain_bias, eps, out=None: x if out is None else np.copyto(out, x) or out
    forward.attend = attend


def bench(folder: Path, repeats: int, floor: bool = False) -> None:
    model = load_model(folder)
    info = model.info
    print(f"{info.name}: {info.n_layers} layers, {info.d_model} wide, {info.n_heads} heads; numpy takes e^z by "
          f"{forward._EXP.__name__} (exp2 where it is vector code on this processor)")
    if floor:
        switch_off_the_elementwise_work()
        print("  --floor: GELU, LayerNorm and the softmax are switched off on the numpy side (its numbers are wrong)")
    other = torch_runner(folder)
    if other is None:
        print("  torch is not installed here: the comparison with transformers + torch is skipped")
    for n in LENGTHS:
        text = sentence(model, n)
        ids = list(model.tokenize(text)[1])
        model.run(text)  # warm
        _, tokenizing = timed(lambda: model._tokenizer._encode(text), repeats)  # the tokenizer, not what it kept
        if other is None:
            ours = [timed(lambda: model.run(text), repeats) for _ in range(RUNS)]
            theirs = None
        else:
            other(ids)  # warm
            runs = [side_by_side(lambda: model.run(text), lambda: other(ids), repeats) for _ in range(RUNS)]
            ours, theirs = [r[0] for r in runs], [r[1] for r in runs]
        print(f"  {n:>4} tokens  numpy  wall ms " + "  ".join(f"{w * 1000:7.1f}" for w, _ in ours)
              + "   cpu ms " + "  ".join(f"{c * 1000:7.1f}" for _, c in ours)
              + f"   (splitting the text takes {tokenizing * 1000:.2f} ms, done once: the model keeps the last "
              f"sentences' tokens for the next run; torch starts from the ids)")
        if theirs is None:
            continue
        out = other(ids)
        trace = model.run(text)
        err = max(float(np.abs(trace.weights[layer] - out.attentions[layer][0].numpy()).max())
                  for layer in range(info.n_layers))
        agree = "numbers not compared: --floor" if floor else f"attention weights agree to {err:.1e}"
        print(f"  {'':>4}         torch  wall ms " + "  ".join(f"{w * 1000:7.1f}" for w, _ in theirs)
              + "   cpu ms " + "  ".join(f"{c * 1000:7.1f}" for _, c in theirs))
        ratios = [c / t for (_, c), (_, t) in zip(ours, theirs)]
        print(f"  {'':>4}         numpy / torch (cpu) " + "  ".join(f"{r:5.2f}" for r in ratios)
              + f"   (target <= 1.0; {agree})")


def side_by_side(ours, theirs, repeats: int) -> tuple:
    """((wall, cpu), (wall, cpu)): the medians of ``repeats`` calls of each, the two taking turns."""
    times = {ours: ([], []), theirs: ([], [])}
    for i in range(repeats):
        for fn in (ours, theirs) if i % 2 == 0 else (theirs, ours):
            c0, w0 = time.process_time(), time.perf_counter()
            fn()
            times[fn][0].append(time.perf_counter() - w0)
            times[fn][1].append(time.process_time() - c0)
    return tuple((statistics.median(w), statistics.median(c)) for w, c in times.values())


def settle_the_allocator() -> None:
    """A 32 MB block made and freed: the allocator's threshold for fresh memory rises to it (see the docstring)."""
    np.ones(8_000_000, np.float32)


def main(argv=None) -> None:
    args = start(__doc__, 7, argv, more=lambda ap: ap.add_argument(
        "--floor", action="store_true", help="switch off GELU, LayerNorm and the softmax on the numpy side"))
    settle_the_allocator()
    real = os.environ.get("QKV_MINILM")
    if real and Path(real).is_dir():
        bench(Path(real), args.repeats, args.floor)
        return
    with tempfile.TemporaryDirectory(prefix="qkv-bench-torch-") as tmp:
        bench(random_bert(Path(tmp) / "minilm-shaped", np.random.default_rng(0)), args.repeats, args.floor)


if __name__ == "__main__":
    main()
