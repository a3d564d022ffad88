"""The layers of the app import one way. Plain pytest: every module's source is parsed with ``ast``; nothing
is imported. A broken rule fails with the file, the line and the import that breaks it.

The rules (the README's developer section says the same):
- the engine imports no Qt and nothing from ``qkv_gui``;
- ``system/`` and ``state/`` draw nothing: they import no layer that draws (look, drawing, labels, panels,
  editors, export, window), no QtWidgets and no pyqtgraph;
- ``look/`` never imports ``drawing/`` or ``labels/`` (items recolour themselves), nor what uses it;
- ``drawing/`` and ``labels/`` import only ``look/``, each other's kind and the engine: they know no Session;
- a panel never imports another panel, an editor, an export or the window; the panels' common parts
  (``panels/*.py``) import no panel, except the catalog, which declares them all;
- editors never import panels, exports or the window; ``export/`` never imports the window;
- only ``app.py`` imports the window (and the package's face, ``qkv_gui/__init__.py``, hands
  ``MainWindow`` on when asked for it).
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QT_DRAWING = ("PySide6.QtWidgets", "pyqtgraph")
DRAWS = ("look", "drawing", "labels", "panels", "editors", "export", "window")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in the file, ``from X import a`` giving X.a too (a may be a
    submodule)."""
    return _imports_in(path, path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def _imports_in(path: Path, text: str) -> list[tuple[int, str]]:
    tree = ast.parse(text, filename=str(path))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found.append((node.lineno, source))
            found += [(node.lineno, f"{source}.{a.name}") for a in node.names]
    return found


def layer(module: str) -> str:
    """'qkv_gui.panels.steps.qk_plane' -> 'panels'; 'qkv_gui.app' -> 'app'; 'qkv_engine.x' -> 'engine'."""
    parts = module.split(".")
    if parts[0] == "qkv_engine":
        return "engine"
    if parts[0] != "qkv_gui":
        return "outside"
    return parts[1] if len(parts) > 1 else "face"


def defines_a_panel(path: Path) -> bool:
    """Whether the module defines a panel: a class whose bases name ``Panel`` (directly or as the last one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
            if "Panel" in names:
                return True
    return False


def files() -> list[Path]:
    return sorted(ROOT.joinpath("qkv_gui").rglob("*.py")) + sorted(ROOT.joinpath("qkv_engine").rglob("*.py"))


def broken_rules(paths=None) -> list[str]:
    """Every import that breaks a rule, as 'file:line imports module (rule)'."""
    paths = files() if paths is None else paths
    panel_modules = {module_name(p) for p in paths
                     if module_name(p).startswith(("qkv_gui.panels.steps.", "qkv_gui.panels.labs."))
                     and defines_a_panel(p)}
    broken = []
    for path in paths:
        me = module_name(path)
        mine = layer(me)
        for line, target in imports_of(path):
            where = f"{path.relative_to(ROOT)}:{line} imports {target}"
            theirs = layer(target)
            if mine == "engine":
                if target.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
                    broken.append(f"{where} (the engine imports no Qt)")
                elif theirs not in ("engine", "outside"):
                    broken.append(f"{where} (the engine imports nothing from qkv_gui)")
                continue
            if mine in ("system", "state"):
                if theirs in DRAWS or theirs in ("app", "headless", "face"):
                    broken.append(f"{where} ({mine}/ imports nothing that draws)")
                elif target.startswith(QT_DRAWING):
                    broken.append(f"{where} ({mine}/ draws nothing: no QtWidgets, no pyqtgraph)")
            elif mine == "look":
                if theirs in DRAWS[1:] or theirs in ("state", "app", "headless", "face"):
                    broken.append(f"{where} (look/ imports only the engine and system/: items recolour themselves)")
            elif mine in ("drawing", "labels"):
                if theirs not in ("engine", "outside", "look", "drawing", "labels"):
                    broken.append(f"{where} ({mine}/ imports only look/, drawing/, labels/ and the engine)")
            elif mine == "panels":
                if theirs in ("editors", "export", "window", "app", "headless", "face"):
                    broken.append(f"{where} (a panel never imports an editor, an export or the window)")
                elif target in panel_modules and me != "qkv_gui.panels.catalog" and target != me:
                    broken.append(f"{where} (a panel never imports another panel; only the catalog names them all)")
            elif mine == "editors":
                if theirs in ("panels", "export", "window", "app", "headless", "face"):
                    broken.append(f"{where} (editors never import panels, exports or the window)")
            elif mine == "export":
                if theirs in ("window", "app", "face"):
                    broken.append(f"{where} (export/ never imports the window)")
            if theirs == "window" and mine not in ("window", "app", "face"):
                broken.append(f"{where} (only app.py imports the window)")
    return sorted(set(broken))


def test_every_import_of_the_app_runs_one_way():
    assert broken_rules() == []


def test_the_rules_have_something_to_read():
    names = {module_name(p) for p in files()}
    for needed in ("qkv_gui.system.settings_file", "qkv_gui.state.session", "qkv_gui.look.colours",
                   "qkv_gui.drawing.cell_grid", "qkv_gui.panels.catalog", "qkv_gui.panels.steps.qk_plane",
                   "qkv_gui.panels.labs.model_view", "qkv_gui.window.main_window", "qkv_gui.app"):
        assert needed in names


@pytest.mark.parametrize("where, code, rule", [
    ("qkv_gui/look/planted.py", "from ..drawing.text_label import TextLabel\n", "look/ imports only"),
    ("qkv_gui/state/planted.py", "from PySide6 import QtWidgets\n", "state/ draws nothing"),
    ("qkv_gui/drawing/planted.py", "from ..state.session import Session\n", "drawing/ imports only"),
    ("qkv_gui/panels/steps/planted.py", "from .softmax_pie import SoftmaxPanel\n", "never imports another panel"),
    ("qkv_gui/editors/planted.py", "from ..panels.steps import qk_plane\n", "editors never import"),
    ("qkv_gui/export/planted.py", "from ..window.main_window import MainWindow\n", "export/ never imports"),
    ("qkv_engine/planted.py", "import pyqtgraph\n", "the engine imports no Qt"),
])
def test_a_planted_wrong_import_is_named(where, code, rule, monkeypatch):
    """Each rule catches a wrong import, named with its file and line (the file is parsed, never written)."""
    planted = ROOT / where
    real_read = Path.read_text

    def read(self, *args, **kwargs):
        return code if self == planted else real_read(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read)
    found = broken_rules(files() + [planted])
    assert any(f.startswith(f"{where}:1 imports") and rule in f for f in found), found
