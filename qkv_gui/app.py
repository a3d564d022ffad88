"""Command line and start-up: parse arguments, answer headless commands, open the window.

    python main.py                      open the app (default preset)
    python main.py --preset NAME        open a preset
    python main.py --list-presets       print the presets and exit
    python main.py FILE.qkv.json        open a session file
    python main.py --model PATH         open a trained model (a folder with config.json, model.safetensors)
    python main.py --list-models        print the trained models found on this computer and exit

Errors in the arguments print one line and exit with code 2. When Qt cannot
open a window (no display, missing system libraries) one clear line says so
and points to the headless commands, instead of a Qt abort.
"""
from __future__ import annotations

import argparse
import os
import sys

from .system.blas import one_thread
from .system.command_line import Parser, add_model

one_thread()  # before anything imports numpy

PROG = "qkv-visualizer"
NO_WINDOW = (
    "cannot open a window here ({reason}). The headless commands still work: "
    "'python main.py --list-presets' and 'python main.py export --preset NAME --out DIR'. "
    "On Linux a window needs a display and Qt's xcb libraries (see README)."
)


EPILOG = (
    "commands without a window:\n"
    f"  {PROG} export --preset NAME --out DIR   figures (PNG, SVG, PDF) and numbers (CSV) for slides;\n"
    f"  {' ' * len(PROG)}                                  '{PROG} export --help' lists its options"
)
#: The name of the Linux desktop entry (resources/qkv-visualizer.desktop), without ".desktop".
DESKTOP_ID = "qkv-visualizer"
ICON_SIZES = (16, 32, 48, 64, 128, 256)


def app_icon():
    """The app's icon (window, taskbar), from the PNG sizes in resources/icons."""
    from PySide6 import QtGui

    from .system.resources import resource

    icon = QtGui.QIcon()
    for size in ICON_SIZES:
        path = resource("icons", f"qkv-visualizer-{size}.png")
        if path.is_file():
            icon.addFile(str(path))
    return icon


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog=PROG,
        description="See how attention turns tokens into queries, keys and values.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("session", nargs="?", help="a session file (.qkv.json) to open")
    p.add_argument("--preset", metavar="NAME", help="open a preset scenario (see --list-presets)")
    p.add_argument("--list-presets", action="store_true", help="print the preset names and exit")
    p.add_argument("--lesson", action="store_true", help="open straight into the classroom lesson")
    add_model(p, "the sentence to start with")
    p.add_argument("--list-models", action="store_true",
                   help="print the trained models found on this computer (nothing is downloaded) and exit")
    p.add_argument("--quit-after", type=int, metavar="MS", help=argparse.SUPPRESS)
    p.add_argument("--screenshot", metavar="PNG", help=argparse.SUPPRESS)
    return p


def _list_presets() -> int:
    from qkv_engine import presets

    width = max(len(n) for n in presets.names())
    for p in presets.all_presets():
        tag = " (random weights)" if p.random_weights else ""
        print(f"{p.name:<{width}}  {p.title}{tag}")
    return 0


def _list_models() -> int:
    from qkv_engine import find_models

    found = find_models()
    if not found:
        print("No trained model found on this computer (looked for the built-in model and in the Hugging Face "
              "cache). Open a model's folder with --model PATH.")
        return 0
    width = max(len(m.name) for m in found)
    for m in found:
        note = f"cannot open: {m.problem}" if m.problem else m.kind
        print(f"{m.name:<{width}}  {note}  {m.path}")
    return 0


def _install_qt_guard():
    """Turn Qt's fatal 'no platform plugin' abort into one clear line and exit code 2."""
    from PySide6 import QtCore

    held: list[str] = []

    def handler(mode, context, message):
        if mode == QtCore.QtMsgType.QtFatalMsg:
            reason = "no usable display"
            low = message.lower()
            if "xcb" in low or "plugin" in low:
                reason = "Qt found no usable platform plugin; a library or the display is missing"
            sys.stderr.write(f"{PROG}: {NO_WINDOW.format(reason=reason)}\n")
            sys.stderr.flush()
            os._exit(2)
        if "qt.qpa" in (context.category or "") or "platform plugin" in message:
            held.append(message)  # shown only if start-up goes on to fail
            return
        if "propagateSizeHints" in message:  # harmless note from the offscreen platform
            return
        if mode in (QtCore.QtMsgType.QtCriticalMsg, QtCore.QtMsgType.QtWarningMsg):
            sys.stderr.write(f"Qt: {message}\n")

    QtCore.qInstallMessageHandler(handler)


def _install_exception_dialog(window) -> None:
    """An error inside any slot is logged and shown once; the app keeps running."""
    import traceback

    shown: set[str] = set()
    previous = sys.excepthook

    def hook(kind, value, tb):
        text = "".join(traceback.format_exception(kind, value, tb))
        sys.stderr.write(text)
        key = f"{kind.__name__}: {value}"
        if key in shown:
            return
        shown.add(key)
        try:
            from PySide6 import QtWidgets

            box = QtWidgets.QMessageBox(window)
            box.setIcon(QtWidgets.QMessageBox.Icon.Warning)
            box.setWindowTitle("Something went wrong")
            box.setText("An internal error happened. Your work is kept and the app keeps running.")
            box.setInformativeText(key)
            box.setDetailedText(text)
            box.exec()
        except Exception:  # noqa: BLE001 - never let the handler itself crash the app
            previous(kind, value, tb)

    sys.excepthook = hook


def main(argv: list[str] | None = None) -> int:
    """Run the command line: a command without a window returns its exit code; the window, once closed,
    ends the process with its exit code (``leave``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "export":
        from . import headless

        return headless.run_export(argv[1:])
    args = build_parser().parse_args(argv)
    if args.list_presets:
        return _list_presets()
    if args.list_models:
        return _list_models()
    from qkv_engine import ScenarioError, presets, session_format

    scenario = None
    model = None
    try:
        if args.text is not None and not args.model:
            raise ScenarioError("--text goes with --model")
        if sum(bool(a) for a in (args.preset, args.session, args.model)) > 1:
            raise ScenarioError("give one of a session file, --preset or --model")
        if args.model:
            from qkv_engine import load_model

            model = load_model(args.model)
        elif args.preset:
            presets.get(args.preset)
        elif args.session:
            scenario = session_format.load_any(args.session)
            if isinstance(scenario, session_format.ModelSession):
                session_format.open_model(scenario.ref)  # says which model is missing, before any window
    except ScenarioError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return 2

    if sys.platform.startswith("linux") and not (
        os.environ.get("QT_QPA_PLATFORM") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        sys.stderr.write(f"{PROG}: {NO_WINDOW.format(reason='no display: DISPLAY is not set')}\n")
        return 2

    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    _install_qt_guard()
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([sys.argv[0]])
    app.setApplicationName("QKV Visualizer")
    app.setOrganizationName("QKV Visualizer")
    app.setDesktopFileName(DESKTOP_ID)  # Wayland docks find the icon through the .desktop entry
    app.setWindowIcon(app_icon())
    from .window.main_window import MainWindow

    window = MainWindow(preset=args.preset or presets.DEFAULT)
    _install_exception_dialog(window)
    if scenario is not None:
        window.open_file(args.session)
    if model is not None:
        window.models.show_model(model, text=args.text)
    window.show()
    if args.lesson:
        window.enter_lesson_mode()
    if scenario is None and model is None and args.quit_after is None:
        def start_up():
            window.offer_recovery()
            if not args.lesson and not args.screenshot:
                from .window.welcome import maybe_welcome

                maybe_welcome(window)  # the first start only
        QtCore.QTimer.singleShot(0, start_up)
    if args.screenshot:
        def grab():
            window.grab().save(args.screenshot)
        QtCore.QTimer.singleShot(300, grab)
    if args.quit_after is not None:
        QtCore.QTimer.singleShot(max(0, args.quit_after), app.quit)
    code = app.exec()
    leave(code, window.settings)


def leave(code: int, settings) -> None:
    """End the process once the window has closed, without Python's teardown of the Qt objects.

    At exit, PySide deletes the Qt objects Python still holds one by one, in no useful order; a graphics
    item deleted after the view it sat in sends events to Python code that is being torn down, and the
    process crashed (after presenter mode, five times in six). Everything the app keeps is written
    by then: the session and recovery files when the window closed, the settings here."""
    settings.sync()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
