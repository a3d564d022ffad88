"""A second, plain forward pass of a Llama / Qwen2 checkpoint for the tests, written from the equations.

Nothing is taken from ``qkv_engine``: the tensors are read with ``safetensors.numpy.load_file``
under their checkpoint names, everything runs in float64, each query head is computed on its own
with the key/value head h // (H / KV), and each token's pairs (i, i + d/2) are turned one by one
with math.cos and math.sin at angle p / theta^(2i / d). Checked against the transformers library's
outputs (``reference_outputs.npz``) in the tests, then used to check what-if edits.

    out = llama_reference(folder, ids, input_edits={(layer, token, dim): value}, knocked={(layer, head)},
                          tensors=altered)      # out["weights"], out["hidden"], out["logits"], ...

``mean_of={(layer, head)}``: those heads' outputs replaced by their mean over the positions (a "mean"
knock-out).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file


def _rms(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    return np.array([row / math.sqrt(sum(v * v for v in row) / len(row) + eps) for row in x]) * gain


def _turn(x: np.ndarray, theta: float) -> np.ndarray:
    """Each row p (a token at position p) with pair (i, i + d/2) turned by p / theta^(2i / d)."""
    n, d = x.shape
    out = x.copy()
    for p in range(n):
        for i in range(d // 2):
            a = p / theta ** (2 * i / d)
            c, s = math.cos(a), math.sin(a)
            out[p, i] = x[p, i] * c - x[p, i + d // 2] * s
            out[p, i + d // 2] = x[p, i + d // 2] * c + x[p, i] * s
    return out


def _linear(t: dict, name: str, x: np.ndarray) -> np.ndarray:
    """nn.Linear ``name``: x W^T, + its bias when the checkpoint has one."""
    out = x @ t[name + ".weight"].T
    return out + t[name + ".bias"] if name + ".bias" in t else out


def _silu(x: np.ndarray) -> np.ndarray:
    return x / (1.0 + np.exp(-x))


def llama_reference(folder, ids, input_edits=None, knocked=frozenset(), tensors=None, mean_of=frozenset()) -> dict:
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    t = tensors if tensors is not None else load_file(str(folder / "model.safetensors"))
    t = {name: np.asarray(value, dtype=np.float64) for name, value in t.items()}
    theta = (config.get("rope_parameters") or {}).get("rope_theta", config.get("rope_theta", 10000.0))
    L, H, eps = config["num_hidden_layers"], config["num_attention_heads"], config["rms_norm_eps"]
    KV = config["num_key_value_heads"]
    d = config["hidden_size"]
    dh = config.get("head_dim") or d // H
    edits = input_edits or {}
    ids = list(ids)
    n = len(ids)
    h = t["model.embed_tokens.weight"][ids]
    hidden, attn_input, layers = [h], [], []
    for layer in range(L):
        p = f"model.layers.{layer}."
        a = _rms(h, t[p + "input_layernorm.weight"], eps)
        for (ll, token, dim), value in edits.items():
            if ll == layer and token < n:
                a[token, dim] = value
        attn_input.append(a)

        q_all, k_all, v_all = (_linear(t, p + f"self_attn.{name}", a) for name in ("q_proj", "k_proj", "v_proj"))
        heads, outputs = [], []
        for head in range(H):
            g = head // (H // KV)
            q = q_all[:, head * dh:(head + 1) * dh]
            k = k_all[:, g * dh:(g + 1) * dh]
            v = v_all[:, g * dh:(g + 1) * dh]
            qr, kr = _turn(q, theta), _turn(k, theta)
            scores = qr @ kr.T
            weights = np.zeros((n, n))
            for i in range(n):
                z = [scores[i, j] / math.sqrt(dh) for j in range(i + 1)]
                e = [math.exp(v_ - max(z)) for v_ in z]
                weights[i, :i + 1] = [v_ / sum(e) for v_ in e]
            out = weights @ v
            if (layer, head) in knocked:
                out = np.zeros_like(out)
            if (layer, head) in mean_of:
                out = np.tile(out.mean(axis=0), (n, 1))
            heads.append(dict(q=q, k=k, v=v, q_rot=qr, k_rot=kr, scores=scores, weights=weights, context=out))
            outputs.append(out)
        layers.append(heads)
        h = h + _linear(t, p + "self_attn.o_proj", np.hstack(outputs))
        m = _rms(h, t[p + "post_attention_layernorm.weight"], eps)
        gate, up = _linear(t, p + "mlp.gate_proj", m), _linear(t, p + "mlp.up_proj", m)
        h = h + _linear(t, p + "mlp.down_proj", _silu(gate) * up)
        hidden.append(h)
    hidden[-1] = _rms(h, t["model.norm.weight"], eps)
    head_matrix = t.get("lm_head.weight", t["model.embed_tokens.weight"])
    stack = {key: np.array([[hd[key] for hd in layer] for layer in layers])
             for key in ("q", "k", "v", "q_rot", "k_rot", "scores", "weights", "context")}
    return dict(hidden=np.array(hidden), attn_input=np.array(attn_input), logits=hidden[-1] @ head_matrix.T, **stack)
