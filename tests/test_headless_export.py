"""The headless export command, run as a user would: a subprocess with no display."""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
MAIN = str(ROOT / "main.py")
NAMES = ["embedding", "mixing", "qk-plane", "scaling", "softmax", "values", "heatmap", "matrices", "summary"]


def run(*args, timeout=120):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    return subprocess.run([sys.executable, MAIN, "export", *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=str(ROOT))


def leftovers(folder: Path) -> list:
    return [p.name for p in folder.iterdir()] if folder.exists() else []


def test_exports_every_format_with_no_display(tmp_path):
    out = tmp_path / "figs"
    r = run("--preset", "seed-the-cat-sat", "--out", str(out), "--format", "png,svg,pdf,csv,deck",
            "--width", "800", "--panels", "heatmap,qk-plane", "--query", "2", "--key", "3")
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == ""
    expected = [f"{n}.{f}" for n in ("heatmap", "qk-plane") for f in ("png", "svg", "pdf")] + ["deck.pdf"]
    printed = [Path(line).name for line in r.stdout.split("\n") if line.strip()]
    assert printed[: len(expected)] == expected
    assert sorted(printed) == sorted(leftovers(out))  # prints exactly what it wrote, nothing else is there
    assert not [p for p in leftovers(tmp_path) if p.startswith(".qkv-export-")]
    from PySide6 import QtGui

    assert QtGui.QImage(str(out / "heatmap.png")).width() == 800
    deck = (out / "deck.pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page(?![a-z])", deck)) == 3
    svg = (out / "heatmap.svg").read_text(encoding="utf-8")
    assert "query 2 &apos;cat&apos; → key 3 &apos;sat&apos;" in svg or "query 2 'cat' → key 3 'sat'" in svg
    from qkv_engine import compute, presets

    weights = np.loadtxt(out / "weights.csv", delimiter=",", skiprows=1, usecols=(1, 2, 3))
    assert np.array_equal(weights, compute(presets.load("seed-the-cat-sat")).weights)


def test_default_is_every_panel_as_png_svg_pdf_from_a_session_file(tmp_path):
    from qkv_engine import presets, session_format

    session = tmp_path / "lesson.qkv.json"
    session_format.save_file(session, presets.load("seed-cat"), {"query": 0, "key": 0})
    out = tmp_path / "out"
    out.mkdir()
    r = run("--session", str(session), "--out", str(out), "--theme", "screen")
    assert r.returncode == 0, r.stderr
    assert sorted(leftovers(out)) == sorted(f"{n}.{f}" for n in NAMES for f in ("png", "svg", "pdf"))


@pytest.mark.parametrize("args, message", [
    (["--preset", "no-such"], "unknown preset 'no-such'"),
    (["--preset", "seed-cat", "--panels", "heatmap,pie"], "unknown panel 'pie'"),
    (["--preset", "seed-cat", "--panels", "compare"], "the compare panel needs a pinned A"),
    (["--preset", "seed-cat", "--format", "png,gif"], "unknown format 'gif'"),
    (["--preset", "seed-cat", "--width", "0"], "--width 0 is out of range"),
    (["--preset", "seed-cat", "--theme", "dark"], "invalid choice: 'dark'"),
    (["--preset", "seed-cat", "--query", "5"], "--query 5 is out of range: the sentence has 1 token"),
    (["--preset", "seed-cat", "--key", "0"], "--key 0: tokens are counted from 1"),
    (["--preset", "seed-cat", "--session", "x.qkv.json"], "not allowed with argument"),
    (["--width", "800"], "one of the arguments --preset --session --model is required"),
    (["--preset", "seed-cat", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_arguments_one_line_exit_2_nothing_written(tmp_path, args, message):
    out = tmp_path / "out"
    r = run(*args, "--out", str(out))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr
    assert r.stdout == ""
    assert leftovers(tmp_path) == []


def test_the_lab_is_exported_when_named(tmp_path):
    out = tmp_path / "out"
    r = run("--preset", "seed-cat", "--out", str(out), "--panels", "scaling-lab", "--format", "png", "--width", "640")
    assert r.returncode == 0, r.stderr
    assert leftovers(out) == ["scaling-lab.png"]
    from PySide6 import QtGui

    assert QtGui.QImage(str(out / "scaling-lab.png")).width() == 640


def test_unreadable_or_corrupt_session_file(tmp_path):
    bad = tmp_path / "bad.qkv.json"
    bad.write_text('{"format": "qkv-visualizer", "version": 1, "scenario": {', encoding="utf-8")
    for path, message in [(tmp_path / "missing.qkv.json", "cannot read"), (bad, "not valid JSON")]:
        r = run("--session", str(path), "--out", str(tmp_path / "out"))
        assert r.returncode == 2
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0]
    assert leftovers(tmp_path) == ["bad.qkv.json"]


def test_out_folder_that_cannot_be_written(tmp_path):
    a_file = tmp_path / "taken"
    a_file.write_text("not a folder")
    for out, message in [(a_file, "exists and is not a folder"), (a_file / "sub", "is not a folder"),
                         (Path("/proc/qkv-no-such/out"), "cannot write to /proc/qkv-no-such/out")]:
        r = run("--preset", "seed-cat", "--out", str(out), "--panels", "softmax")
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], r.stderr
    assert leftovers(tmp_path) == ["taken"]


def test_a_failure_half_way_leaves_nothing_behind(tmp_path, monkeypatch, qapp):
    """If rendering fails after some files were made, none of them reach the out folder."""
    from qkv_gui.export import figures as export
    from qkv_gui import headless

    calls = []
    real = export.render_formats

    def flaky(cls, session, formats, options=None):
        calls.append(cls.object_name)
        if len(calls) == 2:  # the first panel's three files are made, then the disk is full
            raise OSError(28, "No space left on device")
        return real(cls, session, formats, options)

    monkeypatch.setattr(export, "render_formats", flaky)
    out = tmp_path / "out"
    code = headless.run_export(["--preset", "seed-cat", "--out", str(out), "--panels", "softmax,values"])
    assert code == 2 and calls == ["softmaxPanel", "valuesPanel"]
    assert leftovers(tmp_path) == []


def test_argument_errors_do_not_load_qt():
    probe = subprocess.run(
        [sys.executable, "-c", "import sys; from qkv_gui.app import main; "
         "code = main(['export', '--preset', 'seed-cat', '--out', '/tmp/x', '--format', 'gif']); "
         "print(code, 'QT' if 'PySide6' in sys.modules else 'NOQT')"],
        capture_output=True, text=True, cwd=str(ROOT))
    assert probe.stdout.split() == ["2", "NOQT"], probe.stdout + probe.stderr


def test_help_lists_the_options():
    r = run("--help")
    assert r.returncode == 0
    for word in ("--preset", "--session", "--out", "--format", "--width", "--theme", "--panels", "--query", "--key"):
        assert word in r.stdout


def test_the_dark_colours_give_a_dark_figure(tmp_path):
    from PySide6 import QtGui

    from qkv_gui.look import style

    assert tuple(style.PALETTES) == ("standard", "high-contrast", "dark")  # the names the command offers
    out = tmp_path / "dark"
    r = run("--preset", "seed-the-cat-sat", "--out", str(out), "--format", "png", "--panels", "heatmap",
            "--width", "400", "--colours", "dark")
    assert r.returncode == 0, r.stderr
    corner = QtGui.QImage(str(out / "heatmap.png")).pixelColor(2, 2)
    assert corner.lightness() < 80  # a dark ground
    r = run("--preset", "seed-cat", "--out", str(tmp_path / "x"), "--colours", "purple")
    assert r.returncode == 2 and "--colours" in r.stderr


# ----- a trained model's predictions and head effects ------------------------------------------------------------
TINY = ROOT / "tests" / "data"


def read_rows(path: Path) -> list:
    import csv

    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_a_model_with_an_output_head_writes_its_ten_best_guesses_at_every_position(tmp_path):
    from qkv_engine import load_model

    text = "the cat sat on the mat"
    out = tmp_path / "out"
    r = run("--model", str(TINY / "tiny-gpt2"), "--text", text, "--format", "csv", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "predictions.csv" in leftovers(out) and "head_effects.csv" not in leftovers(out)
    rows = read_rows(out / "predictions.csv")
    assert rows[0] == ["position", "token", "rank", "candidate", "probability"]
    model = load_model(TINY / "tiny-gpt2")
    trace = model.run(text)
    want = [[str(i + 1), tok, str(rank), cand, p] for i, tok in enumerate(trace.tokens)
            for rank, (cand, _id, p) in enumerate(model.predict(trace, i, 10), start=1)]
    assert len(rows) - 1 == 10 * trace.n == len(want)
    for got, expected in zip(rows[1:], want):
        assert got[:4] == expected[:4]
        assert float(got[4]) == expected[4]  # written at full precision


def test_target_and_position_write_head_effects_counting_from_1(tmp_path):
    from qkv_engine import head_effects, load_model

    text = "the cat sat on the mat"
    model = load_model(TINY / "tiny-gpt2")
    trace = model.run(text)
    cand, token_id, _p = model.predict(trace, 4, 10)[1]  # the second guess after token 5
    out = tmp_path / "out"
    r = run("--model", str(TINY / "tiny-gpt2"), "--text", text, "--format", "csv", "--out", str(out),
            "--target", cand, "--position", "5")
    assert r.returncode == 0, r.stderr
    rows = read_rows(out / "head_effects.csv")
    want = head_effects(model, trace, 4, token_id)
    assert rows[0] == ["layer", "head", "delta_log_p"]
    assert [(int(l), int(h)) for l, h, _d in rows[1:]] == [(l, h) for l in (1, 2) for h in (1, 2)]
    np.testing.assert_array_equal(np.array([float(d) for _l, _h, d in rows[1:]]).reshape(2, 2), want)


def test_a_model_without_an_output_head_writes_no_predictions(tmp_path):
    out = tmp_path / "out"
    r = run("--model", str(TINY / "tiny-bert"), "--text", "a b", "--format", "csv", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "predictions.csv" not in leftovers(out) and "weights.csv" in leftovers(out)


@pytest.mark.parametrize("extra, message", [
    (["--target", "cat"], "--target needs --position too"),
    (["--position", "2"], "--position needs --target too"),
    (["--target", "cat", "--position", "0"], "--position 0: tokens are counted from 1"),
    (["--target", "cat", "--position", "40"], "--position 40 is out of range: the sentence has 8 tokens (1 to 8)"),
    (["--target", "zzqx", "--position", "2"], "--target 'zzqx' is not one token of tiny-gpt2"),
])
def test_bad_target_or_position_one_line_exit_2_nothing_written(tmp_path, extra, message):
    out = tmp_path / "out"
    r = run("--model", str(TINY / "tiny-gpt2"), "--text", "the cat sat on the mat", "--format", "csv",
            "--out", str(out), *extra)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr
    assert leftovers(out) == []


@pytest.mark.parametrize("args, message", [
    (["--preset", "seed-cat", "--target", "cat", "--position", "1", "--format", "csv"], "--target goes with --model"),
    (["--model", str(TINY / "tiny-gpt2"), "--target", "cat", "--position", "1"], "add csv to --format"),
    (["--model", str(TINY / "tiny-bert"), "--target", "cat", "--position", "1", "--format", "csv"],
     "tiny-bert has no output head"),
])
def test_targets_need_a_model_with_an_output_head_and_csv(tmp_path, args, message):
    r = run(*args, "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr


def test_the_model_panels_are_exported_when_named(tmp_path):
    out = tmp_path / "out"
    r = run("--model", str(TINY / "tiny-llama"), "--text", "the cat sat", "--panels", "prediction,model-view",
            "--format", "png,deck", "--query", "4", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert sorted(leftovers(out)) == ["deck.pdf", "model-view.png", "prediction.png"]
    from PySide6 import QtGui

    assert QtGui.QImage(str(out / "prediction.png")).width() == 1920
    deck = (out / "deck.pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page(?![a-z])", deck)) == 3
    r = run("--preset", "seed-cat", "--panels", "prediction", "--out", str(tmp_path / "no"))
    assert r.returncode == 2 and "the prediction panel shows a trained model" in r.stderr
