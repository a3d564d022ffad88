"""Train the built-in model on the project's own grammar and save it as a Hugging Face checkpoint.

    pip install ".[train]"        # torch, transformers, tokenizers (never needed by the app itself)
    python tools/train_builtin_model.py [--out resources/models/qkv-tiny-llama] [--minutes 25] [--gather-only]

A 4-layer Llama decoder (rotary positions, 8 query heads sharing 2 key/value heads, RMSNorm,
SwiGLU), d_model 128, is trained from scratch on documents from tools/builtin_model/grammar.py
(seed 1234). Every batch is made by the generator as it goes, so the corpus is the stream of
``steps x batch x seq_len`` tokens that seed gives. The learning rate's cosine follows the steps or the
clock, whichever is further along (``--minutes``), so a busy machine still ends inside the budget. The checkpoint is saved with
``LlamaForCausalLM.save_pretrained`` in float16 with the WordLevel ``tokenizer.json``; the run's
figures go to ``training.json`` beside it.

Then a second, short stage gathers each job into fewer heads (``gather_heads``): training goes on from the
saved checkpoint for a fixed number of steps with a penalty on the size of each head's share of the output
projection (the sum over heads of the square root of its norm). Heads that only repeat another head's work
fade, so knocking out the head that does a job shows in the answer. ``--gather-only`` runs this stage alone
on the checkpoint in ``--out``. Then the held-out evaluation runs (tools/evaluate_builtin_model.py,
through the app's numpy forward) and writes ``evaluation.json`` and ``MODEL_CARD.md``.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

# Threads that wait for work sleep instead of spinning: on a machine shared with other programs,
# spinning made a 2-thread step three times slower than a 1-thread one.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from builtin_model.grammar import Generator  # noqa: E402
from builtin_model.vocabulary import BOS, build_tokenizer, encode_words, vocabulary  # noqa: E402

SEED = 1234
#: The model's shape (see the module docstring).
SHAPE = dict(hidden_size=128, intermediate_size=384, num_hidden_layers=4, num_attention_heads=8,
             num_key_value_heads=2, head_dim=16, max_position_embeddings=128)
#: The recipe.
RECIPE = dict(seq_len=96, batch=32, steps=6000, lr=3e-3, warmup=150, final_lr_share=0.05,
              weight_decay=0.05, betas=(0.9, 0.98), clip=1.0)
#: The second stage: a fixed number of steps (not a time budget), so that it comes out the same on any machine.
GATHER = dict(seed=4321, steps=300, lr=2e-3, penalty=0.05, power=0.5, batch=32, seq_len=96,
              betas=(0.9, 0.98), clip=1.0)


def llama_config(vocab_size: int, bos_id: int):
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=vocab_size, **SHAPE, hidden_act="silu", rms_norm_eps=1e-5,
                       rope_theta=10000.0, tie_word_embeddings=False, attention_bias=False, mlp_bias=False,
                       bos_token_id=bos_id, eos_token_id=None, pad_token_id=None, initializer_range=0.02)


def batches(seed: int, batch: int, seq_len: int, vocab: dict):
    """Endless batches of documents from the grammar: each row is [BOS] and seq_len - 1 words."""
    import torch

    gen = Generator(seed)
    while True:
        rows = [encode_words(gen.document(seq_len)[: seq_len - 1], vocab) for _ in range(batch)]
        yield torch.tensor(rows, dtype=torch.long)


def learning_rate(step: int, progress: float, r: dict) -> float:
    """Linear warm-up over the first steps, then a cosine down to final_lr_share of the peak as
    ``progress`` (0 to 1) goes by."""
    if step < r["warmup"]:
        return r["lr"] * (step + 1) / r["warmup"]
    t = min(1.0, progress)
    return r["lr"] * (r["final_lr_share"] + (1 - r["final_lr_share"]) * 0.5 * (1 + math.cos(math.pi * t)))


def train(out: Path, steps: int, minutes: float, threads: int) -> dict:
    import torch
    import torch.nn.functional as F
    from transformers import LlamaForCausalLM

    torch.manual_seed(SEED)
    torch.set_num_threads(threads)
    vocab = vocabulary()
    model = LlamaForCausalLM(llama_config(len(vocab), vocab[BOS]))
    model.config._attn_implementation = "sdpa"
    r = RECIPE
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": r["weight_decay"]},
                             {"params": rest, "weight_decay": 0.0}], lr=r["lr"], betas=r["betas"])
    data = batches(SEED, r["batch"], r["seq_len"], vocab)
    start = time.time()
    log, done = [], 0
    model.train()
    for step in range(steps):
        # The schedule follows the step count or the clock, whichever is further along, so that a busy
        # machine still ends the run at a low learning rate inside the time budget.
        progress = max(step / steps, (time.time() - start) / (minutes * 60))
        if progress >= 1:
            print(f"stopped at step {step}: the {minutes}-minute budget is used up", flush=True)
            break
        lr = learning_rate(step, progress, r)
        for group in opt.param_groups:
            group["lr"] = lr
        x = next(data)
        logits = model(input_ids=x).logits
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), r["clip"])
        opt.step()
        done = step + 1
        if step % 50 == 0 or step == steps - 1:
            log.append((step, round(loss.item(), 4)))
            print(f"step {step:5d}  loss {loss.item():.3f}  lr {lr:.2e}  "
                  f"{time.time() - start:6.0f} s", flush=True)
    seconds = time.time() - start
    save(model, out)
    figures = dict(seed=SEED, shape=SHAPE, recipe={**r, "steps_planned": steps}, steps_done=done,
                   tokens_seen=done * r["batch"] * r["seq_len"], train_seconds=round(seconds, 1),
                   threads=threads, final_loss=log[-1][1] if log else None, loss_log=log,
                   parameters=sum(p.numel() for p in model.parameters()),
                   torch=torch.__version__)
    (out / "training.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return figures


def head_shares(model):
    """layers x heads: the norm of each query head's columns of the output projection (the size of what the
    head adds to the residual stream)."""
    import torch

    cfg = model.config
    return torch.stack([layer.self_attn.o_proj.weight.view(cfg.hidden_size, cfg.num_attention_heads, cfg.head_dim)
                        .pow(2).sum(dim=(0, 2)).add(1e-8).sqrt() for layer in model.model.layers])


def gather_heads(out: Path, threads: int) -> dict:
    """Stage two: from the float16 checkpoint in ``out``, train on with the head penalty; save over it."""
    import torch
    import torch.nn.functional as F
    from transformers import LlamaForCausalLM

    g = GATHER
    torch.manual_seed(g["seed"])
    torch.set_num_threads(threads)
    vocab = vocabulary()
    model = LlamaForCausalLM.from_pretrained(out, dtype=torch.float32, attn_implementation="sdpa")
    opt = torch.optim.AdamW(model.parameters(), lr=g["lr"], betas=g["betas"], weight_decay=0.0)
    data = batches(g["seed"], g["batch"], g["seq_len"], vocab)
    before = head_shares(model).detach()
    start, log = time.time(), []
    model.train()
    for step in range(g["steps"]):
        lr = g["lr"] * 0.5 * (1 + math.cos(math.pi * step / g["steps"]))
        for group in opt.param_groups:
            group["lr"] = lr
        x = next(data)
        logits = model(input_ids=x).logits
        ce = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
        penalty = head_shares(model).pow(g["power"]).sum()
        opt.zero_grad(set_to_none=True)
        (ce + g["penalty"] * penalty).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), g["clip"])
        opt.step()
        if step % 50 == 0 or step == g["steps"] - 1:
            log.append((step, round(ce.item(), 4)))
            print(f"gather {step:4d}  loss {ce.item():.3f}  penalty {penalty.item():.2f}  "
                  f"{time.time() - start:5.0f} s", flush=True)
    after = head_shares(model).detach()
    save(model, out)
    return dict(recipe={**g}, seconds=round(time.time() - start, 1), final_loss=log[-1][1], loss_log=log,
                head_shares_before=[[round(v, 3) for v in row] for row in before.tolist()],
                head_shares_after=[[round(v, 3) for v in row] for row in after.tolist()])


def save(model, out: Path) -> None:
    """config.json and model.safetensors (float16) via save_pretrained, and tokenizer.json."""
    import torch

    out.mkdir(parents=True, exist_ok=True)
    model.eval()
    half = model.to(torch.float16)
    half.config._attn_implementation = "eager"
    half.save_pretrained(out, safe_serialization=True)
    half.to(torch.float32)
    build_tokenizer().save(str(out / "tokenizer.json"))
    for extra in ("generation_config.json",):  # nothing the app reads
        (out / extra).unlink(missing_ok=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "resources" / "models" / "qkv-tiny-llama")
    p.add_argument("--steps", type=int, default=RECIPE["steps"])
    p.add_argument("--minutes", type=float, default=26.0, help="stop early past this many minutes")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--gather-only", action="store_true",
                   help="run only the second stage, on the checkpoint already in --out")
    a = p.parse_args(argv)
    if not a.gather_only:
        figures = train(a.out, a.steps, a.minutes, a.threads)
        print(f"saved {a.out}: {figures['steps_done']} steps, {figures['train_seconds']:.0f} s, "
              f"final loss {figures['final_loss']}")
    figures = json.loads((a.out / "training.json").read_text(encoding="utf-8"))
    figures["gather"] = gather_heads(a.out, a.threads)
    (a.out / "training.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    print(f"gathered heads in {a.out}: {figures['gather']['seconds']:.0f} s")
    from evaluate_builtin_model import measure, write

    write(a.out, measure(a.out, 200))
    return 0


if __name__ == "__main__":
    sys.exit(main())
