"""Grab every panel, experiment and the model view as PNG files, to compare two versions of the app pixel for pixel.

    QT_QPA_PLATFORM=offscreen python tools/grab_panels.py OUT_DIR          # grabs into OUT_DIR
    python tools/grab_panels.py --compare BEFORE_DIR AFTER_DIR               # lists the grabs that differ

Each grab is made in a fresh main window with throw-away settings, at 1600 x 1000 and 1024 x 768, in the
standard and the dark theme: the nine panels of the grid, each experiment dock, and the model view with the
tiny test BERT open. Files are named SIZE-THEME-OBJECTNAME.png. The script uses only what users and scripts
rely on (``MainWindow``, object names, ``open_experiment``, the model actions' ``open_folder``), so it runs on
any version since those were made. ``--compare`` exits 1 when a grab differs or is missing on one side.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZES = ((1600, 1000), (1024, 768))
THEMES = ("standard", "dark")
EXPERIMENTS = ("dockScalingLab", "dockHeads", "dockConcat", "dockCompare", "dockTrain")
MODEL = ROOT / "tests" / "data" / "tiny-bert"
MODEL_TEXT = "the cat sat on the mat"


def _settle(app) -> None:
    try:
        from qkv_gui.panels.update_queue import waiting_anywhere
    except ImportError:  # pragma: no cover - a layout without the update queue
        def waiting_anywhere():
            return False
    for _ in range(5):
        app.processEvents()
    for _ in range(2000):
        if not waiting_anywhere():
            break
        app.processEvents()
    app.processEvents()


def _wait_for_the_model(app, window) -> None:
    """Until the model's forward has landed and every panel took it (a busy machine runs it on the worker)."""
    import time

    runner = window.session.runner
    for _ in range(100):
        runner.wait()
        _settle(app)
        if not runner.busy:
            break
    end = time.monotonic() + 0.3  # what the panels posted after the last result (their boxes' new sizes)
    while time.monotonic() < end:
        app.processEvents()
    _settle(app)


def _no_shrink_pause() -> None:
    """A label's box gives back spare lines at once (as in the tests), so that grabs do not depend on timing."""
    import importlib

    for name in ("qkv_gui.labels.steady_box", "qkv_gui.panels.steady_label"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        module.SHRINK_AFTER_MS = 0
        return


def _window(app, size, theme, folder):
    from PySide6 import QtCore

    from qkv_gui import MainWindow

    settings = QtCore.QSettings(str(Path(folder) / f"settings-{theme}.ini"), QtCore.QSettings.Format.IniFormat)
    settings.setValue("view/palette", theme)
    settings.sync()
    window = MainWindow(settings=settings, recovery=Path(folder) / "recovery")
    window.ask_unsaved = lambda: "discard"
    window.ask_restore = lambda: False
    window.notify_error = lambda title, text: print(f"error: {text}", file=sys.stderr)
    window.resize(*size)
    window.show()
    _settle(app)
    return window


def _save(widget, out: Path, name: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    if not widget.grab().save(str(out)):
        raise SystemExit(f"could not write {out}")
    print(out)


def grab(out_dir: Path) -> None:
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    _no_shrink_pause()
    with tempfile.TemporaryDirectory() as folder:
        for size in SIZES:
            for theme in THEMES:
                tag = f"{size[0]}x{size[1]}-{theme}"
                window = _window(app, size, theme, folder)
                for name, panel in window.panels.items():
                    _save(panel, out_dir / f"{tag}-{name}.png", name)
                for dock_name in EXPERIMENTS:
                    dock = window.open_experiment(dock_name)
                    _settle(app)
                    _save(dock.widget(), out_dir / f"{tag}-{dock_name}.png", dock_name)
                    dock.close()
                    _settle(app)
                window.models.open_folder(MODEL, text=MODEL_TEXT)
                _wait_for_the_model(app, window)
                view = window.findChild(QtWidgets.QWidget, "modelViewPanel")
                if view is None:
                    raise SystemExit("no widget named modelViewPanel after opening the model")
                _save(view, out_dir / f"{tag}-modelViewPanel.png", "modelViewPanel")
                for name, panel in window.panels.items():
                    _save(panel, out_dir / f"{tag}-model-{name}.png", name)
                window.close()
                window.deleteLater()
                _settle(app)


def compare(before: Path, after: Path) -> int:
    from PySide6 import QtGui, QtWidgets

    QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    names = sorted({p.name for p in before.glob("*.png")} | {p.name for p in after.glob("*.png")})
    bad = 0
    for name in names:
        a, b = before / name, after / name
        if not (a.is_file() and b.is_file()):
            print(f"missing on one side: {name}")
            bad += 1
            continue
        ia, ib = QtGui.QImage(str(a)), QtGui.QImage(str(b))
        ia = ia.convertToFormat(QtGui.QImage.Format.Format_ARGB32)
        ib = ib.convertToFormat(QtGui.QImage.Format.Format_ARGB32)
        if ia.size() != ib.size():
            print(f"size differs: {name} {ia.width()}x{ia.height()} -> {ib.width()}x{ib.height()}")
            bad += 1
        elif ia != ib:
            print(f"pixels differ: {name}")
            bad += 1
    print(f"{len(names) - bad} of {len(names)} grabs identical")
    return 1 if bad else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, help="folder to grab into")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give a folder to grab into, or --compare BEFORE AFTER")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    grab(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
