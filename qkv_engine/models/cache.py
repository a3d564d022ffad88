"""Models already on this computer: the one the app ships, the Hugging Face cache and folders opened before.
No network.

The cache (``HF_HUB_CACHE``, else ``HF_HOME/hub``, else ``XDG_CACHE_HOME/huggingface/hub``,
else ``~/.cache/huggingface/hub``) holds one folder per repository,
``models--ORG--NAME/snapshots/REV/``, whose files are often symlinks into ``blobs/``.
Each snapshot is checked cheaply (config, weights file and its header, tokenizer
files) without reading any weights; one that cannot be opened says why in one line.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError
from .architecture import architecture
from .checkpoint import read_config, read_header, weight_files
from .builtin import BUILTIN_NAME, builtin_model_path
from .model import KIND_NAMES, model_name


#: A family's name as the lists show it, when its config's model_type is not known (the llama family is Qwen2's too).
FAMILY_NAMES = {**KIND_NAMES, "llama": "Llama / Qwen2"}


@dataclass(frozen=True)
class FoundModel:
    name: str  # "ORG/NAME" for the cache (with the revision when there are several), else a readable name
    path: Path  # the folder to give load_model
    family: str | None  # "bert" | "gpt2" | "llama" when known
    problem: str | None  # why it cannot be opened, in one line; None when it looks fine
    builtin: bool = False  # the model the app ships (listed first)
    model_type: str | None = None  # config.json's model_type ("qwen2") when known

    @property
    def kind(self) -> str:
        """The model's kind as a list shows it ("Qwen2", "GPT-2"; model.KIND_NAMES, else its family's name),
        "built in" added for the model the app ships."""
        name = KIND_NAMES.get(self.model_type or "") or FAMILY_NAMES.get(self.family or "", self.family or "?")
        return f"{name}, built in" if self.builtin else name


def hf_cache_dir(environ=os.environ) -> Path:
    """Where the Hugging Face hub keeps downloaded models on this computer."""
    for key in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if environ.get(key):
            return Path(os.path.expanduser(environ[key]))
    if environ.get("HF_HOME"):
        return Path(os.path.expanduser(environ["HF_HOME"])) / "hub"
    if environ.get("XDG_CACHE_HOME"):
        return Path(os.path.expanduser(environ["XDG_CACHE_HOME"])) / "huggingface" / "hub"
    return Path(os.path.expanduser("~")) / ".cache" / "huggingface" / "hub"


def inspect(folder: Path) -> tuple[str | None, str | None, str | None]:
    """(family, problem, model_type) of a model folder, without reading its weights."""
    family = model_type = None
    try:
        files = weight_files(folder)
        config, _ = read_config(folder)
        arch = architecture(config, folder)
        family, model_type = arch.family, arch.model_type
        for path in files:
            read_header(path)
        if not (folder / "tokenizer.json").is_file():
            if family == "bert" and not (folder / "vocab.txt").is_file():
                raise ModelError(f"No tokenizer in {folder}: expected tokenizer.json (or vocab.txt)")
            if family == "llama":
                raise ModelError(f"No tokenizer in {folder}: expected tokenizer.json")
            if family == "gpt2" and not ((folder / "vocab.json").is_file() and (folder / "merges.txt").is_file()):
                raise ModelError(f"No tokenizer in {folder}: expected tokenizer.json (or vocab.json and merges.txt)")
    except ModelError as exc:
        return family, str(exc), model_type
    except OSError as exc:
        return family, f"{folder} cannot be read: {exc.strerror or exc}", model_type
    return family, None, model_type


def _snapshots(repo: Path) -> list[Path]:
    try:
        return sorted(p for p in (repo / "snapshots").iterdir() if p.is_dir())
    except OSError:
        return []


def find_models(extra=(), environ=os.environ) -> list[FoundModel]:
    """The model the app ships, every snapshot in the Hugging Face cache, then each folder of ``extra`` (e.g.
    those opened before), each once. A folder of ``extra`` that is gone is listed with the problem "not found"."""
    found: list[FoundModel] = []
    seen: set = set()

    def add(name: str, folder: Path) -> None:
        key = os.path.realpath(folder)
        if key in seen:
            return
        seen.add(key)
        if not folder.is_dir():
            found.append(FoundModel(name, folder, None, f"{folder}: not found"))
            return
        family, problem, model_type = inspect(folder)
        found.append(FoundModel(name, folder, family, problem, model_type=model_type))

    ours = builtin_model_path()
    if ours.is_dir():
        family, problem, model_type = inspect(ours)
        seen.add(os.path.realpath(ours))
        found.append(FoundModel(f"{BUILTIN_NAME} (built in)", ours, family, problem, builtin=True,
                                model_type=model_type))
    cache = hf_cache_dir(environ)
    try:
        repos = sorted(p for p in cache.iterdir() if p.is_dir() and p.name.startswith("models--"))
    except OSError:
        repos = []
    for repo in repos:
        repo_name = "/".join(repo.name.split("--")[1:])
        snaps = _snapshots(repo)
        for snap in snaps:
            add(repo_name if len(snaps) == 1 else f"{repo_name} ({snap.name[:7]})", snap)
    for folder in extra:
        folder = Path(os.path.expanduser(os.fspath(folder)))
        try:
            config, _ = read_config(folder)
        except ModelError:
            config = {}
        add(model_name(folder, config), folder)
    return found
