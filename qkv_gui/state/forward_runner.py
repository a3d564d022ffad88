"""The forward runner of the trained-model mode: runs a ``ModelDoc`` (``model_document.py``) through its model.

Each change runs the model again (``Model.run``): a new sentence every layer, an edit from the layer
it changes up (the layers below are taken from the last run); the chosen layer and head then give the
one-head Scenario that every panel draws.

A forward expected to take longer than a frame (the last forward over every layer's time, times the share
of the layers this one goes through) runs on a worker thread, so typing never stalls the window;
only the newest request counts (older ones that land late are dropped), and ``busyChanged`` says when
one is running so the window can show a hint.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from PySide6 import QtCore

from qkv_engine import ModelError

from .model_document import ModelDoc

#: A forward expected to take longer than this (seconds) runs on the worker thread.
FRAME_BUDGET = 0.008


class ForwardRunner(QtCore.QObject):
    """Runs ``doc.model.run(doc.text, doc.edits)``; ``traceReady(doc, trace)`` when it lands.

    A quick model runs at once, on the calling thread (the result is there before ``request`` returns);
    a slow one on one worker thread. ``sync = True`` forces the calling thread (headless use, tests).
    """

    traceReady = QtCore.Signal(object, object)  # (ModelDoc, ModelTrace)
    failed = QtCore.Signal(object, str)  # (ModelDoc, one-line reason)
    busyChanged = QtCore.Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.sync = False
        self.last_seconds = 0.0  # how long the last forward over every layer took
        self.runs = 0  # forwards finished (tests)
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._wanted = None  # the newest doc asked for
        self._running = False
        self._pending = None  # a doc to run when the worker is free
        self._last = None  # the newest trace made: the next run of that model reuses its layers below an edit
        self._landed = _Landed(self)
        self._landed.arrived.connect(self._on_landed, QtCore.Qt.ConnectionType.QueuedConnection)

    @property
    def busy(self) -> bool:
        return self._running

    def request(self, doc: ModelDoc) -> None:
        self._wanted = doc
        reuse, start = self._reuse(doc)
        share = 1.0 - start / doc.model.info.n_layers  # of the layers this run goes through
        if self.sync or (not self._running and self.last_seconds * share <= FRAME_BUDGET):
            self._run_here(doc, reuse, start)
            return
        if self._running:
            self._pending = doc  # the worker takes the newest when it is free
            return
        self._start(doc)

    def wait(self, timeout: float = 30.0) -> bool:
        """Block until no forward is running and every landed trace was delivered (tests, export)."""
        end = time.monotonic() + timeout
        app = QtCore.QCoreApplication.instance()
        while (self._running or self._pending is not None) and time.monotonic() < end:
            if app is not None:
                app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.002)
        if app is not None:
            app.processEvents()
        return not self._running

    # ----- internals ----------------------------------------------------------------------------
    def _reuse(self, doc: ModelDoc) -> tuple:
        """(the newest trace, the layer a run of ``doc`` starts from) when ``Model.run`` can reuse that trace
        (the same model and sentence: an edit runs from the layer it changes), else (None, 0)."""
        last = self._last
        try:
            start = doc.model.resume_layer(doc.text, doc.edits, last) if last is not None else 0
        except ModelError:  # edits the model does not have: the run says so (``failed``)
            return None, 0
        return (last, start) if start else (None, 0)

    def _run_here(self, doc: ModelDoc, reuse, start: int) -> None:
        t0 = time.perf_counter()
        try:
            trace = doc.model.run(doc.text, doc.edits, reuse=reuse)
        except ModelError as exc:
            self.failed.emit(doc, str(exc))
            return
        self._last = trace
        if not start:  # (a run of a few layers has costs of its own that do not scale with the layers)
            self.last_seconds = time.perf_counter() - t0
        self.runs += 1
        self.traceReady.emit(doc, trace)

    def _start(self, doc: ModelDoc) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qkv-forward")
        self._running = True
        self.busyChanged.emit(True)
        self._pool.submit(self._work, doc, *self._reuse(doc))

    def _work(self, doc: ModelDoc, reuse, start: int) -> None:
        t0 = time.perf_counter()
        try:
            outcome = doc.model.run(doc.text, doc.edits, reuse=reuse)
        except ModelError as exc:
            outcome = exc
        except Exception as exc:  # noqa: BLE001 - reported on the GUI thread, never lost in the worker
            outcome = ModelError(f"the model could not run: {exc}")
        self._landed.arrived.emit(doc, outcome, time.perf_counter() - t0 if not start else -1.0)

    def _on_landed(self, doc, outcome, seconds) -> None:
        """``seconds``: how long the forward took when it went over every layer, else -1."""
        self._running = False
        if seconds >= 0.0:
            self.last_seconds = seconds
        if not isinstance(outcome, Exception) and self._wanted is not None:
            self._last = outcome
        pending, self._pending = self._pending, None
        if pending is not None and pending is not doc:
            self._start(pending)  # a newer request came in while this one ran
        else:
            self.busyChanged.emit(False)
        if doc is not self._wanted:
            return  # overtaken by a newer request: its trace is on the way
        if isinstance(outcome, Exception):
            self.failed.emit(doc, str(outcome))
            return
        self.runs += 1
        self.traceReady.emit(doc, outcome)

    def forget(self) -> None:
        """The model is closed: keep no trace of it (at 512 tokens its weights and scores take 150 MB), and
        drop a forward of it still running when it lands."""
        self._wanted = None
        self._pending = None
        self._last = None

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class _Landed(QtCore.QObject):
    """Carries a finished forward from the worker thread to the GUI thread (a queued signal)."""

    arrived = QtCore.Signal(object, object, float)
