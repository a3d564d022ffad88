"""numpy's BLAS runs on one thread in the app and the headless export, unless the user chose a number, and Qt
paints without its pool of helper threads: checked in a fresh process, where the settings are made before
numpy and Qt load."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
QT_POOL = "QT_NO_GUI_THREADPOOL"

#: Starts an entry point the way it is started (main.py runs --list-presets, which loads numpy), noting
#: the settings at the moment numpy is first imported, Qt's at the moment PySide6 is first imported, and
#: both at the end.
PROBE = r"""
import importlib.abc, json, os, runpy, sys
names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
seen = {}
qt_seen = {}

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" and not seen:
            seen.update({n: os.environ.get(n) for n in names})
        if name == "PySide6" and not qt_seen:
            qt_seen["QT_NO_GUI_THREADPOOL"] = os.environ.get("QT_NO_GUI_THREADPOOL")
        return None

sys.meta_path.insert(0, Watch())
entry = sys.argv[1]
if entry == "main.py":
    sys.argv = ["main.py", "--list-presets"]
    try:
        runpy.run_path("main.py", run_name="__main__")
    except SystemExit:
        pass
else:
    __import__(entry)
    import numpy  # noqa: F401  (as the app does later)
    import PySide6.QtGui  # noqa: F401
print(json.dumps({"at_numpy_import": seen, "at_qt_import": qt_seen,
                  "env": {n: os.environ.get(n) for n in (*names, "QT_NO_GUI_THREADPOOL")}}))
"""


def probe(entry: str, **env_extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in (*VARIABLES, QT_POOL)}
    env.update(env_extra)
    env["QT_QPA_PLATFORM"] = "offscreen"
    out = subprocess.run([sys.executable, "-c", PROBE, entry], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("entry", ["qkv_gui.app", "qkv_gui.headless", "main.py"])
def test_one_blas_thread_is_set_before_numpy_loads(entry):
    got = probe(entry)
    assert got["at_numpy_import"] == {name: "1" for name in VARIABLES}, "set only after numpy was imported"
    assert got["env"] == {name: "1" for name in (*VARIABLES, QT_POOL)}


@pytest.mark.parametrize("entry", ["qkv_gui.app", "qkv_gui.headless"])
def test_qt_paints_without_its_thread_pool(entry):
    got = probe(entry)
    assert got["at_qt_import"] == {QT_POOL: "1"}, "set only after Qt was imported"


def test_a_number_the_user_chose_is_kept():
    got = probe("qkv_gui.app", OPENBLAS_NUM_THREADS="3")
    assert got["at_numpy_import"] == {"OPENBLAS_NUM_THREADS": "3", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def test_a_qt_pool_setting_the_user_made_is_kept():
    got = probe("qkv_gui.app", QT_NO_GUI_THREADPOOL="yes")
    assert got["env"][QT_POOL] == "yes"
