"""The model QKV Visualizer ships: its name and its folder, found beside the code (no cache, no network).

    from qkv_engine.models.builtin import BUILTIN_NAME, builtin_model_path
    model = load_model(builtin_model_path())

The folder is ``resources/models/<BUILTIN_NAME>/`` in a source checkout and inside the installed
package ``qkv_resources`` otherwise (as the app finds its lessons). It holds config.json,
model.safetensors (float16), tokenizer.json and MODEL_CARD.md; tools/train_builtin_model.py made it.
"""
from __future__ import annotations

import json
from pathlib import Path

BUILTIN_NAME = "qkv-tiny-llama"


def _resources() -> Path:
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "resources").is_dir():
        return checkout / "resources"
    import qkv_resources

    return Path(qkv_resources.__file__).resolve().parent


def builtin_model_path() -> Path:
    """The built-in model's folder (it exists in every checkout and installed copy)."""
    return _resources() / "models" / BUILTIN_NAME


def known_words() -> list[str]:
    """The words and marks the built-in model knows (its WordLevel vocabulary, without [UNK] and [BOS]),
    sorted: Help lists them."""
    vocab = json.loads((builtin_model_path() / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    return sorted(word for word in vocab if not (word.startswith("[") and word.endswith("]")))
