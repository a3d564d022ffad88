"""Finding the shipped data files (lessons, icons) relative to the code.

An installed copy has them in the package ``qkv_resources``; a source
checkout has them in ``resources/`` beside ``qkv_gui/``.
"""
from __future__ import annotations

from pathlib import Path


def resource_dir() -> Path:
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "resources").is_dir():
        return checkout / "resources"
    import qkv_resources

    return Path(qkv_resources.__file__).resolve().parent


def resource(*parts: str) -> Path:
    return resource_dir().joinpath(*parts)
