"""The forward pass of a BERT or GPT-2 model in numpy (float32), keeping every head's numbers.

One layer, n tokens, d numbers per token, H heads of d_head = d / H:

    a = attention input        BERT: the hidden state h;  GPT-2: LayerNorm_1(h)
    Q | K | V = a W_qkv + b    n x 3d, each split into H heads: H x n x d_head
    S = Q K^T                  H x n x n  raw scores
    A = softmax(S / sqrt(d_head), masked keys set to the lowest float first)
    C = A V                    H x n x d_head  (0 for a knocked-out head)
    O = [C_1 ... C_H] W_o + b_o
    BERT:  h = LN(a + O);  h = LN(h + FF(h))        GPT-2: h = h + O;  h = h + FF(LN_2(h))
    FF(z) = act(z W_in + b_in) W_out + b_out

GPT-2 ends with a final LayerNorm (ln_f), applied to the last hidden state as in
the transformers library's ``hidden_states``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .architecture import Architecture, LayerWeights, Weights

F32 = np.float32
_SQRT_2_OVER_PI = F32(math.sqrt(2.0 / math.pi))
_SQRT_HALF = F32(math.sqrt(0.5))


def layer_norm(x: np.ndarray, gain_bias: tuple, eps: float) -> np.ndarray:
    """(x - mean) / sqrt(variance + eps) * gain + bias, over each token's numbers."""
    gain, bias = gain_bias
    centred = x - x.mean(axis=-1, keepdims=True)
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + F32(eps)) * gain + bias


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise, in float32 (Abramowitz and Stegun 7.1.26: error below 1.5e-7,
    about the size of float32 rounding)."""
    a = np.abs(x)
    t = F32(1.0) / (F32(1.0) + F32(0.3275911) * a)
    poly = F32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly = poly * t + F32(c)
    y = F32(1.0) - poly * t * np.exp(-(a * a))
    return np.copysign(y, x)


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU: x Phi(x) = x (1 + erf(x / sqrt 2)) / 2."""
    return F32(0.5) * x * (F32(1.0) + erf(x * _SQRT_HALF))


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """GPT-2's GELU: x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2."""
    inner = x * x
    inner *= F32(0.044715)
    inner += F32(1.0)
    inner *= x
    inner *= _SQRT_2_OVER_PI
    np.tanh(inner, out=inner)
    inner += F32(1.0)
    inner *= x
    inner *= F32(0.5)
    return inner


def silu(x: np.ndarray) -> np.ndarray:
    return x / (F32(1.0) + np.exp(-x))


ACTIVATION = {
    "gelu": gelu,
    "gelu_new": gelu_tanh,
    "gelu_pytorch_tanh": gelu_tanh,
    "gelu_fast": gelu_tanh,
    "relu": lambda x: np.maximum(x, F32(0.0)),
    "silu": silu,
    "swish": silu,
}


@dataclass
class LayerEdits:
    """What-if changes to one layer, in the layout of LayerWeights."""

    qkv: list  # (row, column of w_qkv, value); row -1: the bias b_qkv
    inputs: list  # (token, dim, value) of the attention input
    knocked: list  # heads whose output is set to zero


@dataclass
class Forward:
    """Every intermediate of one run, float32, layers first."""

    attn_input: np.ndarray  # L x n x d
    q: np.ndarray  # L x H x n x d_head
    k: np.ndarray
    v: np.ndarray
    context: np.ndarray
    scores: np.ndarray  # L x H x n x n
    weights: np.ndarray
    hidden: np.ndarray  # (L + 1) x n x d
    allowed: np.ndarray  # n x n bool


def edited_qkv(layer: LayerWeights, edits: LayerEdits | None) -> tuple[np.ndarray, np.ndarray]:
    """W_qkv and b_qkv with the layer's edits in (copies only when something is edited)."""
    w, b = layer.w_qkv, layer.b_qkv
    if edits is None or not edits.qkv:
        return w, b
    if any(row >= 0 for row, _, _ in edits.qkv):
        w = w.copy()
    if any(row < 0 for row, _, _ in edits.qkv):
        b = b.copy()
    for row, col, value in edits.qkv:
        if row < 0:
            b[col] = value
        else:
            w[row, col] = value
    return w, b


def resume_from(arch: Architecture, old: dict, new: dict) -> int:
    """The layer a run with layer edits ``new`` may start from, given an earlier run on the same tokens with
    layer edits ``old`` (``run``'s ``start``; 0: from the beginning). It is the first layer whose edits
    differ, at most the last layer (the last hidden state of GPT-2 is stored after its final LayerNorm).
    In BERT an edit of a layer's input is written into that layer's stored hidden state: a run may start
    there only if the new edits overwrite every number the old ones did."""
    start = next((li for li in range(arch.n_layers) if old.get(li) != new.get(li)), arch.n_layers - 1)
    if not arch.pre_norm and start > 0:
        before = {(t, dim) for t, dim, _ in (old[start].inputs if start in old else ())}
        after = {(t, dim) for t, dim, _ in (new[start].inputs if start in new else ())}
        if not before <= after:
            return 0
    return start


def divisor(arch: Architecture, layer: int) -> float:
    """What layer ``layer``'s raw scores are divided by: sqrt(d_head), and (layer + 1) in GPT-2's
    scale_attn_by_inverse_layer_idx."""
    div = math.sqrt(arch.d_head) if arch.scale else 1.0
    return div * (layer + 1) if arch.layer_scaled else div


def run(arch: Architecture, w: Weights, ids: np.ndarray, edits: dict, start: int = 0, before=None) -> Forward:
    """The whole model on token ids ``ids``; ``edits`` maps a layer to its LayerEdits.

    With ``start`` > 0, the layers below ``start`` are taken from ``before`` (an earlier run on the same ids
    whose edits below ``start`` were the same, a Forward or a ModelTrace) and the run goes on from layer
    ``start``'s hidden state there: the same numbers as a whole run (``resume_from`` says when it may)."""
    n, d, H, dh, L = len(ids), arch.d_model, arch.n_heads, arch.d_head, arch.n_layers
    act = ACTIVATION[arch.activation]
    allowed = np.tril(np.ones((n, n), dtype=bool)) if arch.causal else np.ones((n, n), dtype=bool)
    out = Forward(
        attn_input=np.zeros((L, n, d), F32), q=np.zeros((L, H, n, dh), F32), k=np.zeros((L, H, n, dh), F32),
        v=np.zeros((L, H, n, dh), F32), context=np.zeros((L, H, n, dh), F32),
        scores=np.zeros((L, H, n, n), F32), weights=np.zeros((L, H, n, n), F32),
        hidden=np.zeros((L + 1, n, d), F32), allowed=allowed,
    )
    if start > 0:
        for name in ("attn_input", "q", "k", "v", "context", "scores", "weights"):
            getattr(out, name)[:start] = getattr(before, name)[:start]
        out.hidden[:start + 1] = before.hidden[:start + 1]
        h = out.hidden[start].copy()
    else:
        h = w.word[ids] + w.position[:n]  # n x d
        if w.token_type is not None:
            h = h + w.token_type
        if w.ln_embed is not None:
            h = layer_norm(h, w.ln_embed, arch.eps)
        out.hidden[0] = h
    lowest = np.finfo(F32).min
    for li in range(start, L):
        layer = w.layers[li]
        ed = edits.get(li)
        a = layer_norm(h, layer.ln_attn, arch.eps) if arch.pre_norm else h
        if ed is not None and ed.inputs:
            a = a.copy()
            for token, dim, value in ed.inputs:
                if token < n:  # an edit of a token the sentence no longer has waits for it
                    a[token, dim] = value
            if not arch.pre_norm:  # in BERT the attention input is the hidden state itself
                h = a
                out.hidden[li] = a
        out.attn_input[li] = a
        w_qkv, b_qkv = edited_qkv(layer, ed)
        qkv = a @ w_qkv + b_qkv  # n x 3d
        q, k, v = (qkv[:, p * d:(p + 1) * d].reshape(n, H, dh).transpose(1, 0, 2) for p in range(3))  # H x n x dh
        scores = q @ k.transpose(0, 2, 1)  # H x n x n
        if n:
            z = scores / F32(divisor(arch, li))
            if arch.causal:
                z = np.where(allowed, z, lowest)
            z -= z.max(axis=-1, keepdims=True)
            np.exp(z, out=z)
            z /= z.sum(axis=-1, keepdims=True)
        else:
            z = scores
        context = z @ v  # H x n x dh
        if ed is not None:
            for head in ed.knocked:
                context[head] = 0.0
        out.q[li], out.k[li], out.v[li], out.scores[li], out.weights[li], out.context[li] = q, k, v, scores, z, context
        o = context.transpose(1, 0, 2).reshape(n, d) @ layer.w_o + layer.b_o  # n x d
        if arch.pre_norm:
            h = h + o
            f = act(layer_norm(h, layer.ln_ffn, arch.eps) @ layer.w_in + layer.b_in) @ layer.w_out + layer.b_out
            h = h + f
        else:
            h = layer_norm(a + o, layer.ln_attn, arch.eps)
            f = act(h @ layer.w_in + layer.b_in) @ layer.w_out + layer.b_out
            h = layer_norm(h + f, layer.ln_ffn, arch.eps)
        out.hidden[li + 1] = h
    if w.ln_final is not None:
        out.hidden[L] = layer_norm(h, w.ln_final, arch.eps)
    return out
