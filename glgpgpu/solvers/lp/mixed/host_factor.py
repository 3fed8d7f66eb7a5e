"""The float64 factor of the normal matrix on the host: the LP solves' last resort
(mixed/normal.py) and the reference factor of device="cpu64".

Three ways to one regularized factor of M + shift I (the shift starting at floor x
max diag, growing by 100 until the factorization succeeds):

* "multifrontal": the supernodal Cholesky of solvers/sparse_cholesky.py, on the
  sparse QR's symbolic analysis of A^T (COLAMD), for normal matrices whose factor
  takes many flops (dfl001: five times qdldl's time, benchmarks/RESULTS.md);
* "sparse": qdldl's LDL^T (AMD ordering; installed with glgpgpu[lp]) for the rest
  of the sparse ones, where one compiled call beats a loop over fronts;
* "dense": LAPACK's Cholesky, for dense M or without either.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ...sparse_cholesky import MultifrontalCholesky

#: a sparse factor where M holds at most this share of nonzeros (denser: LAPACK's dense Cholesky)
SPARSE_SHARE = 0.25
#: the multifrontal factor where its analysis counts at least this many flops
MULTIFRONTAL_FLOPS = 5e7
GROWTH, TRIES = 100.0, 12


def _regularized_cholesky(M: np.ndarray, floor: float) -> np.ndarray:
    """LAPACK Cholesky of M + shift I, the shift starting at floor * max diag and
    growing until M + shift I is positive definite in M's precision (M is not changed)."""
    big = max(float(np.max(np.diag(M), initial=0)), 1e-300)
    shift = floor * big
    W = M.copy()
    diag = np.einsum("ii->i", W)            # a view: the shift goes on in place
    base = diag.copy()
    for _ in range(TRIES):
        diag[:] = base + shift
        try:
            return np.linalg.cholesky(W)
        except np.linalg.LinAlgError:
            shift *= GROWTH
    raise np.linalg.LinAlgError("the normal matrix could not be regularized to positive definite")


#: a sparse factor where M holds at most this share of nonzeros (denser: LAPACK's dense Cholesky)
SPARSE_SHARE = 0.25


class HostFactor:
    """float64 factor of a sparse symmetric positive (semi)definite M with a unit-sized
    diagonal (the module's three ways).  kind: "multifrontal", "sparse" or "dense"."""

    def __init__(self, M: sp.spmatrix, floor: float, analysis=None):
        """analysis: the CholeskyAnalysis of M's pattern (None: no multifrontal factor)."""
        m = M.shape[0]
        self.kind = "dense"
        if analysis is not None and analysis.flops >= MULTIFRONTAL_FLOPS and M.nnz <= SPARSE_SHARE * m * m:
            self._multifrontal(analysis, sp.csc_matrix(M), floor)
        if self.kind == "dense" and M.nnz <= SPARSE_SHARE * m * m:
            try:
                import qdldl
            except ImportError:
                qdldl = None
            if qdldl is not None:
                self._sparse(qdldl, sp.triu(M, format="csc"), floor)
        if self.kind == "dense":
            self.L = _regularized_cholesky(M.toarray(), floor)

    def _multifrontal(self, analysis, M, floor):
        shift = floor * max(float(M.diagonal().max(initial=0)), 1e-300)
        eye = sp.eye(M.shape[0], format="csc")
        for _ in range(TRIES):
            try:
                self.F, self.kind = MultifrontalCholesky(analysis, M + shift * eye), "multifrontal"
                return
            except np.linalg.LinAlgError:
                shift *= GROWTH

    def _sparse(self, qdldl, U, floor):
        big = max(float(U.diagonal().max(initial=0)), 1e-300)
        shift = floor * big
        eye = sp.eye(U.shape[0], format="csc")
        for _ in range(TRIES):
            try:
                F = qdldl.Solver((U + shift * eye).tocsc(), upper=True)
                if np.all(F.factors()[1] > 0):       # LDL^T of a positive definite matrix: D > 0
                    self.F, self.kind = F, "sparse"
                    return
            except (ValueError, RuntimeError):      # qdldl: a zero pivot ("not quasi-definite")
                pass
            shift *= GROWTH
        # not positive definite at any shift tried: the dense path says so

    def solve(self, b: np.ndarray) -> np.ndarray:
        if self.kind != "dense":
            return self.F.solve(b)
        y = sla.solve_triangular(self.L, b, lower=True, check_finite=False)
        return sla.solve_triangular(self.L, y, lower=True, trans=1, check_finite=False)
