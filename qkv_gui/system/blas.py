"""numpy's linear algebra, and Qt's painting, on the calling thread, unless the user chose otherwise.

On a 2-core classroom laptop, helper threads compete with the GUI thread for the second core:

* BLAS threads: at 512 tokens they added about 28 ms of CPU to each edit and made the window wait. The
  matrices here are small, so one thread is as fast.
* Qt's raster painter hands a large fill or image blit (a view's cached background, say) to a pool of
  threads and waits for them. For the window's panels the hand-over costs more than it saves: repainting
  every view took 5.0 ms of wall time with the pool and 4.3 ms without it. ``QT_NO_GUI_THREADPOOL`` (read
  by Qt the first time it paints) keeps the painting on the GUI thread.

The settings only take effect before numpy is first imported and before Qt first paints: ``one_thread()``
runs when ``qkv_gui.app`` (the entry point of ``main.py`` and of the ``qkv-visualizer`` command) and
``qkv_gui.headless`` are imported, and neither imports numpy or Qt itself.
"""
from __future__ import annotations

import os

#: The variables OpenBLAS, OpenMP and MKL read for their number of threads.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
#: Set (to anything), Qt paints without its pool of helper threads.
QT_NO_PAINT_THREADS = "QT_NO_GUI_THREADPOOL"


def one_thread() -> None:
    """Set each of ``THREAD_VARIABLES`` to 1, and ``QT_NO_PAINT_THREADS``, where the user has not set it."""
    for name in (*THREAD_VARIABLES, QT_NO_PAINT_THREADS):
        os.environ.setdefault(name, "1")
