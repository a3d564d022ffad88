"""Count the test functions under tests/gui that build a whole MainWindow.

A test builds a window when it asks for the ``window`` or ``make_window`` fixture (directly or through
another fixture defined in its module or a conftest), constructs ``MainWindow(`` itself or through a helper
of its module, or runs a script (a string in its module) that constructs one.

    python -m tests.gui.support.count_windows           # the total
    python -m tests.gui.support.count_windows -v        # and each file's tests
    python -m tests.gui.support.count_windows --direct  # only tests that name the fixtures or MainWindow
                                                        # themselves (not through a fixture or a script)
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

GUI = Path(__file__).resolve().parents[1]
WINDOW_FIXTURES = {"window", "make_window"}


def _is_fixture(node: ast.FunctionDef) -> bool:
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if (isinstance(target, ast.Attribute) and target.attr == "fixture") or \
                (isinstance(target, ast.Name) and target.id == "fixture"):
            return True
    return False


def _params(node: ast.FunctionDef) -> set:
    a = node.args
    return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}


def _names_used(node: ast.AST) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | \
        {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


def _constructs_window(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            if (isinstance(f, ast.Name) and f.id == "MainWindow") or \
                    (isinstance(f, ast.Attribute) and f.attr == "MainWindow"):
                return True
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and "MainWindow(" in n.value:
            return True
    return False


def _functions(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield sub


def _window_names(tree: ast.Module, inherited: set) -> set:
    """Fixtures, helpers and module constants of ``tree`` that build a window (to a fixed point)."""
    building = set(inherited)
    top = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            top[node.name] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    top[t.id] = node
    changed = True
    while changed:
        changed = False
        for name, node in top.items():
            if name in building or name.startswith("test_"):
                continue
            uses = _names_used(node)
            is_fixture = isinstance(node, ast.FunctionDef) and _is_fixture(node)
            if _constructs_window(node) or (is_fixture and _params(node) & building) or \
                    (not is_fixture and uses & (building - WINDOW_FIXTURES) - {name}):
                building.add(name)
                changed = True
    return building


def _conftest_fixtures(path: Path) -> set:
    """Fixtures of the conftests above ``path`` that build a window."""
    found = set(WINDOW_FIXTURES)
    d = path.parent
    confs = []
    while True:
        if (d / "conftest.py").exists():
            confs.append(d / "conftest.py")
        if d == GUI:
            break
        d = d.parent
    for conf in confs:
        found |= {n for n in _window_names(ast.parse(conf.read_text()), WINDOW_FIXTURES)
                  if n not in ("make_window",)}
    return found


def _calls_main_window(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and ((isinstance(n.func, ast.Name) and n.func.id == "MainWindow") or
                                            (isinstance(n.func, ast.Attribute) and n.func.attr == "MainWindow"))
               for n in ast.walk(node))


def window_tests(root: Path = GUI, direct: bool = False) -> dict:
    """{file relative to tests/gui: [names of its test functions that build a window]}. ``direct``: only
    those that ask for ``window`` / ``make_window`` or call ``MainWindow(`` in their own body."""
    out = {}
    for path in sorted(root.rglob("test_*.py")):
        tree = ast.parse(path.read_text())
        if direct:
            out[str(path.relative_to(root))] = [
                fn.name for fn in _functions(tree)
                if fn.name.startswith("test_") and (_params(fn) & WINDOW_FIXTURES or _calls_main_window(fn))]
            continue
        building = _window_names(tree, _conftest_fixtures(path))
        names = []
        for fn in _functions(tree):
            if not fn.name.startswith("test_"):
                continue
            if _params(fn) & building or _constructs_window(fn) or \
                    (_names_used(fn) & (building - WINDOW_FIXTURES)):
                names.append(fn.name)
        out[str(path.relative_to(root))] = names
    return out


def all_tests(root: Path = GUI) -> int:
    return sum(1 for path in root.rglob("test_*.py") for fn in _functions(ast.parse(path.read_text()))
               if fn.name.startswith("test_"))


def main(argv) -> int:
    direct = "--direct" in argv
    found = window_tests(direct=direct)
    total = sum(len(v) for v in found.values())
    if "-v" in argv:
        for name, tests in sorted(found.items(), key=lambda kv: -len(kv[1])):
            if tests:
                print(f"{len(tests):3d}  {name}: {', '.join(tests)}")
    how = " (asking for window / make_window or calling MainWindow themselves)" if direct else ""
    print(f"{total} of {all_tests()} test functions under tests/gui build a whole MainWindow{how}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
