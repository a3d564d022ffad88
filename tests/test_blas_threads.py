"""numpy's BLAS runs on one thread in the app and the headless export, unless the user chose a number:
checked in a fresh process, where the setting is made before numpy loads."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

#: Starts an entry point the way it is started (main.py runs --list-presets, which loads numpy), noting
#: the settings at the moment numpy is first imported, and at the end.
PROBE = r"""
import importlib.abc, json, os, runpy, sys
names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
seen = {}

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" and not seen:
            seen.update({n: os.environ.get(n) for n in names})
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
print(json.dumps({"at_numpy_import": seen, "env": {n: os.environ.get(n) for n in names}}))
"""


def probe(entry: str, **env_extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    env.update(env_extra)
    env["QT_QPA_PLATFORM"] = "offscreen"
    out = subprocess.run([sys.executable, "-c", PROBE, entry], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("entry", ["qkv_gui.app", "qkv_gui.headless", "main.py"])
def test_one_blas_thread_is_set_before_numpy_loads(entry):
    got = probe(entry)
    assert got["at_numpy_import"] == {name: "1" for name in VARIABLES}, "set only after numpy was imported"
    assert got["env"] == {name: "1" for name in VARIABLES}


def test_a_number_the_user_chose_is_kept():
    got = probe("qkv_gui.app", OPENBLAS_NUM_THREADS="3")
    assert got["at_numpy_import"] == {"OPENBLAS_NUM_THREADS": "3", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
