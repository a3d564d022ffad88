"""Where a model's large arrays live: blocks of memory that arrays are carved out of, each array starting on a
line of the processor's cache, and a large block in the system's 2 MB pages.

A block is an ``allocation`` of room for some numbers, its arrays taken from ``aligned_start`` on. A block of
HUGE_BLOCK bytes or more is, on Linux, memory mapped afresh for it and asked for in huge pages (madvise): the
processor then finds its numbers with one page-table entry every 2 MB rather than every 4 KB. numpy asks for
huge pages too, but for memory the C library's allocator hands out again, which has mostly been touched
before in 4 KB pages, and those stay 4 KB pages: a MiniLM's joined weights (42 MB) and a 128-token run's block
(12 MB) got 12 MB of huge pages between them that way, and 54 and 12 MB mapped here. A run is then 2 to 3.5 %
quicker at 16 and 128 tokens, 1 % at 512 (A/B, each call after a torch forward, as bench_numpy_vs_torch
measures). Elsewhere (Windows, macOS) and for smaller blocks a block is an ordinary numpy array a line larger
than asked.
"""
from __future__ import annotations

import mmap

import numpy as np

#: The processor's cache line, in bytes: arrays start on one (aligned_start) and take whole ones (line_padded).
LINE_BYTES = 64
#: A huge page of Linux on x86-64 and most ARM computers.
HUGE_PAGE = 2 << 20
#: Blocks of this many bytes or more are mapped in huge pages (numpy asks for them from the same size on).
HUGE_BLOCK = 4 << 20
_CAN_MAP = all(hasattr(mmap, name) for name in ("MAP_PRIVATE", "MAP_ANONYMOUS", "MADV_HUGEPAGE"))


def line_padded(size: int, itemsize: int) -> int:
    """``size`` numbers of ``itemsize`` bytes rounded up to whole 64-byte lines, so that the next array of a block
    starts on a line too."""
    per_line = LINE_BYTES // itemsize
    return -(-size // per_line) * per_line


def allocation(size: int, dtype) -> np.ndarray:
    """A new 1-D array with room for ``size`` numbers of ``dtype`` from its aligned start (aligned_start): mapped in
    huge pages when it is large and the system offers them, else an ordinary array one line longer. Every view of
    it has it as its ``base``, so that it tells whether any array carved out of it is still alive."""
    dtype = np.dtype(dtype)
    nbytes = size * dtype.itemsize
    if _CAN_MAP and nbytes >= HUGE_BLOCK:
        try:
            mapped = mmap.mmap(-1, nbytes + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        except (OSError, ValueError, OverflowError):  # no room for the mapping: the allocator says so below
            mapped = None
        if mapped is not None:
            try:
                mapped.madvise(mmap.MADV_HUGEPAGE)
            except OSError:  # a kernel without huge pages: fresh memory all the same
                pass
            return np.frombuffer(mapped, dtype)
    return np.empty(size + LINE_BYTES // dtype.itemsize, dtype)


def is_mapped(raw: np.ndarray) -> bool:
    """Whether an ``allocation`` was mapped in huge pages."""
    return isinstance(raw.base, memoryview) and isinstance(raw.base.obj, mmap.mmap)


def room(raw: np.ndarray) -> int:
    """How many numbers an ``allocation`` has room for from its aligned start."""
    return raw.size - (HUGE_PAGE if is_mapped(raw) else LINE_BYTES) // raw.itemsize


def aligned_start(raw: np.ndarray, size: int) -> np.ndarray:
    """``size`` numbers of an ``allocation`` from its first 2 MB boundary (a mapped one: where its huge pages begin)
    or its first 64-byte line (the C library's allocator gives 16-byte starts, and numbers that straddle two lines
    of the processor's cache cost 5 % of a forward at 512 tokens, 1 % at 128: A/B)."""
    align = HUGE_PAGE if is_mapped(raw) else LINE_BYTES
    skip = (-raw.ctypes.data % align) // raw.itemsize
    return raw[skip:skip + size]
