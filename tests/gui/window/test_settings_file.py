"""A settings file is never unpickled: a pickled value in it (an old version's layout, or a planted one) is
taken out unread, and the plain settings beside it stay."""
import os
import subprocess
import sys
from pathlib import Path

from PySide6 import QtCore

from qkv_gui.system import settings_file
from qkv_gui.look import style

ROOT = Path(__file__).resolve().parents[3]


class Planted:
    """Unpickling this writes a file: the proof that something was unpickled."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def plant(path: Path, marker: Path, fmt=QtCore.QSettings.Format.IniFormat) -> None:
    """A settings file as PySide writes Python objects into one: pickled, beside plain values."""
    s = QtCore.QSettings(str(path), fmt)
    s.setValue("window/grid", [Planted(marker)])  # where version 1 kept its splitters
    s.setValue("export/options", Planted(marker))
    s.setValue("view/palette", "dark")
    s.setValue("window/version", 1)
    s.sync()
    del s
    text = path.read_text(encoding="latin-1")
    assert text.count(settings_file.PICKLE_MARK) == 2 and not marker.exists()


def test_the_window_takes_pickles_out_of_its_settings_unread(make_window, settings, tmp_path):
    marker = tmp_path / "unpickled"
    plant(Path(settings.fileName()), marker)
    window = make_window()
    assert not marker.exists(), "something in the settings file was unpickled"
    assert style.current().name == "dark"  # the plain settings beside them are read as ever
    text = Path(settings.fileName()).read_text(encoding="latin-1")
    assert settings_file.PICKLE_MARK not in text and "palette=dark" in text
    window.close()
    assert not marker.exists()


def test_the_app_s_own_settings_are_cleaned_before_it_starts(tmp_path):
    """The real start-up (``main.py``), with the settings file where the app keeps it."""
    marker = tmp_path / "unpickled"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path),
               XDG_DATA_HOME=str(tmp_path / "data"), QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    find = ("from PySide6 import QtCore, QtWidgets; app = QtWidgets.QApplication([]); "
            "app.setOrganizationName('QKV Visualizer'); app.setApplicationName('QKV Visualizer'); "
            "from qkv_gui.system import settings_file; print(settings_file.open_settings().fileName())")
    path = Path(subprocess.run([sys.executable, "-c", find], env=env, capture_output=True, text=True,
                               check=True, timeout=120).stdout.strip())
    assert str(path).startswith(str(tmp_path))
    path.parent.mkdir(parents=True, exist_ok=True)
    plant(path, marker, QtCore.QSettings.Format.IniFormat)
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "--quit-after", "300"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert not marker.exists(), "the app unpickled something from its settings file"
    assert settings_file.PICKLE_MARK not in path.read_text(encoding="latin-1")


def test_a_file_that_is_missing_or_clean_is_left_alone(tmp_path):
    assert settings_file.clean_file(tmp_path / "none.ini") == []
    clean = tmp_path / "clean.ini"
    clean.write_text("[view]\npalette=dark\n[window]\nstate=@ByteArray(xyz)\n", encoding="latin-1")
    before = clean.stat().st_mtime_ns
    assert settings_file.clean_file(clean) == []
    assert clean.stat().st_mtime_ns == before


def test_only_the_pickled_lines_go(tmp_path):
    path = tmp_path / "s.ini"
    plant(path, tmp_path / "unpickled")
    assert sorted(settings_file.clean_file(path)) == ["grid", "options"]
    s = QtCore.QSettings(str(path), QtCore.QSettings.Format.IniFormat)
    assert sorted(s.allKeys()) == ["view/palette", "window/version"]
    assert s.value("view/palette") == "dark"
    assert not (tmp_path / "unpickled").exists()


def test_no_module_of_the_app_unpickles_or_opens_settings_around_the_cleaner():
    """Read as source: no module imports pickle (or its kin) or a hub client, and every QSettings the app
    makes is made by ``settings_file`` (which cleans the file first)."""
    import ast

    banned = {"pickle", "cPickle", "dill", "shelve", "marshal", "joblib", "torch", "huggingface_hub", "requests",
              "urllib"}
    makers = []
    for package in ("qkv_engine", "qkv_gui"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module or ""]
                else:
                    names = []
                assert not {n.split(".")[0] for n in names} & banned, f"{path.relative_to(ROOT)} imports {names}"
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "QSettings":
                    makers.append(path.name)
    assert set(makers) == {"settings_file.py"}, makers
