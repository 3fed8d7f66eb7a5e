"""numpy work split over host threads: numpy's copies and reductions release the
GIL, so the passes a public call makes over a large array (the finiteness check,
the expansion of a packed read-back) run on several cores.  One pool for the
package, made on first use; leaf work only (a task never waits on another)."""
from __future__ import annotations

import os
from contextlib import nullcontext

import numpy as np

_pool = None
_blas = None


def workers() -> int:
    return min(8, os.cpu_count() or 1)


def map_pieces(fn, pieces):
    """[fn(p) for p in pieces], in the pool's threads when there is more than one
    piece and more than one core."""
    pieces = list(pieces)
    if len(pieces) < 2 or workers() < 2:
        return [fn(p) for p in pieces]
    return list(_executor().map(fn, pieces))


def _executor():
    global _pool
    if _pool is None:
        from concurrent.futures import ThreadPoolExecutor
        _pool = ThreadPoolExecutor(workers(), thread_name_prefix="glgpgpu-host")
    return _pool


class Prefaulted:
    """A new array whose pages the pool's threads fault in now, while the caller does other
    work -- the GPU's, waited on: a large array's first writes fault its pages one at a
    time, so a read-back into a fresh one runs far below memory speed.  zero=False: np.empty's
    numbers (one write a page; the caller writes them all); zero=True: all zero.  `.array`
    waits for the threads."""

    PAGE_NUMBERS = 1024                      # numbers of 4 bytes a page; 8-byte ones touch every other

    def __init__(self, shape, dtype=np.float32, zero: bool = False, from_bytes: int = 8 << 20):
        self._touch = []
        if np.prod(shape, dtype=np.int64) * np.dtype(dtype).itemsize < from_bytes or workers() < 2:
            self._array = (np.zeros if zero else np.empty)(shape, dtype)
            return
        self._array = np.empty(shape, dtype)
        step = 1 if zero else max(1, 4 * self.PAGE_NUMBERS // self._array.itemsize)
        pool = _executor()
        pieces = np.array_split(self._array.reshape(-1), 4 * workers() if zero else workers())
        self._touch = [pool.submit(_touch, piece, step) for piece in pieces]

    @property
    def array(self) -> np.ndarray:
        for f in self._touch:
            f.result()
        self._touch = []
        return self._array


def _touch(piece: np.ndarray, step: int) -> None:
    piece[::step] = 0


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


def blas_threads(limit: int):
    """A context in which the BLAS libraries numpy and scipy loaded run on at most `limit`
    threads (threadpoolctl's, where it is installed; else nothing changes).  For many small
    BLAS calls in a row -- a multifrontal factor's fronts -- where a wide machine's threads
    cost more in waking and waiting than they share (benchmarks/RESULTS.md)."""
    global _blas
    if _blas is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _blas = False
        else:
            _blas = ThreadpoolController()
    if not _blas:
        return nullcontext()
    # only ever fewer: more threads than the library runs (its cores, or the user's setting)
    # oversubscribe the cores, and each BLAS call then waits on threads that cannot run
    now = [lib.num_threads for lib in _blas.select(user_api="blas").lib_controllers]
    return _blas.limit(limits=min([limit] + now), user_api="blas")
