"""The command line, run as a user would: in a subprocess, checking exit codes and what is printed."""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAIN = str(ROOT / "main.py")


def run(*args, env_update=None, drop=(), timeout=60):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_update or {})
    return subprocess.run([sys.executable, MAIN, *args], capture_output=True, text=True, env=env, timeout=timeout,
                          cwd=str(ROOT))


def test_list_presets_prints_every_preset_and_loads_no_qt():
    from qkv_engine import presets

    out = run("--list-presets")
    assert out.returncode == 0, out.stderr
    listed = [line.split()[0] for line in out.stdout.splitlines()]
    assert listed == presets.names()
    assert "random weights" in out.stdout
    probe = subprocess.run(
        [sys.executable, "-c", "import sys, runpy; sys.argv=['main.py','--list-presets'];"
         "from qkv_gui.app import main; main(['--list-presets']); print('QT' if 'PySide6' in sys.modules else 'NOQT')"],
        capture_output=True, text=True, cwd=str(ROOT))
    assert probe.stdout.strip().endswith("NOQT"), probe.stdout + probe.stderr


def test_unknown_option_is_one_line_and_exit_2():
    out = run("--no-such-option")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "unrecognized arguments: --no-such-option" in lines[0]


def test_unknown_preset_is_one_line_and_exit_2():
    out = run("--preset", "no-such-preset")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown preset 'no-such-preset'" in lines[0]


def test_missing_session_file_is_one_line_and_exit_2(tmp_path):
    out = run(str(tmp_path / "missing.qkv.json"))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot read" in lines[0]


def test_corrupt_session_file_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.qkv.json"
    bad.write_text('{"format": "qkv-visualizer", "version": 1, "scenario": {', encoding="utf-8")
    out = run(str(bad))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "not valid JSON" in lines[0]


def test_no_display_gives_one_clear_line_not_a_qt_abort():
    out = run(drop=("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot open a window" in lines[0] and "--list-presets" in lines[0]


def test_broken_platform_gives_one_clear_line_not_a_qt_abort():
    # xcb against a display that does not exist: Qt would abort with a core dump.
    out = run(env_update={"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":987"}, drop=("WAYLAND_DISPLAY",))
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot open a window" in lines[0]
    assert "Aborted" not in out.stderr and "core dumped" not in out.stderr


def test_app_starts_and_quits_cleanly_offscreen(tmp_path):
    shot = tmp_path / "window.png"
    out = run("--preset", "seed-cat", "--quit-after", "1500", "--screenshot", str(shot),
              env_update={"QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "config"),
                          "XDG_DATA_HOME": str(tmp_path / "data")})
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    from PySide6 import QtGui

    image = QtGui.QImage(str(shot))
    # the first start fits the window to the screen: offscreen Qt's screen is 800 x 800
    assert 700 <= image.width() <= 800 and 500 <= image.height() <= 800


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    blocks = re.findall(r"```\n(.*?)\n```", readme, flags=re.S)
    test_cmd = [b for b in blocks if "pytest" in b]
    assert len(test_cmd) == 1
    assert test_cmd[0].strip() in ci
    assert "QT_QPA_PLATFORM=offscreen" in ci


def test_installed_resources_are_found_relative_to_the_code(tmp_path):
    # Run from an unrelated folder: the lesson folder is found next to the code, not the working directory.
    out = subprocess.run([sys.executable, "-c", "from qkv_gui.system.resources import resource_dir; print(resource_dir())"],
                         capture_output=True, text=True, cwd=str(tmp_path),
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    folder = Path(out.stdout.strip())
    assert (folder / "lessons").is_dir()


def test_every_python_package_is_listed_for_the_wheel():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    listed = set(re.search(r"^packages = \[(.*?)\]", text, flags=re.M).group(1).replace('"', "").split(", "))
    found = {str(p.parent.relative_to(ROOT)).replace("/", ".") for p in ROOT.glob("qkv_*/**/__init__.py")}
    assert found <= listed, sorted(found - listed)
    assert "qkv_resources" in listed and 'qkv_resources = "resources"' in text


#: The app started as ``main.py`` starts it, taken into presenter mode, then left in one of two ways.
PRESENTER_THEN_LEAVE = r"""
import sys
from PySide6 import QtCore, QtWidgets
from qkv_gui import app as qkv_app
QtWidgets.QApplication([sys.argv[0]])

def steps():
    window = next(w for w in QtWidgets.QApplication.topLevelWidgets() if type(w).__name__ == "MainWindow")
    window.enter_lesson_mode()
    QtCore.QTimer.singleShot(300, lambda: (window.lesson.enter_presenter(), window.lesson.go(4)))
    leave = window.close if sys.argv[1] == "close" else QtWidgets.QApplication.quit
    QtCore.QTimer.singleShot(900, leave)

QtCore.QTimer.singleShot(1200, steps)
sys.exit(qkv_app.main(["--preset", "seed-cat"]))
"""


def test_leaving_after_presenter_mode_ends_cleanly_and_keeps_the_settings(tmp_path):
    """Quitting after presenter mode crashed the process as Python took the Qt objects down (five times in
    six); the app now ends without that teardown, once its settings are written."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    for how in ("quit", "close", "quit"):
        out = subprocess.run([sys.executable, "-c", PRESENTER_THEN_LEAVE, how], capture_output=True, text=True,
                             env=env, timeout=120, cwd=str(ROOT))
        assert out.returncode == 0, (how, out.returncode, out.stderr[-2000:])
        assert "Traceback" not in out.stderr
    written = list((tmp_path / "config").rglob("*.conf")) + list((tmp_path / "config").rglob("*.ini"))
    assert written and any("[window]" in p.read_text(encoding="latin-1") for p in written)
