"""A second, plain forward pass of BERT and GPT-2 for the tests, written from the equations.

Nothing is taken from ``qkv_engine.models``: the tensors are read with
``safetensors.numpy.load_file`` under their checkpoint names, everything runs in
float64, each head is sliced and computed on its own, and GELU uses ``math.erf``
one number at a time. It is checked against the transformers library's outputs
(``reference_outputs.npz``) in the tests, and then used to check what-if edits.

    out = reference_forward(folder, ids, input_edits={(layer, token, dim): value}, knocked={(layer, head)})
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file


def _gelu_erf(x: np.ndarray) -> np.ndarray:
    flat = [0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x.ravel().tolist()]
    return np.array(flat, dtype=np.float64).reshape(x.shape)


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def _ln(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    rows = []
    for row in x:
        mean = sum(row) / len(row)
        var = sum((v - mean) ** 2 for v in row) / len(row)
        rows.append([(v - mean) / math.sqrt(var + eps) for v in row])
    return np.array(rows, dtype=np.float64).reshape(x.shape) * g + b


def _softmax_row(z: list[float]) -> list[float]:
    top = max(z)
    e = [math.exp(v - top) for v in z]
    total = sum(e)
    return [v / total for v in e]


def _heads(a, wq, bq, wk, bk, wv, bv, n_heads, causal, knocked_heads, divisor):
    """Each head alone: its columns of the grids, its scores, weights and output."""
    n, d = a.shape
    dh = d // n_heads
    per_head = []
    outputs = []
    for h in range(n_heads):
        cols = slice(h * dh, (h + 1) * dh)
        q = a @ wq[:, cols] + bq[cols]
        k = a @ wk[:, cols] + bk[cols]
        v = a @ wv[:, cols] + bv[cols]
        scores = q @ k.T
        weights = np.zeros((n, n))
        for i in range(n):
            keys = range(i + 1) if causal else range(n)
            row = _softmax_row([scores[i, j] / divisor for j in keys])
            for j, w in zip(keys, row):
                weights[i, j] = w
        out = weights @ v
        if h in knocked_heads:
            out = np.zeros_like(out)
        per_head.append(dict(q=q, k=k, v=v, scores=scores, weights=weights, context=out))
        outputs.append(out)
    return per_head, np.hstack(outputs)


def reference_forward(folder, ids, input_edits=None, knocked=frozenset(), tensors=None) -> dict:
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    t = tensors if tensors is not None else load_file(str(folder / "model.safetensors"))
    t = {name: np.asarray(value, dtype=np.float64) for name, value in t.items() if value.dtype.kind == "f"}
    edits = input_edits or {}
    ids = list(ids)
    n = len(ids)
    layers, hidden, attn_input = [], [], []

    def edit(a, layer):
        a = a.copy()
        for (l, token, dim), value in edits.items():
            if l == layer and token < n:
                a[token, dim] = value
        return a

    if config["model_type"] == "gpt2":
        L, H, eps = config["n_layer"], config["n_head"], config["layer_norm_epsilon"]
        d = config["n_embd"]
        h = t["wte.weight"][ids] + t["wpe.weight"][:n]
        for l in range(L):
            p = f"h.{l}."
            hidden.append(h)
            a = edit(_ln(h, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps), l)
            attn_input.append(a)
            w, b = t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"]  # Conv1D: x @ W + b, Q | K | V
            heads, merged = _heads(a, w[:, :d], b[:d], w[:, d:2 * d], b[d:2 * d], w[:, 2 * d:], b[2 * d:], H, True,
                                   {hh for ll, hh in knocked if ll == l}, math.sqrt(d // H))
            layers.append(heads)
            h = h + merged @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
            m = _ln(h, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
            h = h + _gelu_tanh(m @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"]) @ t[p + "mlp.c_proj.weight"] \
                + t[p + "mlp.c_proj.bias"]
        hidden.append(_ln(h, t["ln_f.weight"], t["ln_f.bias"], eps))
    else:
        L, H, eps = config["num_hidden_layers"], config["num_attention_heads"], config["layer_norm_eps"]
        d = config["hidden_size"]
        e = "embeddings."
        h = t[e + "word_embeddings.weight"][ids] + t[e + "position_embeddings.weight"][:n] \
            + t[e + "token_type_embeddings.weight"][0]
        h = _ln(h, t[e + "LayerNorm.weight"], t[e + "LayerNorm.bias"], eps)
        for l in range(L):
            p = f"encoder.layer.{l}."
            h = edit(h, l)  # the attention input of a BERT layer is its hidden state
            hidden.append(h)
            attn_input.append(h)
            s = p + "attention.self."

            def lin(name):  # nn.Linear stores (out, in): x @ W.T + b
                return t[name + ".weight"].T, t[name + ".bias"]

            (wq, bq), (wk, bk), (wv, bv) = lin(s + "query"), lin(s + "key"), lin(s + "value")
            heads, merged = _heads(h, wq, bq, wk, bk, wv, bv, H, False, {hh for ll, hh in knocked if ll == l},
                                   math.sqrt(d // H))
            layers.append(heads)
            wo, bo = lin(p + "attention.output.dense")
            h = _ln(h + merged @ wo + bo, t[p + "attention.output.LayerNorm.weight"],
                    t[p + "attention.output.LayerNorm.bias"], eps)
            wi, bi = lin(p + "intermediate.dense")
            wout, bout = lin(p + "output.dense")
            h = _ln(h + _gelu_erf(h @ wi + bi) @ wout + bout, t[p + "output.LayerNorm.weight"],
                    t[p + "output.LayerNorm.bias"], eps)
        hidden.append(h)
    stack = {key: np.array([[hd[key] for hd in layer] for layer in layers])
             for key in ("q", "k", "v", "scores", "weights", "context")}
    return dict(hidden=np.array(hidden), attn_input=np.array(attn_input), **stack)
