"""numpy's linear algebra on one thread, unless the user chose otherwise.

On a 2-core classroom laptop, BLAS threads compete with the GUI thread for the second core: at
512 tokens they added about 28 ms of CPU to each edit and made the window wait. The matrices here
are small, so one thread is as fast. The setting only takes effect before numpy is first imported:
``one_thread()`` runs when ``qkv_gui.app`` (the entry point of ``main.py`` and of the
``qkv-visualizer`` command) and ``qkv_gui.headless`` are imported, and neither imports numpy itself.
"""
from __future__ import annotations

import os

#: The variables OpenBLAS, OpenMP and MKL read for their number of threads.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_thread() -> None:
    """Set each of ``THREAD_VARIABLES`` to 1 where the user has not set it."""
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
