"""``main.py export --model ... --format csv`` writes rollout.csv; read back, it is qkv_engine.rollout's last
layer (residual on), one line per query and key token."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from qkv_engine import rollout
from qkv_engine.models import load_model

ROOT = Path(__file__).resolve().parents[3]
TEXT = "the cat sat on the tokenization mat"


def test_csv_export_of_a_model_writes_the_rollout_of_the_last_layer(tmp_path):
    folder = ROOT / "tests" / "data" / "tiny-bert"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), "export", "--model", str(folder), "--text", TEXT,
                        "--format", "csv", "--out", str(tmp_path)], capture_output=True, text=True, env=env,
                       timeout=120, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    assert str(tmp_path / "rollout.csv") in r.stdout.split("\n")
    with open(tmp_path / "rollout.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["query", "query token", "key", "key token", "weight"]
    trace = load_model(folder).run(TEXT)
    n = trace.n
    assert len(rows) == 1 + n * n
    got = np.zeros((n, n))
    for query, query_token, key, key_token, weight in rows[1:]:
        i, j = int(query) - 1, int(key) - 1
        assert (query_token, key_token) == (trace.tokens[i], trace.tokens[j])
        got[i, j] = float(weight)
    np.testing.assert_array_equal(got, rollout(trace.weights, residual=True)[-1])


def test_help_says_what_rollout_csv_holds():
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), "export", "--help"], capture_output=True, text=True,
                       timeout=60, cwd=str(ROOT))
    assert r.returncode == 0 and "rollout.csv" in r.stdout and "residual on" in r.stdout
