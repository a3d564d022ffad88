"""The engine is plain Python and numpy: it never loads Qt, and it runs on every Python the project supports."""
from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

QT_MODULES = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "qtpy")
PROJECT = Path(__file__).resolve().parents[2]


def engine_dir() -> Path:
    # Found without importing it, so these checks run even if the import fails.
    spec = importlib.util.find_spec("qkv_engine")
    assert spec is not None and spec.submodule_search_locations, "qkv_engine is not importable"
    return Path(list(spec.submodule_search_locations)[0])


def engine_files() -> list[Path]:
    files = sorted(engine_dir().rglob("*.py"))
    assert len(files) >= 10
    return files


def module_name(path: Path) -> str:
    """``qkv_engine/models/model.py`` -> ``qkv_engine.models.model``."""
    return ".".join(("qkv_engine",) + path.relative_to(engine_dir()).with_suffix("").parts)


def test_importing_the_engine_loads_no_qt():
    modules = ["qkv_engine"] + [module_name(p) for p in engine_files() if p.stem != "__init__"]
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "import qkv_engine\n"
        "qkv_engine.compute(qkv_engine.presets.load('seed-cat'))\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=engine_dir().parent,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


_IMPORT = re.compile(
    r"^\s*(?:from|import)\s+(?:%s)\b|(?:__import__|import_module)\(\s*['\"](?:%s)\b"
    % ("|".join(QT_MODULES), "|".join(QT_MODULES)),
    re.MULTILINE,
)


def test_no_engine_file_imports_qt():
    offenders = []
    for path in engine_files():
        for match in _IMPORT.finditer(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.name}: {match.group(0).strip()}")
    assert offenders == []


def test_the_qt_import_check_catches_imports():
    # The pattern above must see the usual ways of importing Qt.
    for line in ("import PySide6", "from PySide6.QtCore import QObject", "    import pyqtgraph as pg",
                 "from shiboken6 import isValid", "importlib.import_module('PySide6.QtGui')"):
        assert _IMPORT.search(line), line
    assert not _IMPORT.search('"""Never imports Qt: no PySide6 here."""')


def _minimum_python() -> tuple[int, int]:
    text = (PROJECT / "pyproject.toml").read_text(encoding="utf-8")
    m = re.search(r'requires-python\s*=\s*">=\s*(\d+)\.(\d+)', text)
    assert m, "pyproject.toml declares no minimum Python"
    return int(m.group(1)), int(m.group(2))


@pytest.mark.parametrize("path", engine_files(), ids=lambda p: p.name)
def test_engine_file_compiles_on_this_python(path):
    source = path.read_text(encoding="utf-8")
    try:
        compile(source, str(path), "exec")
    except SyntaxError as exc:
        pytest.fail(f"{path.name} line {exc.lineno}: {exc.msg}: {(exc.text or '').strip()}")


@pytest.mark.parametrize("path", engine_files(), ids=lambda p: p.name)
def test_engine_file_uses_no_syntax_newer_than_the_minimum_python(path):
    # pyproject.toml promises the oldest Python the app runs on; the grammar of
    # every engine file must be accepted by that version.
    minimum = _minimum_python()
    source = path.read_text(encoding="utf-8")
    try:
        ast.parse(source, str(path), feature_version=minimum)
    except SyntaxError as exc:
        pytest.fail(f"{path.name} line {exc.lineno} needs a Python newer than "
                    f"{minimum[0]}.{minimum[1]}: {exc.msg}: {(exc.text or '').strip()}")


def test_opening_and_running_a_model_loads_no_torch_transformers_or_hub():
    # Trained models are read with safetensors and tokenizers only: never torch (pickles), never the
    # transformers library, never huggingface_hub (it could reach the network).
    banned = ("torch", "transformers", "huggingface_hub", "tensorflow", "jax", "scipy") + QT_MODULES
    model = PROJECT / "tests" / "data" / "tiny-bert"
    code = (
        "import json, sys\n"
        "from qkv_engine.models import load_model\n"
        f"m = load_model({str(model)!r})\n"
        "m.head_scenario(m.run('the cat sat'), 1, 1)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {banned!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=engine_dir().parent, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_importing_the_engine_does_not_load_the_model_libraries():
    # safetensors and tokenizers are imported when a model is opened, not when the app starts.
    code = ("import json, sys, qkv_engine, qkv_engine.models\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('safetensors', 'tokenizers'))))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=engine_dir().parent, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
