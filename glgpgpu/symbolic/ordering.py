"""Fill-reducing column orderings for sparse QR (Yeralan et al. 2015, section 2.1.1:
"permute A so the factors have fewer nonzeros"; the ordering stays on the CPU).

"colamd" is COLAMD (Davis, Gilbert, Larimore, Ng 2004), the paper's and
SuiteSparseQR's default, called through the system's libcolamd (BSD; Debian's
`libcolamd2`) with ctypes -- a maintained library, not a re-implementation.
"natural" keeps A's order; "given" takes the caller's permutation.
"""
from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache

import numpy as np

from ..errors import OrderingUnavailableError

ORDERINGS = ("colamd", "natural", "given")

_LIBS = ("colamd", "libcolamd.so.3", "libcolamd.so.2")


@lru_cache(maxsize=1)
def _libcolamd():
    for name in _LIBS:
        path = ctypes.util.find_library(name) if "." not in name else name
        if not path:
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        lib.colamd_recommended.restype = ctypes.c_size_t
        lib.colamd_recommended.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.colamd_set_defaults.argtypes = [ctypes.POINTER(ctypes.c_double)]
        lib.colamd.restype = ctypes.c_int
        lib.colamd.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                               ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_double),
                               ctypes.POINTER(ctypes.c_int)]
        return lib
    return None


def colamd_available() -> bool:
    return _libcolamd() is not None


def colamd(A, dense_rows: float | None = None) -> np.ndarray:
    """COLAMD's column permutation of the scipy.sparse matrix A (m x n): p[k] is the
    column of A placed k-th.  COLAMD's default knobs (dense rows and columns ignored),
    or with dense_rows the knob for rows: -1 ignores only rows that are entirely dense,
    as CHOLMOD's interface to COLAMD sets it for SuiteSparseQR (seba^T: 10% fewer
    entries in R than with COLAMD's default)."""
    lib = _libcolamd()
    if lib is None:
        raise OrderingUnavailableError(
            "ordering='colamd' needs the COLAMD library (SuiteSparse), which is not installed: "
            "Debian/Ubuntu: sudo apt-get install libcolamd2 (or pass ordering='natural' or a permutation)")
    A = A.tocsc()
    m, n = A.shape
    if n == 0:
        return np.zeros(0, np.int64)
    nnz = int(A.indptr[-1])
    alen = int(lib.colamd_recommended(nnz, m, n))
    if alen == 0:
        raise OverflowError(f"COLAMD cannot order a {m} x {n} matrix with {nnz} nonzeros (int overflow)")
    rows = np.zeros(alen, np.int32)
    rows[:nnz] = A.indices
    p = A.indptr.astype(np.int32).copy()
    knobs = (ctypes.c_double * 20)()
    stats = (ctypes.c_int * 20)()
    lib.colamd_set_defaults(knobs)
    if dense_rows is not None:
        knobs[0] = dense_rows                # COLAMD_DENSE_ROW
    ok = lib.colamd(m, n, alen, rows.ctypes.data_as(ctypes.POINTER(ctypes.c_int)),
                    p.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), knobs, stats)
    if not ok:
        raise RuntimeError(f"COLAMD failed (status {stats[3]}) on a {m} x {n} matrix")
    return p[:n].astype(np.int64)


def column_order(A, ordering="colamd", *, dense_rows: float | None = None) -> tuple:
    """(permutation, name): the fill-reducing order of A's columns.  `ordering` is a
    name from ORDERINGS or a permutation of range(n) (then "given"); dense_rows: colamd's."""
    n = A.shape[1]
    if isinstance(ordering, str):
        if ordering == "colamd":
            return colamd(A, dense_rows), "colamd"
        if ordering == "natural":
            return np.arange(n), "natural"
        raise ValueError(f"ordering must be one of {ORDERINGS[:2]} or a permutation of the columns, got {ordering!r}")
    p = np.asarray(ordering)
    if p.ndim != 1 or p.shape[0] != n or not np.issubdtype(p.dtype, np.integer) \
            or not np.array_equal(np.sort(p), np.arange(n)):
        raise ValueError(f"ordering must be a permutation of range({n}) (A has {n} columns)")
    return p.astype(np.int64), "given"
