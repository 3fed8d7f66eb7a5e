"""numpy work split over host threads: numpy's copies and reductions release the
GIL, so the passes a public call makes over a large array (the finiteness check,
the expansion of a packed read-back) run on several cores.  One pool for the
package, made on first use; leaf work only (a task never waits on another)."""
from __future__ import annotations

import os
import contextvars
from contextlib import contextmanager, nullcontext

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


def _controller():
    """threadpoolctl's controller of the loaded libraries (made once), or False without it."""
    global _blas
    if _blas is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _blas = False
        else:
            _blas = ThreadpoolController()
    return _blas


def _blas_now() -> list:
    return [lib.num_threads for lib in _blas.select(user_api="blas").lib_controllers]


def blas_threads(limit: int):
    """A context in which the BLAS libraries numpy and scipy loaded run on at most `limit`
    threads (threadpoolctl's, where it is installed; else nothing changes).  For many small
    BLAS calls in a row -- a multifrontal factor's fronts -- where a wide machine's threads
    cost more in waking and waiting than they share (benchmarks/RESULTS.md)."""
    if not _controller():
        return nullcontext()
    # only ever fewer: more threads than the library runs (its cores, or the user's setting)
    # oversubscribe the cores, and each BLAS call then waits on threads that cannot run
    return _blas.limit(limits=min([limit] + _blas_now()), user_api="blas")


#: the BLAS threads factor_blas() gives inside blas_solve() (None: outside one)
_FACTOR_THREADS = contextvars.ContextVar("glgpgpu_factor_threads", default=None)


@contextmanager
def blas_solve(factor_limit: int):
    """A solve's BLAS: one thread for its vector operations, and at most `factor_limit` (never
    more than the libraries run now) inside factor_blas() -- its factorizations.  A large dot
    product on several OpenBLAS threads, right after a LAPACK call, waited ~5 ms for the pool
    (two cores; 1.6 us on one thread), and an LP iteration makes several."""
    now = _blas_now() if _controller() else []
    # no library found yet: one thread (a limit above a library's own would oversubscribe its cores)
    token = _FACTOR_THREADS.set(min([factor_limit] + now) if now else 1)
    try:
        with blas_threads(1):
            yield
    finally:
        _FACTOR_THREADS.reset(token)


def factor_blas():
    """Inside blas_solve(): the BLAS threads it keeps for factorizations; elsewhere nothing changes."""
    n = _FACTOR_THREADS.get()
    if n is None or not _blas:
        return nullcontext()
    return _blas.limit(limits=n, user_api="blas")
