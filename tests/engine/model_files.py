"""The tiny reference checkpoints in tests/data, and helpers that write altered copies of them."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file

DATA = Path(__file__).resolve().parents[1] / "data"
TINY_BERT = DATA / "tiny-bert"
TINY_GPT2 = DATA / "tiny-gpt2"
TINY = {"bert": TINY_BERT, "gpt2": TINY_GPT2}
TINY_LLAMA = DATA / "tiny-llama"
TINY_QWEN2 = DATA / "tiny-qwen2"
TINY_BERT_MLM = DATA / "tiny-bert-mlm"
ROPE = {"llama": TINY_LLAMA, "qwen2": TINY_QWEN2}
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json", "vocab.txt", "vocab.json", "merges.txt",
               "tokenizer_config.json")


def reference_outputs(folder: Path) -> dict:
    """The transformers library's outputs for s0 .. s3, as {index: {name: array}} (q_rot and k_rot without the
    library's leading batch axis)."""
    with np.load(folder / "reference_outputs.npz", allow_pickle=False) as z:
        out: dict = {}
        for key in z.files:
            s, name = key.split("_", 1)
            out.setdefault(int(s[1:]), {})[name] = z[key][0] if name in ("q_rot", "k_rot") else z[key]
    return out


def copy_model(src: Path, dst: Path, skip=()) -> Path:
    """A copy of a model folder without ``skip`` (file names)."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in MODEL_FILES:
        if (src / name).exists() and name not in skip:
            shutil.copy(src / name, dst / name)
    for p in dst.iterdir():
        p.chmod(0o644)
    return dst


def tensors(folder: Path) -> dict:
    return load_file(str(folder / "model.safetensors"))


def write_tensors(folder: Path, data: dict) -> None:
    save_file({k: np.ascontiguousarray(v) for k, v in data.items()}, str(folder / "model.safetensors"))


def edit_config(folder: Path, **changes) -> None:
    path = folder / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    path.write_text(json.dumps(config), encoding="utf-8")
