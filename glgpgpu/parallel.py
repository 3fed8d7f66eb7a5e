"""numpy work split over host threads: numpy's copies and reductions release the
GIL, so the passes a public call makes over a large array (the finiteness check,
the expansion of a packed read-back) run on several cores.  One pool for the
package, made on first use; leaf work only (a task never waits on another)."""
from __future__ import annotations

import os

import numpy as np

_pool = None


def workers() -> int:
    return min(8, os.cpu_count() or 1)


def map_pieces(fn, pieces):
    """[fn(p) for p in pieces], in the pool's threads when there is more than one
    piece and more than one core."""
    global _pool
    pieces = list(pieces)
    if len(pieces) < 2 or workers() < 2:
        return [fn(p) for p in pieces]
    if _pool is None:
        from concurrent.futures import ThreadPoolExecutor
        _pool = ThreadPoolExecutor(workers(), thread_name_prefix="glgpgpu-host")
    return list(_pool.map(fn, pieces))


def fortran_copy(a):
    """a (2-D) as an F-ordered copy, its columns copied in bands on the pool's threads
    (a transposing copy is bound by strided reads: one thread took 6.7 ms at m = 2262)."""
    if a.flags.f_contiguous:
        return a
    out = np.empty(a.shape, a.dtype, order="F")
    cols = a.shape[1]
    step = max(64, -(-cols // workers()))

    def band(c0):
        out[:, c0:c0 + step] = a[:, c0:c0 + step]
    map_pieces(band, range(0, cols, step))
    return out
