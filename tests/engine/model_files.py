"""The tiny reference checkpoints in tests/data, and helpers that write altered copies of them."""
from __future__ import annotations

import json
import shutil
import threading
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
TINY_DISTILBERT_MLM = DATA / "tiny-distilbert-mlm"
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


def with_mask_token(dst: Path) -> Path:
    """tiny-bert-mlm copied to ``dst`` with its tokenizer.json naming [MASK] a special token, as real BERT exports
    do (the tiny one has it in its vocabulary only, so "[MASK]" is read as '[', 'mask', ']')."""
    folder = copy_model(DATA / "tiny-bert-mlm", dst)
    tok = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    tok["added_tokens"] = [{"id": tok["model"]["vocab"]["[MASK]"], "content": "[MASK]", "single_word": False,
                            "lstrip": False, "rstrip": False, "normalized": False, "special": True}]
    (folder / "tokenizer.json").write_text(json.dumps(tok), encoding="utf-8")
    return folder


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


def bfloat16_bits(a: np.ndarray) -> np.ndarray:
    """The top 16 bits of each float32 (bfloat16, rounded toward zero) as uint16."""
    return (np.ascontiguousarray(a, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def write_safetensors(path: Path, arrays: dict, dtype: str) -> None:
    """A safetensors file written by hand (safetensors.numpy cannot write bfloat16): every tensor stored as
    ``dtype`` ("BF16", "F16" or "F32"), in the format's layout (8-byte header length, JSON header, data)."""
    header, blobs, offset = {}, [], 0
    for name, a in arrays.items():
        if dtype == "BF16":
            raw = bfloat16_bits(a).tobytes()
        else:
            raw = np.ascontiguousarray(a, dtype=np.float16 if dtype == "F16" else np.float32).tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    Path(path).write_bytes(len(text).to_bytes(8, "little") + text + b"".join(blobs))


def write_shards(folder: Path, data: dict, parts: int, dtype: str = "F32") -> list[str]:
    """``data`` split over ``parts`` shard files with a model.safetensors.index.json, as the Hugging Face cache
    holds big checkpoints; model.safetensors is removed. Returns the shard file names."""
    (folder / "model.safetensors").unlink(missing_ok=True)
    names = sorted(data)
    files = [f"model-{i + 1:05d}-of-{parts:05d}.safetensors" for i in range(parts)]
    where = {}
    for i, file in enumerate(files):
        chunk = names[i::parts]
        write_safetensors(folder / file, {n: data[n] for n in chunk}, dtype)
        where.update({n: file for n in chunk})
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": where}))
    return files


def runs_kept_to(folder: Path, tokens: int, monkeypatch) -> None:
    """RUN_MEMORY made just large enough for a run of ``tokens`` tokens of the model in ``folder``: a model
    opened after this keeps at most that many (qkv_engine.models.model.token_limit)."""
    from qkv_engine.models import load_model, model
    from qkv_engine.models.forward import run_bytes

    monkeypatch.setattr(model, "RUN_MEMORY", run_bytes(load_model(folder).arch, tokens))


def on_two_threads(work) -> None:
    """``work(0)`` and ``work(1)`` run at once on two threads; returns when both have ended."""
    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
