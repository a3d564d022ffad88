"""Unsaved work kept for after a crash: each running window has its own recovery file, held by a lock.

    recovery = Recovery(folder)     # a fresh file name for this window, and its lock taken
    recovery.path                   # where this window's autosave writes
    found = recovery.claim_orphan() # a file whose window is gone (crashed), locked for us; or None
    recovery.let_go(found, delete=True)
    recovery.close()                # the window closed normally: its file and lock are removed

A window's lock (a ``QLockFile`` beside its file) lives as long as the window.
A lock whose process has ended is stale: Qt takes it over. So a second window
started while the first runs never sees the first one's file, and only the
file of a window that did not close normally is offered.
"""
from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from PySide6 import QtCore

from qkv_engine import session_format


def default_folder() -> Path:
    """The recovery folder in the user's data folder."""
    folder = QtCore.QStandardPaths.writableLocation(QtCore.QStandardPaths.StandardLocation.AppDataLocation)
    return Path(folder or Path.home() / ".qkv-visualizer") / "recovery"


def _lock(path: Path) -> QtCore.QLockFile:
    lock = QtCore.QLockFile(str(path))
    lock.setStaleLockTime(0)  # never stale by age: only when its process has ended
    return lock


@dataclass
class Orphan:
    """The recovery file of a window that is gone, and the lock we now hold on it."""

    path: Path
    lock: QtCore.QLockFile


class Recovery:
    """This window's recovery file and lock, in ``folder``."""

    def __init__(self, folder):
        self.folder = Path(folder)
        name = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.path = self.folder / f"{name}{session_format.SUFFIX}"
        self.lock = _lock(self.folder / f"{name}.lock")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.lock.tryLock(0)
        except OSError:
            pass  # an unwritable folder: autosave will say so

    def _lock_path(self, path: Path) -> Path:
        return path.with_name(path.name[: -len(session_format.SUFFIX)] + ".lock")

    def claim_orphan(self) -> Orphan | None:
        """The newest recovery file whose window is gone, locked so no other window offers it too."""
        try:
            files = sorted(self.folder.glob(f"*{session_format.SUFFIX}"), key=lambda p: p.stat().st_mtime,
                           reverse=True)
        except OSError:
            return None
        for path in files:
            if path == self.path:
                continue
            lock = _lock(self._lock_path(path))
            if lock.tryLock(0):  # free, or stale: its window is gone
                if path.is_file():
                    return Orphan(path, lock)
                lock.unlock()
        return None

    def let_go(self, orphan: Orphan, delete: bool) -> None:
        """Done with ``orphan``: remove its file (restored or declined) or leave it for a later start."""
        if delete:
            try:
                orphan.path.unlink()
            except OSError:
                pass
        orphan.lock.unlock()  # removes the lock file too

    def drop(self) -> None:
        """Remove this window's file (saved, or closed normally); the lock stays while the window runs."""
        try:
            self.path.unlink()
        except OSError:
            pass

    def close(self) -> None:
        """The window closes normally: no file and no lock are left."""
        self.drop()
        self.lock.unlock()

