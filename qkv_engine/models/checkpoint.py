"""Reading a model folder: config.json and the tensors of model.safetensors, nothing else.

A model folder (a Hugging Face download) holds ``config.json``, ``model.safetensors``
(or ``model.safetensors.index.json`` and its shards) and the tokenizer files. Pickle
checkpoints (``pytorch_model.bin``, ``*.pt``, ``*.ckpt``) are never opened: loading one
can run any code. Every problem is a one-line ModelError naming the folder.

Tensors are read with the ``safetensors`` library; bfloat16 tensors, which numpy
cannot hold, are read from the file's header and bytes here. Every float tensor comes
back as float32, or in the file's width on request (float16; bfloat16 as its raw 16 bits,
see widths.py); integer buffers (``position_ids``) are skipped.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import numpy as np

from ..errors import ModelError
from .widths import bfloat16_bits_to_float32
from .builtin import BUILTIN_NAME, builtin_model_path

CONFIG = "config.json"
WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"
#: Files that hold pickles (loading one can run code): named in messages, never opened.
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
#: Other weight formats this app does not read.
OTHER_WEIGHTS = (".h5", ".msgpack", ".onnx", ".gguf", ".ggml", ".npz")
CONVERT = ("convert it on another machine that has the transformers library: load the model there and "
           "save it again with save_pretrained(folder, safe_serialization=True)")
#: The file names a user may pick instead of their folder.
_MODEL_FILES = (CONFIG, WEIGHTS, INDEX, "tokenizer.json", "tokenizer_config.json", "vocab.txt", "vocab.json",
                "merges.txt")
_FLOAT_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16}
_SKIPPED_DTYPES = ("I64", "I32", "I16", "I8", "U64", "U32", "U16", "U8", "BOOL")
_MAX_HEADER = 100_000_000  # the safetensors format's own limit on the JSON header


# ----- the folder ------------------------------------------------------------------------------
#: What names the built-in model where a folder is expected (``--model builtin``).
BUILTIN_NAMES = ("builtin", BUILTIN_NAME)


def model_folder(path) -> Path:
    """The model folder ``path`` names: the folder itself, the folder of a model file picked by
    mistake, the snapshot of a Hugging Face cache entry (``models--ORG--NAME``), or the built-in model's folder
    for "builtin" or its name (when no folder of that name is here)."""
    try:
        given = os.fspath(path)
    except TypeError:
        raise ModelError(f"{path!r} is not a folder name") from None
    if isinstance(given, str) and given in BUILTIN_NAMES and not os.path.exists(given):
        return builtin_model_path()  # "builtin" or the model's name: the model the app ships
    folder = Path(os.path.abspath(os.path.expanduser(given)))  # sessions keep a full path
    if folder.is_file() and folder.name in _MODEL_FILES:
        folder = folder.parent
    if not folder.exists():
        raise ModelError(f"{folder}: not found")
    if not folder.is_dir():
        raise ModelError(f"{folder} is not a folder: choose the folder that holds config.json and model.safetensors")
    snapshots = folder / "snapshots"
    if not (folder / CONFIG).exists() and snapshots.is_dir():
        chosen = _cache_snapshot(folder)
        if chosen is not None:
            return chosen
    return folder


def _cache_snapshot(repo: Path) -> Path | None:
    """The snapshot ``refs/main`` names, else the only (or newest) one."""
    try:
        ref = (repo / "refs" / "main").read_text(encoding="utf-8").strip()
        if ref and (repo / "snapshots" / ref).is_dir():
            return repo / "snapshots" / ref
    except (OSError, UnicodeDecodeError):
        pass
    try:
        snaps = [p for p in (repo / "snapshots").iterdir() if p.is_dir()]
    except OSError:
        return None
    return max(snaps, key=lambda p: p.stat().st_mtime) if snaps else None


def weight_files(folder: Path) -> list[Path]:
    """The safetensors file(s) of ``folder``, or a ModelError that says what is there instead."""
    single = folder / WEIGHTS
    if single.is_file():
        return [single]
    index = folder / INDEX
    if index.is_file():
        return _shards(folder, index)
    try:
        names = sorted(p.name for p in folder.iterdir() if p.is_file())
    except OSError as exc:
        raise ModelError(f"{folder} cannot be read: {exc.strerror or exc}") from None
    pickles = [n for n in names if n.lower().endswith(PICKLE_SUFFIXES)]
    others = [n for n in names if n.lower().endswith(OTHER_WEIGHTS)]
    if not pickles and not others and CONFIG not in names:
        raise ModelError(f"{folder} holds no model: expected config.json and model.safetensors "
                         f"(a Hugging Face model folder)")
    if pickles:
        listed = _listed(pickles)
        verb = "is" if len(pickles) == 1 else "are"
        raise ModelError(f"No model.safetensors in {folder}: only {listed}, which {verb} never opened "
                         f"(loading it can run code). Only model.safetensors is read; {CONVERT}")
    if others:
        raise ModelError(f"No model.safetensors in {folder}: only {_listed(others)}, which this app does not "
                         f"read. Only model.safetensors is read; {CONVERT}")
    raise ModelError(f"No model.safetensors in {folder}: the weights are missing (only model.safetensors is read)")


def _listed(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def weight_map(folder: Path) -> dict | None:
    """The sharded checkpoint's index (tensor name -> shard file name), or None for one model.safetensors."""
    index = folder / INDEX
    if (folder / WEIGHTS).is_file() or not index.is_file():
        return None
    try:
        doc = json.loads(index.read_text(encoding="utf-8"))
        where = doc["weight_map"]
        if not isinstance(where, dict) or not all(isinstance(k, str) for k in where):
            raise TypeError
        return where
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        raise ModelError(f"{INDEX} in {folder} is damaged: it does not list the weight files") from None


def _shards(folder: Path, index: Path) -> list[Path]:
    try:
        files = sorted(set(weight_map(folder).values()))
    except TypeError:  # unhashable file names
        raise ModelError(f"{INDEX} in {folder} is damaged: it does not list the weight files") from None
    paths = []
    for name in files:
        if not isinstance(name, str) or "/" in name or "\\" in name or not name.endswith(".safetensors"):
            raise ModelError(f"{INDEX} in {folder} names {name!r}, which is not a safetensors file beside it")
        if not (folder / name).is_file():
            raise ModelError(f"{name} is missing from {folder} (the weights are split into several files)")
        paths.append(folder / name)
    return paths


# ----- config.json -------------------------------------------------------------------------------
def read_config(folder: Path) -> tuple[dict, str]:
    """config.json as a dict, and the sha256 of its bytes."""
    path = folder / CONFIG
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ModelError(f"No config.json in {folder}: the model's sizes cannot be known without it") from None
    except OSError as exc:
        raise ModelError(f"config.json in {folder} cannot be read: {exc.strerror or exc}") from None
    sha = hashlib.sha256(raw).hexdigest()
    try:
        config = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ModelError(f"config.json in {folder} is not a text file (not UTF-8)") from None
    except json.JSONDecodeError as exc:
        raise ModelError(f"config.json in {folder} is not valid JSON: {exc.msg} at line {exc.lineno}, "
                         f"column {exc.colno}") from None
    if not isinstance(config, dict):
        raise ModelError(f"config.json in {folder} does not describe a model (expected a JSON object)")
    return config, sha


def config_sha256(folder) -> str | None:
    """The sha256 of ``folder``'s config.json, or None when it cannot be read."""
    try:
        return hashlib.sha256((Path(folder) / CONFIG).read_bytes()).hexdigest()
    except OSError:
        return None


# ----- safetensors ---------------------------------------------------------------------------------
def _damaged(path: Path, why: str) -> ModelError:
    return ModelError(f"{path.name} in {path.parent} is damaged or incomplete ({why}): download it again")


def read_header(path: Path) -> tuple[dict, int]:
    """The header of a safetensors file (name -> {dtype, shape, data_offsets}) and where its data starts.
    Checks that every tensor lies inside the file, so a truncated download is caught here."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(8)
            if len(head) < 8:
                raise _damaged(path, "shorter than its header")
            n = int.from_bytes(head, "little")
            if n > min(size - 8, _MAX_HEADER):
                raise _damaged(path, "its header is cut off")
            raw = fh.read(n)
    except OSError as exc:
        raise ModelError(f"{path.name} in {path.parent} cannot be read: {exc.strerror or exc}") from None
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise _damaged(path, "its header is not readable") from None
    if not isinstance(header, dict):
        raise _damaged(path, "its header is not readable")
    header.pop("__metadata__", None)
    data_size = size - 8 - n
    for name, entry in header.items():
        try:
            begin, end = (int(v) for v in entry["data_offsets"])
            shape = [int(v) for v in entry["shape"]]
            dtype = str(entry["dtype"])
        except (KeyError, TypeError, ValueError):
            raise _damaged(path, f"the entry of {name!r} is not readable") from None
        if not 0 <= begin <= end <= data_size:
            raise _damaged(path, f"{name!r} lies past the end of the file")
        entry.update(data_offsets=(begin, end), shape=tuple(shape), dtype=dtype)
    return header, 8 + n


class TensorFile:
    """The tensors of one or more safetensors files (the shards of ``index``, a weight map), read on request."""

    def __init__(self, paths: list[Path], index: dict | None = None):
        self.paths = paths
        self.label = WEIGHTS if index is None else "the weight files"
        self.where: dict[str, tuple[Path, dict, int]] = {}
        for path in paths:
            header, start = read_header(path)
            for name, entry in header.items():
                self.where[name] = (path, entry, start)
        for name, shard in (index or {}).items():
            if name not in self.where or self.where[name][0].name != shard:
                folder = paths[0].parent
                raise ModelError(f"{INDEX} in {folder} puts the tensor '{name}' in {shard}, which does not hold it: "
                                 f"the shards do not match their index")

    def names(self) -> list[str]:
        """Every float tensor's name (integer buffers such as ``position_ids`` are left out)."""
        return [n for n, (_, e, _) in self.where.items() if e["dtype"] not in _SKIPPED_DTYPES]

    def shape(self, name: str) -> tuple:
        return self.where[name][1]["shape"]

    def read(self, names: list[str], keep_width: bool = False) -> dict[str, np.ndarray]:
        """The named tensors as float32 arrays, or with ``keep_width`` as stored (float16 as float16,
        bfloat16 as uint16 bits, float64 as float32)."""
        out: dict[str, np.ndarray] = {}
        by_file: dict[Path, list[str]] = {}
        for name in names:
            by_file.setdefault(self.where[name][0], []).append(name)
        for path, wanted in by_file.items():
            out.update(self._read_file(path, wanted, keep_width))
        return out

    def _read_file(self, path: Path, names: list[str], keep_width: bool) -> dict[str, np.ndarray]:
        from safetensors import SafetensorError, safe_open

        out = {}
        try:
            with safe_open(str(path), framework="numpy") as fh:
                for name in names:
                    entry, start = self.where[name][1], self.where[name][2]
                    dtype = entry["dtype"]
                    if dtype == "BF16":
                        bits = _read_bfloat16(path, entry, start)
                        out[name] = bits if keep_width else bfloat16_bits_to_float32(bits)
                    elif dtype == "F16" and keep_width:
                        out[name] = np.ascontiguousarray(fh.get_tensor(name))
                    elif dtype in _FLOAT_DTYPES:
                        out[name] = np.ascontiguousarray(fh.get_tensor(name), dtype=np.float32)
                    else:
                        raise ModelError(f"{path.name} in {path.parent}: tensor {name!r} is stored as {dtype}, "
                                         f"which this app does not read (float32, float16, bfloat16 or float64)")
        except SafetensorError as exc:
            raise _damaged(path, _short(exc)) from None
        except OSError as exc:
            raise ModelError(f"{path.name} in {path.parent} cannot be read: {exc.strerror or exc}") from None
        return out


def _short(exc: Exception) -> str:
    text = re.sub(r"\s+", " ", str(exc)).strip()
    return text[:120] or type(exc).__name__


def _read_bfloat16(path: Path, entry: dict, start: int) -> np.ndarray:
    """A bfloat16 tensor's raw 16 bits (uint16, its shape): widths.bfloat16_bits_to_float32 widens them."""
    begin, end = entry["data_offsets"]
    count = int(np.prod(entry["shape"], dtype=np.int64))
    if end - begin != 2 * count:
        raise _damaged(path, "a bfloat16 tensor has the wrong number of bytes")
    raw = np.fromfile(path, dtype="<u2", count=count, offset=start + begin)
    if raw.size != count:
        raise _damaged(path, "a bfloat16 tensor is cut off")
    return raw.reshape(entry["shape"])
