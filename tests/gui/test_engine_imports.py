"""The app's windows import the engine from the package alone: ``from qkv_engine import views, explain``,
never ``from qkv_engine.views import ...`` or ``import qkv_engine.session_format``. What the windows use is
named in ``qkv_engine/__init__.py``; the engine may move code between its modules without touching them.

Plain pytest: the GUI's source is read with ``ast``, nothing is imported.
"""
from __future__ import annotations

import ast
from pathlib import Path

import qkv_engine

GUI = Path(__file__).resolve().parents[2] / "qkv_gui"



def submodule_imports(path: Path) -> list[str]:
    """Every ``qkv_engine.<submodule>`` the file imports, as ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("qkv_engine."):
            found.append(f"{node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if a.name.startswith("qkv_engine.")]
    return found


def gui_files() -> dict[str, Path]:
    return {p.relative_to(GUI).as_posix(): p for p in sorted(GUI.rglob("*.py"))}


def test_the_gui_imports_engine_names_from_the_package_only():
    files = gui_files()
    assert len(files) > 40  # the walk found the GUI's source
    offenders = {name: found for name, path in files.items()
                 if (found := submodule_imports(path))}
    assert offenders == {}, "import these from qkv_engine itself (and name them in qkv_engine/__init__.py)"


def test_every_name_the_gui_takes_from_the_package_is_exported():
    taken = set()
    for path in gui_files().values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "qkv_engine":
                taken |= {a.name for a in node.names}
    assert taken and taken <= set(qkv_engine.__all__), sorted(taken - set(qkv_engine.__all__))
    assert all(hasattr(qkv_engine, name) for name in qkv_engine.__all__)


def test_the_check_sees_a_submodule_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import qkv_engine.views as v\nfrom qkv_engine.explain import fixed\nfrom qkv_engine import views\n")
    assert submodule_imports(bad) == ["1: import qkv_engine.views", "2: from qkv_engine.explain import ..."]
