"""Random Llama-family checkpoints of a real model's shape, written for the benchmarks (not a test).

    folder = write_random_llama(path, SMOLLM2_135M, dtype="BF16", shards=2)

Tensor names, shapes and config.json as the Hugging Face cache holds them (sharded
``model-0000i-of-0000n.safetensors`` with ``model.safetensors.index.json`` when ``shards`` > 1),
weights drawn at initialisation's spread (normal, 0.02) and written one tensor at a time so a
0.5B-parameter file is written without holding it in memory. The tokenizer is the tiny test
model's (its ids all fall inside the vocabulary).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1] / "data"

#: SmolLM2-135M's sizes (a Llama).
SMOLLM2_135M = dict(model_type="llama", hidden_size=576, num_hidden_layers=30, num_attention_heads=9,
                    num_key_value_heads=3, head_dim=64, intermediate_size=1536, vocab_size=49152,
                    tie_word_embeddings=True, rope_theta=100000.0, rms_norm_eps=1e-5, max_position_embeddings=8192,
                    hidden_act="silu")
#: Qwen2.5-0.5B's sizes (q/k/v biases, tied embeddings).
QWEN25_05B = dict(model_type="qwen2", hidden_size=896, num_hidden_layers=24, num_attention_heads=14,
                  num_key_value_heads=2, head_dim=64, intermediate_size=4864, vocab_size=151936,
                  tie_word_embeddings=True, rope_theta=1000000.0, rms_norm_eps=1e-6, max_position_embeddings=32768,
                  hidden_act="silu", use_sliding_window=False)

_DTYPES = {"BF16": 2, "F16": 2, "F32": 4}


def shapes(config: dict) -> dict:
    """Every tensor's name and shape ((out, in) as nn.Linear stores them)."""
    d, f, v = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    h, kv, dh = config["num_attention_heads"], config["num_key_value_heads"], config["head_dim"]
    out = {"model.embed_tokens.weight": (v, d), "model.norm.weight": (d,)}
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        out.update({p + "input_layernorm.weight": (d,), p + "post_attention_layernorm.weight": (d,),
                    p + "self_attn.q_proj.weight": (h * dh, d), p + "self_attn.k_proj.weight": (kv * dh, d),
                    p + "self_attn.v_proj.weight": (kv * dh, d), p + "self_attn.o_proj.weight": (d, h * dh),
                    p + "mlp.gate_proj.weight": (f, d), p + "mlp.up_proj.weight": (f, d),
                    p + "mlp.down_proj.weight": (d, f)})
        if config["model_type"] == "qwen2":
            out.update({p + "self_attn.q_proj.bias": (h * dh,), p + "self_attn.k_proj.bias": (kv * dh,),
                        p + "self_attn.v_proj.bias": (kv * dh,)})
    if not config.get("tie_word_embeddings"):
        out["lm_head.weight"] = (v, d)
    return out


def _bytes(name: str, shape: tuple, dtype: str, rng: np.random.Generator, rows: int = 8192):
    """The tensor's bytes, a block of rows at a time."""
    if name.endswith("norm.weight"):
        blocks = [np.ones(shape, np.float32)]
    else:
        blocks = (rng.standard_normal((min(rows, shape[0] - r),) + tuple(shape[1:])).astype(np.float32) * 0.02
                  for r in range(0, shape[0], rows))
    for a in blocks:
        if dtype == "BF16":
            yield (a.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        else:
            yield a.astype(np.float16 if dtype == "F16" else np.float32).tobytes()


def _write_file(path: Path, tensors: dict, dtype: str, rng: np.random.Generator) -> None:
    header, offset = {}, 0
    for name, shape in tensors.items():
        size = int(np.prod(shape)) * _DTYPES[dtype]
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as fh:
        fh.write(len(text).to_bytes(8, "little") + text)
        for name, shape in tensors.items():
            for chunk in _bytes(name, shape, dtype, rng):
                fh.write(chunk)


def write_random_llama(folder: Path, config: dict, dtype: str = "BF16", shards: int = 1, seed: int = 0) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    tiny = DATA / ("tiny-qwen2" if config["model_type"] == "qwen2" else "tiny-llama")
    shutil.copy(tiny / "tokenizer.json", folder / "tokenizer.json")
    (folder / "config.json").write_text(json.dumps({**config, "architectures": ["LlamaForCausalLM"]}))
    every = shapes(config)
    if shards == 1:
        _write_file(folder / "model.safetensors", every, dtype, rng)
        return folder
    names = list(every)
    files = [f"model-{i + 1:05d}-of-{shards:05d}.safetensors" for i in range(shards)]
    per = -(-len(names) // shards)
    where = {}
    for i, file in enumerate(files):
        part = names[i * per:(i + 1) * per]
        _write_file(folder / file, {n: every[n] for n in part}, dtype, rng)
        where.update({n: file for n in part})
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": where}))
    return folder
