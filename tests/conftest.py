"""Shared test set-up: Qt runs offscreen, threads are set as the app sets them, and settings never touch
the user's own."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from qkv_gui.system.blas import one_thread  # noqa: E402

one_thread()  # as the app does: BLAS on one thread, Qt paints without its thread pool


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _delete_closed_widgets():
    """Widgets that pytest-qt closed after the previous test are deleted before this one starts.

    pytest-qt closes each test's windows and asks Qt to delete them later, but only a running event loop
    deletes them, and tests turn the loop with ``processEvents``, which does not. Without this every
    window of the session (about 850 widgets each) would stay alive, and the suite would slow down as it
    goes (window set-up, garbage collection, event delivery).
    """
    from PySide6 import QtCore

    if QtCore.QCoreApplication.instance() is not None:
        QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    yield
