"""A real restart for the tests: the same script run twice in its own process on one settings file.

    first, second = run_twice(SCRIPT, tmp_path)            # the script gets: settings file, recovery folder,
    first, second = run_twice(SCRIPT, tmp_path, screen=s)  # and "first" or "second"; stdout of each run

In one process QSettings hands back the very values it was given; only a new process shows what the file
gives back (an INI file: every value as text). ``screen`` (a path to the offscreen platform's screen file)
gives the runs a screen of that size.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def run_twice(script: str, tmp_path: Path, screen: Path | None = None) -> list:
    platform = "offscreen" if screen is None else f"offscreen:configfile={screen}"
    env = {**os.environ, "QT_QPA_PLATFORM": platform, "PYTHONPATH": str(ROOT)}
    runs = []
    for which in ("first", "second"):
        out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "settings.ini"), str(tmp_path / "rec"),
                              which], capture_output=True, text=True, timeout=120, cwd=str(ROOT), env=env)
        assert out.returncode == 0, out.stderr
        runs.append(out.stdout)
    return runs
