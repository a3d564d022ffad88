"""The Llama family (Llama 2 and 3, TinyLlama, SmolLM, Mistral without a sliding window) and Qwen2:
what config.json says and where each tensor is.

One layer, pre-norm, RMSNorm, rotary positions, grouped keys and values (GQA):

    a = RMSNorm_in(h)                         input_layernorm
    q = a W_q (+ b_q)   H heads of d_head     k, v = a W_k, a W_v (+ b)   KV heads of d_head
    query head h reads key/value head h // (H / KV)
    h = h + [heads] W_o
    h = h + down(silu(gate(m)) * up(m)),  m = RMSNorm_post(h)

Qwen2 has biases on q, k and v (not on o); Llama has them only when ``attention_bias``.
The checkpoint's ``nn.Linear`` weights are (out, in) and are used transposed.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import ModelError
from .config_values import small_positive, whole
from .rope_config import read_rope

FAMILIES = ("llama", "mistral", "qwen2")


def _divides(folder: Path, what: str, big: int, small: int, small_what: str) -> None:
    if big % small:
        raise ModelError(f"config.json in {folder}: {big} {what} do not split evenly into {small} {small_what}")


def llama_architecture(kind: str, config: dict, folder: Path) -> dict:
    """The Architecture fields of a llama / mistral / qwen2 config."""
    d = whole(config, folder, "hidden_size")
    heads = whole(config, folder, "num_attention_heads")
    kv = whole(config, folder, "num_key_value_heads", default=heads)
    _divides(folder, "query heads", heads, kv, "key/value heads")
    if config.get("head_dim") is None:
        _divides(folder, "numbers per token", d, heads, "heads")
    d_head = whole(config, folder, "head_dim", default=d // heads)
    max_tokens = whole(config, folder, "max_position_embeddings", default=2048)
    window = None
    if kind == "mistral" or (kind == "qwen2" and config.get("use_sliding_window")):
        w = config.get("sliding_window")
        window = whole(config, folder, "sliding_window") if w is not None else None
    qkv_bias = kind == "qwen2" or bool(config.get("attention_bias", False))
    return dict(
        family="llama", n_layers=whole(config, folder, "num_hidden_layers"), n_heads=heads, d_model=d,
        d_ff=whole(config, folder, "intermediate_size"), vocab_size=whole(config, folder, "vocab_size"),
        max_tokens=max_tokens, eps=small_positive(config, folder, "rms_norm_eps", 1e-6),
        activation=config.get("hidden_act", "silu"), pre_norm=True, causal=True, scale=True,
        layer_scaled=False, token_types=False, n_kv_heads=kv, head_dim=d_head, norm="rms", gated=True,
        rope=read_rope(config, folder, d_head, max_tokens), sliding_window=window,
        qkv_bias=qkv_bias, o_bias=kind != "qwen2" and bool(config.get("attention_bias", False)),
        mlp_bias=bool(config.get("mlp_bias", False)),
        tied=bool(config.get("tie_word_embeddings", False)))  # also tied when the checkpoint has no lm_head


def llama_layer_names(arch, i: int) -> dict:
    """(checkpoint name, expected (out, in) shape, transpose) of each part of layer ``i``."""
    d, f, dh, H, KV = arch.d_model, arch.d_ff, arch.d_head, arch.n_heads, arch.kv_heads
    p = f"layers.{i}."
    a, m = p + "self_attn.", p + "mlp."
    names = {
        "w_qkv": ([a + "q_proj.weight", a + "k_proj.weight", a + "v_proj.weight"],
                  [(H * dh, d), (KV * dh, d), (KV * dh, d)], True),
        "w_o": (a + "o_proj.weight", (d, H * dh), True),
        "ln_attn": p + "input_layernorm", "ln_ffn": p + "post_attention_layernorm",
        "w_in": ([m + "gate_proj.weight", m + "up_proj.weight"], [(f, d), (f, d)], True),
        "w_out": (m + "down_proj.weight", (d, f), True),
    }
    if arch.qkv_bias:
        names["b_qkv"] = ([a + "q_proj.bias", a + "k_proj.bias", a + "v_proj.bias"], [(H * dh,), (KV * dh,), (KV * dh,)])
    if arch.o_bias:
        names["b_o"] = (a + "o_proj.bias", (d,))
    if arch.mlp_bias:
        names["b_in"] = ([m + "gate_proj.bias", m + "up_proj.bias"], [(f,), (f,)])
        names["b_out"] = (m + "down_proj.bias", (d,))
    return names


def llama_embedding_names(arch) -> dict:
    return {"word": ("embed_tokens.weight", (arch.vocab_size, arch.d_model)), "ln_final": "norm"}
