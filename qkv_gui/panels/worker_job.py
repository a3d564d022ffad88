"""A piece of slow engine work on a worker thread, with progress and cancelling, its outcome on the GUI thread.

    job = WorkerJob(lambda progress: head_effects(..., progress=progress), "the heads could not be worked out")
    job.progressed.connect(bar.setValue)           # (done, total), while it runs
    job.done.connect(on_done)                      # (result, or None when cancelled; error text or "")
    job.start()                                    # job.cancel() stops it at its next progress call

``work(progress)`` calls ``progress(done, total)``, which answers False once the job is cancelled; the work then
returns None. A ModelError or ScenarioError is said in its own words, any other error after ``failure``.
"""
from __future__ import annotations

import threading

from PySide6 import QtCore

from qkv_engine import ModelError, ScenarioError


class WorkerJob(QtCore.QObject):
    progressed = QtCore.Signal(int, int)
    done = QtCore.Signal(object, str)

    def __init__(self, work, failure: str, name: str = "qkv-worker", parent=None):
        super().__init__(parent)
        self._run, self._failure = work, failure
        self._cancelled = threading.Event()
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def wait(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _progress(self, done: int, total: int) -> bool:
        self.progressed.emit(done, total)
        return not self._cancelled.is_set()

    def _work(self) -> None:
        try:
            result, error = self._run(self._progress), ""
        except (ModelError, ScenarioError) as exc:
            result, error = None, str(exc)
        except Exception as exc:  # noqa: BLE001 - said on the GUI thread, never lost in the worker
            result, error = None, f"{self._failure}: {exc}"
        self.done.emit(None if self._cancelled.is_set() else result, error)
