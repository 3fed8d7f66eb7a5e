"""The constraint matrix A of the normal equations M = A D A^T + delta I in every form the
mixed solver uses, each made once and owned here: A and A^T by rows (the iteration's
products), A*A (M's diagonal), A dense in float64 with a float32 work array (the GPU's
dense assembly uploads S A), and A's long columns dense beside the rest sparse (a dense M,
formed on the host).  Whether M is dense (`dense`) is learnt at its first forming."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ....parallel import factor_blas
from .host_factor import SPARSE_SHARE
from .rows import rows


class ConstraintForms:
    #: rows of the dense scaled A formed at a time (a float64 block of this many rows)
    ROW_BLOCK = 256
    #: a column with more entries than this goes into the dense product of normal_dense
    DENSE_COLUMN = 32

    def __init__(self, A):
        self.A = rows(A)
        self.At = rows(self.A.T)
        self.A2 = rows(self.A.multiply(self.A))       # diag(A D A^T) = A^2 d, every factorization
        self.m, self.n = self.A.shape
        self.dense = False                  # A D A^T found dense: formed dense from then on
        self._A64 = self._As32 = None       # the dense assembly's A (float64) and its work array
        self._long = None                   # its long columns dense, the others sparse

    def diagonal(self, d: np.ndarray) -> np.ndarray:
        """diag(A diag(d) A^T)."""
        return np.asarray(self.A2 @ d).ravel()

    def matvec(self, d: np.ndarray, delta: float, v: np.ndarray) -> np.ndarray:
        """M v without M."""
        return self.A @ (d * (self.At @ v)) + delta * v

    def scaled_dense(self, s: np.ndarray) -> np.ndarray:
        """S A as float32 for the dense assembly, into one work array: A kept dense in
        float64 (made once), each block of rows scaled in float64 and rounded once --
        the same numbers as scaling the sparse A, without its per-iteration sparse
        products and conversions (fit2p: seconds a solve)."""
        if self._A64 is None:
            self._A64 = self.A.toarray()
            self._As32 = np.empty(self._A64.shape, np.float32)
        for r0 in range(0, self.m, self.ROW_BLOCK):
            r1 = min(self.m, r0 + self.ROW_BLOCK)
            self._As32[r0:r1] = self._A64[r0:r1] * s[r0:r1, None]
        return self._As32

    def scaled_normal(self, ds: np.ndarray, s: np.ndarray):
        """S (A diag(ds) A^T) S, dense where M is known to be (normal_dense), else a sparse
        product -- whose fill decides `dense` for the next ones."""
        if self.dense:
            M = self.normal_dense(ds, 0.0)
            M *= s[:, None]
            M *= s[None, :]
            return M
        As = self.A.multiply(s[:, None]).tocsr()
        M = As.multiply(ds[None, :]).tocsr() @ As.T.tocsr()
        self.dense = M.nnz > SPARSE_SHARE * self.m * self.m
        return M

    def normal(self, d: np.ndarray, delta: float):
        """A diag(d) A^T + delta I unscaled: dense where M is known to be, else sparse (CSC)
        -- whose fill decides `dense` for the next ones."""
        if self.dense:
            return self.normal_dense(d, delta)
        M = (self.A.multiply(d[None, :]).tocsr() @ self.At).tocsc()
        if delta:
            M = M + delta * sp.eye(self.m, format="csc")
        self.dense = M.nnz > SPARSE_SHARE * self.m * self.m
        return M

    def normal_dense(self, d: np.ndarray, delta: float) -> np.ndarray:
        """A diag(d) A^T + delta I as a dense float64 array, for an M known to be dense (fit2p:
        13,500 singleton columns and 25 nearly full ones).  The long columns' part is one
        BLAS product, the rest a sparse one added in; scipy's sparse product of a dense M
        (and its conversions) cost fit2p ~0.6 s a factorization."""
        if self._long is None:
            A = self.A.tocsc()
            long = np.diff(A.indptr) > self.DENSE_COLUMN
            self._long = (np.flatnonzero(long), A[:, long].toarray(), A[:, ~long].tocsr(), np.flatnonzero(~long))
        cols, Ad, As, rest = self._long
        with factor_blas():                         # a factorization's worth of BLAS (blas_solve)
            M = (Ad * d[cols]) @ Ad.T
        Ms = (As.multiply(d[rest][None, :]).tocsr() @ As.T.tocsr()).tocoo()
        M[Ms.row, Ms.col] += Ms.data               # a product's entries: each (row, col) once
        M[np.diag_indices(self.m)] += delta
        return M

    def release(self) -> None:
        """The forms made on demand (A's own stay: the iteration's result needs them)."""
        self._A64 = self._As32 = self._long = None
