"""The README's usage sections work as written: every command is run (windows offscreen, closed at once),
and every file of this project that the README names is there.

Commands are taken from the README from "## Using it" on (the set-up commands of "Two commands" are run
by .ci/run). ``.venv/bin/qkv-visualizer`` and ``.venv/bin/python main.py`` are run as this test's Python
with main.py; a command that opens a window gets ``--quit-after``. ``lesson.qkv.json`` and
``FILE.qkv.json`` stand for a session file the reader saved: the test saves one first. Benchmarks are
not run (they are slow and print figures); their files must exist.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
USAGE = README[README.index("## Using it"):]
#: Session files the README's reader is assumed to have saved.
SAVED = ("lesson.qkv.json", "FILE.qkv.json")
APP = (".venv/bin/qkv-visualizer",)
PYTHON = ".venv/bin/python"


def usage_commands() -> list:
    """Every command line in the usage sections: the lines of code blocks, and inline `.venv/bin/…` code."""
    found = []
    for block in re.findall(r"```\n(.*?)```", USAGE, re.S):
        found += [line.strip() for line in block.splitlines() if line.strip()]
    found += re.findall(r"`(\.venv/bin/[^`]+)`", USAGE)
    return found


def app_args(line: str):
    """The arguments of a command that runs the app (None: another kind of command)."""
    words = shlex.split(line, comments=True)
    if words[:1] == list(APP):
        return words[1:]
    if words[:2] == [PYTHON, "main.py"]:
        return words[2:]
    return None


def headless(args) -> bool:
    return bool(args) and (args[0] == "export" or "--list-presets" in args or "--help" in args)


@pytest.fixture
def reader_folder(tmp_path):
    """A folder with the session files the README assumes, and a home of its own (settings, recovery)."""
    from qkv_engine import presets, session_format

    for name in SAVED:
        session_format.save_file(tmp_path / name, presets.load("seed-the-cat-sat"), {"query": 1, "key": 2})
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # the README's test model, tests/data/tiny-bert
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local" / "share"), QT_QPA_PLATFORM="offscreen", OPENBLAS_NUM_THREADS="1")
    return tmp_path, env


APP_LINES = [line for line in usage_commands() if app_args(line) is not None]


def test_the_usage_sections_have_commands_of_every_kind():
    kinds = {"export" if headless(app_args(c)) and app_args(c)[0] == "export" else
             "headless" if headless(app_args(c)) else "window" for c in APP_LINES}
    assert kinds == {"export", "headless", "window"}
    assert not re.search(r"(?<![/\w])python3? main\.py", USAGE)  # only the .venv's Python has the packages
    assert any("--lesson" in c for c in APP_LINES)


@pytest.mark.parametrize("line", APP_LINES)
def test_every_app_command_works_as_written(line, reader_folder):
    folder, env = reader_folder
    args = app_args(line)
    if not headless(args):
        args = args + ["--quit-after", "300"]  # a window: opened offscreen, then closed
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=str(folder), env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"{line}\n{run.stderr}"
    if args[0] == "export" and "--help" not in args:
        printed = [Path(p) for p in run.stdout.split()]
        assert printed and all(p.is_file() and p.stat().st_size > 0 for p in printed), run.stdout
        if "--panels" in args:
            wanted = args[args.index("--panels") + 1].split(",")
            assert {p.stem for p in printed if p.suffix != ".csv"} >= set(wanted)
    if "--help" in args and args[0] != "export":
        assert "export" in run.stdout  # --help lists the export command


def test_the_lesson_example_has_several_tokens():
    from qkv_engine import presets

    lesson = [app_args(c) for c in APP_LINES if "--lesson" in app_args(c)]
    for args in lesson:
        preset = args[args.index("--preset") + 1]
        assert presets.load(preset).n >= 3


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("sed") is None, reason="needs bash and sed")
def test_the_desktop_entry_commands_write_a_working_entry(reader_folder):
    _folder, env = reader_folder
    block = next(b for b in re.findall(r"```\n(.*?)```", USAGE, re.S) if "qkv-visualizer.desktop" in b)
    run = subprocess.run(["bash", "-e", "-c", block], cwd=str(ROOT), env=env, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    entry = Path(env["HOME"]) / ".local" / "share" / "applications" / "qkv-visualizer.desktop"
    lines = entry.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]" and "@" not in "".join(lines)
    fields = dict(line.split("=", 1) for line in lines[1:] if "=" in line)
    assert fields["Type"] == "Application" and fields["Name"] == "QKV Visualizer"
    assert fields["Exec"] == f'"{ROOT}/.venv/bin/qkv-visualizer" %f'  # the app the install command made
    assert Path(fields["Icon"]).is_file()
    from qkv_gui.app import DESKTOP_ID

    assert entry.stem == DESKTOP_ID  # the name the app gives Wayland docks, to find this entry's icon


PROJECT_ROOTS = ("docs/", "resources/", "tests/", "tools/", "qkv_engine/", "qkv_gui/", ".ci/")
PROJECT_FILES = ("main.py", "pyproject.toml", "LICENSE")


def named_paths() -> set:
    """Paths of this project that the README names: links, and code that is (or contains) a path."""
    candidates = set(re.findall(r"\]\(([^)\s]+)\)", README))
    for code in re.findall(r"`([^`\n]+)`", README) + re.findall(r"```\n(.*?)```", README, re.S):
        code = code.replace("$PWD/", "")  # the folder of the README
        candidates |= set(re.findall(r"(?<![\w$/.-])((?:%s)[\w./-]*|(?:%s))(?![\w/])" % (
            "|".join(re.escape(r) for r in PROJECT_ROOTS), "|".join(re.escape(f) for f in PROJECT_FILES)), code))
    return {c.rstrip(".") for c in candidates}


def test_every_file_the_readme_names_is_there():
    named = named_paths()
    assert {"docs/screenshot.png", "resources/qkv-visualizer.desktop", "resources/icons/qkv-visualizer.svg",
            "tests/benchmarks/bench_live_update.py", ".ci/run", "main.py"} <= named
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert missing == []
