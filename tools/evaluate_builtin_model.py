"""Measure the built-in model on held-out sentences through the app's own numpy forward.

    python tools/evaluate_builtin_model.py [FOLDER] [--per-kind 300] [--write]

Prints the accuracy per phenomenon and every head's previous-token, induction and pronoun -> antecedent
weights (see tools/builtin_model/measure.py for what each number is). ``--write`` stores them in
``evaluation.json`` beside the weights and writes ``MODEL_CARD.md`` from it and ``training.json``.
``--backend torch`` runs the same measurement with the transformers library instead (a check of the
numpy forward; needs the ``train`` extra). Exits 1 when a target of the issue is missed.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from builtin_model.card import alike, model_card  # noqa: E402
from builtin_model.measure import ACCURACIES, EVAL_SEED, TARGETS, evaluate, held_out, knock_out, table  # noqa: E402
from builtin_model.vocabulary import encode_words, vocabulary  # noqa: E402


def numpy_runner(folder: Path):
    """run(text) -> (logits, weights) with the app's forward; and the model's layer and head counts."""
    from qkv_engine.models import load_model

    model = load_model(folder)

    def run(text):
        trace = model.run(text)
        return np.asarray(trace.logits), np.asarray(trace.weights)

    return run, model.info.n_layers, model.info.n_heads


def torch_runner(folder: Path):
    """The same with transformers' LlamaForCausalLM (eager attention, so the weights come out)."""
    import torch
    from tokenizers import Tokenizer
    from transformers import LlamaForCausalLM

    model = LlamaForCausalLM.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager").eval()
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))

    def run(text):
        ids = torch.tensor([tok.encode(text).ids])
        with torch.no_grad():
            out = model(input_ids=ids, output_attentions=True)
        return out.logits[0].numpy(), np.stack([a[0].numpy() for a in out.attentions])

    return run, model.config.num_hidden_layers, model.config.num_attention_heads


def measure(folder: Path, per_kind: int, backend: str = "numpy") -> dict:
    run, n_layers, n_heads = (numpy_runner if backend == "numpy" else torch_runner)(folder)
    vocab = vocabulary()
    start = time.time()
    res = evaluate(run, lambda words: encode_words(words, vocab), held_out(per_kind), n_layers, n_heads)
    doc = res.as_dict()
    doc.update(seed=EVAL_SEED, per_kind=per_kind, backend=backend,
               weights_bytes=(folder / "model.safetensors").stat().st_size)
    print(table(res))
    if backend == "numpy":
        doc["knock_outs"] = knock_outs(folder, doc, per_kind)
        doc["copy_demo"] = copy_demo(folder)
    print(f"\n{per_kind} examples of each kind, seed {EVAL_SEED}, {backend} forward: {time.time() - start:.1f} s")
    return doc


def knock_out_groups(doc: dict) -> dict:
    """Job -> the heads doing it (the named head and those within 0.1 of it), for the copying jobs; and
    "induction_alone": the named induction head by itself."""
    groups = {kind: sorted([tuple(doc["best_heads"][kind][:2]), *alike(doc, kind)])
              for kind in ("previous_token", "induction")}
    groups["induction_alone"] = [tuple(doc["best_heads"]["induction"][:2])]
    return groups


def knock_outs(folder: Path, doc: dict, per_kind: int) -> list[dict]:
    """The accuracies again with each group of knock_out_groups switched off (numpy forward only)."""
    from qkv_engine.models import load_model

    model = load_model(folder)
    vocab = vocabulary()
    examples = held_out(per_kind)
    out = []
    print("\nknocked out" + "".join(f"  {k}" for k in ACCURACIES))
    for kind, heads in knock_out_groups(doc).items():
        res = knock_out(model, heads, examples, lambda words: encode_words(words, vocab))
        acc = {k: round(res.accuracy(k), 4) for k in ACCURACIES}
        out.append({"job": kind, "heads": [list(h) for h in heads], "accuracy": acc})
        names = ", ".join(f"{layer}.{head}" for layer, head in heads)
        print(f"{names:<11}" + "".join(f"  {acc[k]:{len(k)}.1%}" for k in ACCURACIES))
    return out


#: The sentence of the card's knock-out demonstration (and of the app's "Copying" example).
DEMO_TEXT = "tom met anna at the park . later tom met"


def copy_demo(folder: Path, text: str = DEMO_TEXT) -> dict:
    """The model's top word after ``text``, its probability, and the three single heads whose knock-out
    lowers it most, with the probability left (the app's own head_effects)."""
    from qkv_engine.models import load_model
    from qkv_engine.models.what_if import head_effects

    model = load_model(folder)
    trace = model.run(text)
    position = len(trace.tokens) - 1
    word, token_id, p = model.predict(trace, position, 1)[0]
    effects = head_effects(model, trace, position, token_id)
    order = np.argsort(effects, axis=None)[:3]
    heads = [[int(layer), int(head), round(float(p * np.exp(effects[layer, head])), 4)]
             for layer, head in zip(*np.unravel_index(order, effects.shape))]
    print(f"\n{text!r} -> {word} {p:.3f}; knocking out " +
          ", ".join(f"{layer}.{head} leaves {left:.3f}" for layer, head, left in heads))
    return {"text": text, "word": word, "p": round(float(p), 4), "knocked": heads}


def write(folder: Path, doc: dict) -> None:
    (folder / "evaluation.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    training = json.loads((folder / "training.json").read_text(encoding="utf-8"))
    card = model_card(folder.name, training, doc, len(vocabulary()))
    (folder / "MODEL_CARD.md").write_text(card, encoding="utf-8")
    print(f"wrote {folder / 'evaluation.json'} and {folder / 'MODEL_CARD.md'}")


def main(argv=None) -> int:
    from qkv_engine.models.builtin import builtin_model_path

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", nargs="?", type=Path, default=None, help="default: the shipped built-in model")
    p.add_argument("--per-kind", type=int, default=200)
    p.add_argument("--backend", choices=("numpy", "torch"), default="numpy")
    p.add_argument("--write", action="store_true", help="write evaluation.json and MODEL_CARD.md")
    a = p.parse_args(argv)
    folder = (a.folder or builtin_model_path()).resolve()
    doc = measure(folder, a.per_kind, a.backend)
    if a.write:
        write(folder, doc)
    missed = [k for k, t in TARGETS.items() if doc["accuracy"][k] < t]
    if missed:
        print("missed targets: " + ", ".join(f"{k} {doc['accuracy'][k]:.1%} < {TARGETS[k]:.0%}" for k in missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
