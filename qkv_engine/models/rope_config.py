"""A RoPE model's rotation speeds, read from config.json as the transformers library reads them.

Two layouts: older files give ``rope_theta`` and ``rope_scaling`` ({"type" or "rope_type", ...});
newer ones give ``rope_parameters`` ({"rope_type", "rope_theta", ...}). Scaling types:

    default   f_i = 1 / theta^(2i / d)
    linear    f_i / factor
    llama3    with L = original_max_position_embeddings and wavelength w_i = 2 pi / f_i:
              w_i < L / high_freq_factor  ->  f_i (kept)
              w_i > L / low_freq_factor   ->  f_i / factor
              between: (1 - s) f_i / factor + s f_i,  s = (L / w_i - low) / (high - low)

Any other type (dynamic, yarn, longrope, ...) is refused, naming it. Worked out in float32.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..rotary import DEFAULT_THETA, inverse_frequencies

F32 = np.float32
ROPE_TYPES = ("default", "linear", "llama3")


@dataclass(frozen=True)
class Rope:
    """How a RoPE model turns its queries and keys."""

    theta: float
    kind: str  # one of ROPE_TYPES
    frequencies: np.ndarray  # d_head/2 float32, scaling applied: pair i turns by position x frequencies[i]


def _number(params: dict, key: str, folder: Path, positive: bool = True) -> float:
    value = params.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or (positive and value <= 0):
        raise ModelError(f"config.json in {folder}: the RoPE setting {key} must be a positive number, got {value!r}")
    return float(value)


def rope_settings(config: dict, folder: Path) -> dict:
    """One dict {rope_type, rope_theta, ...} from either layout."""
    params = config.get("rope_parameters")
    if params is None:
        params = config.get("rope_scaling")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ModelError(f"config.json in {folder}: rope_parameters / rope_scaling must be an object, got {params!r}")
    params = dict(params)
    if any(isinstance(v, dict) for v in params.values()):
        raise ModelError(f"config.json in {folder} gives different RoPE settings per layer type, which this app "
                         f"does not run")
    params.setdefault("rope_type", params.get("type", "default"))
    params.setdefault("rope_theta", config.get("rope_theta", DEFAULT_THETA))
    if params["rope_theta"] is None:
        params["rope_theta"] = DEFAULT_THETA
    return params


def read_rope(config: dict, folder: Path, d_head: int, max_tokens: int) -> Rope:
    """The rotation of a Llama / Qwen2 / Mistral config (see the module docstring)."""
    params = rope_settings(config, folder)
    kind = params["rope_type"]
    if kind not in ROPE_TYPES:
        raise ModelError(f"config.json in {folder} uses RoPE scaling '{kind}', which this app cannot run "
                         f"(it runs {', '.join(ROPE_TYPES)})")
    partial = params.get("partial_rotary_factor", config.get("partial_rotary_factor", 1.0))
    if partial not in (None, 1, 1.0):
        raise ModelError(f"config.json in {folder}: partial_rotary_factor {partial!r} (a rotation of only part "
                         f"of each head) is not supported")
    theta = _number(params, "rope_theta", folder)
    f = inverse_frequencies(d_head, theta)
    if kind == "linear":
        f = (f / F32(_number(params, "factor", folder))).astype(F32)
    elif kind == "llama3":
        f = _llama3(f, params, folder, max_tokens)
    return Rope(theta=theta, kind=kind, frequencies=f)


def _llama3(f: np.ndarray, params: dict, folder: Path, max_tokens: int) -> np.ndarray:
    """Llama 3.1's frequency scaling, step for step as transformers' ``_compute_llama3_parameters``."""
    factor = F32(_number(params, "factor", folder))
    low = _number(params, "low_freq_factor", folder)
    high = _number(params, "high_freq_factor", folder)
    if high <= low:
        raise ModelError(f"config.json in {folder}: high_freq_factor ({high:g}) must be above low_freq_factor "
                         f"({low:g})")
    original = params.get("original_max_position_embeddings", max_tokens)
    old = _number({"original_max_position_embeddings": original}, "original_max_position_embeddings", folder)
    low_wavelength, high_wavelength = old / low, old / high
    wavelength = F32(2 * math.pi) / f  # float32, as the library
    scaled = np.where(wavelength > low_wavelength, f / factor, f).astype(F32)
    smooth = ((F32(old) / wavelength - F32(low)) / F32(high - low)).astype(F32)
    smoothed = ((F32(1) - smooth) * scaled / factor + smooth * scaled).astype(F32)
    medium = ~(wavelength < high_wavelength) & ~(wavelength > low_wavelength)
    return np.where(medium, smoothed, scaled).astype(F32)
