"""Panels take a new result a few at a time, so that typing is read between them.

After an edit every panel in sight takes the session's new numbers and is repainted. Done all at once, that
is one turn of the event loop of about 10 ms on a 2-core machine, and far more when the machine is busy:
a key pressed meanwhile waits until the turn is over. (Qt delivers a repaint as a posted event, and posted
events go before the window system's input and timers, so a panel's repaint belongs to the turn in which
it took the numbers.)

So the panels take the numbers in turns. In the turn of the recompute, panels take them one after another
while less than ``BUDGET_MS`` have passed since the first one began; the others wait in a queue, first come
first served, and the next turns take them on in the same way. Between two turns Qt reads the keyboard and
the mouse, and paints what the panels before have changed. A panel that is up to date when its turn comes
(it was brought up to date meanwhile) is passed over; a panel already waiting is not queued twice, and a
new edit does not push it back. A panel told of a change while the session has a result still to announce
(a new head of a model: the model view hears of it first) waits for that result, so that it takes the
change and the result in one go, together with the other panels.

One queue per session: ``for_session(session)``; it goes with the session.
"""
from __future__ import annotations

import time
import weakref

import shiboken6
from PySide6 import QtCore

#: A turn of the event loop takes panels while less than this many milliseconds have passed since it took
#: the first (the last panel it takes, and the repaint of them all, come on top of it).
BUDGET_MS = 2.0

_QUEUES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def for_session(session) -> "UpdateQueue":
    """The queue of the panels drawing ``session``."""
    queue = _QUEUES.get(session)
    if queue is None:
        queue = _QUEUES[session] = UpdateQueue(session)
    return queue


def waiting_anywhere() -> int:
    """How many panels of any session wait for a later turn (tests and benchmarks run the event loop until
    none does)."""
    return sum(queue.waiting for queue in list(_QUEUES.values()))


class UpdateQueue:
    """Panels waiting to take the session's numbers; see the module's docstring."""

    def __init__(self, session):
        self._session = weakref.ref(session)
        self._waiting: list = []
        self._since: float | None = None  # when this turn took its first panel; None between bursts of work
        self._timer = QtCore.QTimer(session)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)  # the next turn of the event loop, after input and the repaints waiting
        self._timer.timeout.connect(self._next_turn)
        session.destroyed.connect(self._waiting.clear)  # (its panels went with it)

    @property
    def waiting(self) -> int:
        """How many panels wait for a later turn."""
        return len(self._waiting)

    def take(self, panel) -> None:
        """``panel.refresh()`` now if this turn has time left, nobody waits before it and the session has no
        result still to announce; else later."""
        now = time.perf_counter()
        if self._since is None:
            self._since = now
            self._timer.start()  # the next turn goes on with what waits (or marks the end of this one)
        session = self._session()
        pending = session is not None and session.result_pending
        if not pending and not self._waiting and (now - self._since) * 1000.0 < BUDGET_MS:
            panel.refresh()
        elif panel not in self._waiting:
            self._waiting.append(panel)

    def drop(self, panel) -> None:
        """Forget ``panel`` (it is going away)."""
        if panel in self._waiting:
            self._waiting.remove(panel)

    def _next_turn(self) -> None:
        session = self._session()
        if session is not None:
            # edits made since the panels waiting were queued: the session announces their result first (its
            # panels then take it in turn), so that no panel draws a result the others are not told of
            session.flush_if_pending()
        self._since = time.perf_counter()
        try:
            while self._waiting:
                self._refresh(self._waiting.pop(0))
                if (time.perf_counter() - self._since) * 1000.0 >= BUDGET_MS:
                    break
        finally:
            if self._waiting:
                self._timer.start()
            else:
                self._since = None

    @staticmethod
    def _refresh(panel) -> None:
        if shiboken6.isValid(panel):  # (a panel closed with its window while it waited is gone)
            panel.catch_up()
