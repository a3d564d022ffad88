"""The app's settings file, read without unpickling anything.

PySide6 keeps a Python value that Qt has no type for (a list of bytes, any object) as a pickle inside the
settings file (``key=@Variant(...PySide::PyObjectWrapper...)``), and unpickles it when the file's section
is read: a settings file written by an old version of the app, or by anyone else, could run code on
opening. The app writes only plain values (text, numbers, Qt's byte arrays). Before the app reads its
settings, ``open_settings`` and ``drop_pickled`` take every pickled value out of the file on disk, so that
Qt never sees one.

The settings are an INI file: the native one on Linux (``~/.config/QKV Visualizer/QKV Visualizer.conf``),
an INI file in the user's settings folder on Windows and macOS too (their native stores, the registry and
property lists, could not be checked this way).
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from PySide6 import QtCore

#: What marks a pickled value in a Qt INI file.
PICKLE_MARK = "PyObjectWrapper"


def pickled_lines(text: str) -> list[int]:
    """Indexes of the lines of an INI file's ``text`` that hold a pickled value."""
    return [k for k, line in enumerate(text.splitlines())
            if "=" in line and "@Variant(" in line and PICKLE_MARK in line]


def clean_file(path: str | os.PathLike) -> list[str]:
    """Take every pickled value out of the INI file at ``path`` (written in place, atomically); the keys
    taken out, in the file's words. A file that is missing or cannot be read or written is left alone
    (nothing in it is read by Qt either when it cannot be read)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError:
        return []
    text = raw.decode("latin-1")  # Qt writes the file in ASCII with escapes; latin-1 keeps every byte
    drop = set(pickled_lines(text))
    if not drop:
        return []
    lines = text.splitlines(keepends=True)
    dropped = [lines[k].split("=", 1)[0].strip() for k in sorted(drop)]
    kept = "".join(line for k, line in enumerate(lines) if k not in drop)
    try:
        fd, tmp = tempfile.mkstemp(prefix=path.name, dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(kept.encode("latin-1"))
        os.replace(tmp, path)
    except OSError:
        return []
    return dropped


def is_ini(settings: QtCore.QSettings) -> bool:
    """Whether ``settings`` live in an INI file (Qt's native format is one on Linux and other Unixes)."""
    fmt = settings.format()
    return fmt == QtCore.QSettings.Format.IniFormat or (
        fmt == QtCore.QSettings.Format.NativeFormat and not sys.platform.startswith(("win", "darwin")))


def drop_pickled(settings: QtCore.QSettings) -> list[str]:
    """Take the pickled values out of ``settings``' file before anything in it is read, and have ``settings``
    read the file again; the keys taken out. Call it before the first ``value()``."""
    if not is_ini(settings):
        return []
    dropped = clean_file(settings.fileName())
    if dropped:
        settings.sync()  # the file changed on disk: read afresh (its sections are parsed only when read)
    return dropped


def open_settings() -> QtCore.QSettings:
    """The app's own settings, cleaned of pickles before they are opened."""
    fmt = QtCore.QSettings.Format.NativeFormat
    if sys.platform.startswith(("win", "darwin")):
        fmt = QtCore.QSettings.Format.IniFormat

    def make() -> QtCore.QSettings:
        return QtCore.QSettings(fmt, QtCore.QSettings.Scope.UserScope,
                                QtCore.QCoreApplication.organizationName() or "QKV Visualizer",
                                QtCore.QCoreApplication.applicationName() or "QKV Visualizer")

    clean_file(make().fileName())  # the first one only names the file: nothing in it is read
    return make()
