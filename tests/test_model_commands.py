"""Trained models from the command line, run as a user would: ``--model``, ``--list-models`` and
``export --model`` in a subprocess with no display."""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
MAIN = str(ROOT / "main.py")
TINY = ROOT / "tests" / "data" / "tiny-bert"
TEXT = "the cat sat on the mat"


def run(*args, env_update=None, timeout=120):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(env_update or {})
    return subprocess.run([sys.executable, MAIN, *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=str(ROOT))


def test_export_a_real_head_names_the_layer_and_head_and_gives_its_numbers(tmp_path):
    from qkv_engine.models import load_model

    out = tmp_path / "figs"
    r = run("export", "--model", str(TINY), "--text", TEXT, "--layer", "2", "--head", "1", "--out", str(out),
            "--format", "png,csv", "--panels", "heatmap", "--query", "3")
    assert r.returncode == 0, r.stderr
    assert (out / "heatmap.png").stat().st_size > 1000
    trace = load_model(TINY).run(TEXT)
    with open(out / "weights.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert [h.split(" (")[0] for h in rows[0][1:]] == list(trace.tokens)  # a repeated token is numbered
    weights = np.array([[float(v) for v in row[1:]] for row in rows[1:]])
    np.testing.assert_allclose(weights, trace.weights[1, 0], atol=1e-5)  # layer 2, head 1, counted from 1
    assert (out / "b_q.csv").exists()  # a trained head's biases are written too
    doc = json.loads((out / "attention.json").read_text(encoding="utf-8"))
    assert doc["model"]["name"] == "tiny-bert" and (doc["model"]["layer"], doc["model"]["head"]) == (2, 1)
    assert doc["about"][0] == "Trained model tiny-bert, layer 2 of 2, head 1 of 2."
    assert doc["session"]["model"]["name"] == "tiny-bert" and "scenario" not in doc["session"]


@pytest.mark.parametrize("args, says", [
    (["--layer", "3"], "--layer 3 is out of range: tiny-bert has 2 layers (1 to 2)"),
    (["--head", "0"], "--head 0: heads are counted from 1"),
])
def test_a_layer_or_head_out_of_range_is_one_line_and_exit_2(tmp_path, args, says):
    r = run("export", "--model", str(TINY), "--out", str(tmp_path / "o"), *args)
    assert r.returncode == 2 and says in r.stderr and r.stderr.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_text_without_a_model_is_refused(tmp_path):
    r = run("export", "--preset", "seed-cat", "--text", "hello", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "--text goes with --model" in r.stderr


def test_a_folder_with_only_a_pickle_is_refused_and_never_opened(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (tmp_path / "pytorch_model.bin").write_bytes(b"\x80\x04never unpickled")
    for args in (["--model", str(tmp_path)], ["export", "--model", str(tmp_path), "--out", str(tmp_path / "o")]):
        r = run(*args)
        assert r.returncode == 2, r.stderr
        assert "model.safetensors" in r.stderr and r.stderr.count("\n") == 1


def test_list_models_prints_the_cache_without_any_network(tmp_path):
    cache = tmp_path / "hub"
    snap = cache / "models--org--tiny-bert" / "snapshots" / "0123abcd"
    blobs = cache / "models--org--tiny-bert" / "blobs"
    snap.mkdir(parents=True)
    blobs.mkdir()
    for f in TINY.iterdir():
        if f.suffix != ".npz":
            shutil.copy(f, blobs / f.name)
            (snap / f.name).symlink_to(Path("..") / ".." / "blobs" / f.name)
    r = run("--list-models", env_update={"HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "0"})
    assert r.returncode == 0, r.stderr
    assert "org/tiny-bert" in r.stdout and "BERT" in r.stdout and str(snap) in r.stdout


def test_the_app_opens_a_model_from_the_command_line(tmp_path):
    shot = tmp_path / "shot.png"
    r = run("--model", str(TINY), "--text", TEXT, "--quit-after", "1500", "--screenshot", str(shot),
            env_update={"QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path),
                        "XDG_DATA_HOME": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    assert shot.exists()
