"""Checked numbers from config.json: whole counts above 0 and small positive epsilons, or a one-line ModelError."""
from __future__ import annotations

from pathlib import Path

from ..errors import ModelError


def whole(config: dict, folder: Path, *keys, default=None) -> int:
    """The first of ``keys`` that config.json gives, as a whole number above 0 (else ``default``)."""
    for key in keys:
        if config.get(key) is not None:
            value = config[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ModelError(f"config.json in {folder}: {key} must be a whole number above 0, got {value!r}")
            return value
    if default is not None:
        return default
    raise ModelError(f"config.json in {folder} has no {keys[0]}: it does not describe a complete model")


def small_positive(config: dict, folder: Path, key: str, default: float) -> float:
    """config.json's ``key`` (else ``default``) as a number between 0 and 1, such as a norm's epsilon."""
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ModelError(f"config.json in {folder}: {key} must be a small positive number, got {value!r}")
    return float(value)
