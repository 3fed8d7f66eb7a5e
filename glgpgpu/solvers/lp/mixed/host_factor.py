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

`SparseLDL` is the "sparse" way on a pattern made once per problem (normal_pattern):
qdldl's ordering and elimination tree kept, only the numbers factored again.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ...sparse_cholesky import MultifrontalCholesky, ldl_flops, qdldl_module

#: a sparse factor where M holds at most this share of nonzeros (denser: LAPACK's dense Cholesky)
SPARSE_SHARE = 0.25
#: the multifrontal factor where its analysis counts at least this many flops ...
MULTIFRONTAL_FLOPS = 5e7
#: ... and fewer than this share of the dense factor's m^3 / 3: a factor that fills so far runs
#: quicker as LAPACK's dense one (a random sparse LP of 4,000 rows: 1.32 -> 0.65 s a factor)
DENSE_FILL = 0.5
GROWTH, TRIES = 100.0, 12
#: an LDL^T pivot of M + shift I below this share of the shift is taken as rounding's (SparseLDL)
PIVOT_SHARE = 0.5


def shifted(factor, top: float, floor: float):
    """factor(shift) for shift = floor * top, then 100 times more each time it raises
    numpy.linalg.LinAlgError (not positive definite at that shift), TRIES times; the
    last failure is raised."""
    shift = floor * max(top, 1e-300)
    for k in range(TRIES):
        try:
            return factor(shift)
        except np.linalg.LinAlgError:
            if k == TRIES - 1:
                raise
            shift *= GROWTH


def _regularized_cholesky(M: np.ndarray, floor: float) -> np.ndarray:
    """LAPACK Cholesky of M + shift I, the shift starting at floor * max diag and
    growing until M + shift I is positive definite in M's precision (M is not changed)."""
    W = M.copy()
    diag = np.einsum("ii->i", W)            # a view: the shift goes on in place
    base = diag.copy()

    def factor(shift):
        diag[:] = base + shift
        # scipy's potrf: numpy's cholesky took 1.6-2.3x as long at orders 500-1000
        return sla.cholesky(W, lower=True, check_finite=False)
    try:
        return shifted(factor, float(np.max(base, initial=0)), floor)
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError("the normal matrix could not be regularized to positive definite") from None


class HostFactor:
    """float64 factor of a sparse symmetric positive (semi)definite M with a unit-sized
    diagonal (the module's three ways).  kind: "multifrontal", "sparse" or "dense"."""

    def __init__(self, M, floor: float, analysis=None):
        """M scipy.sparse, or a dense array (then dense).  analysis: the CholeskyAnalysis
        of M's pattern (None: no multifrontal factor)."""
        m = M.shape[0]
        if not sp.issparse(M):
            self.kind = "dense"
            self.L = _regularized_cholesky(np.asarray(M, np.float64), floor)
            return
        M = sp.csc_matrix(M)
        top = float(M.diagonal().max(initial=0))
        eye = sp.eye(m, format="csc")
        self.kind = "dense"
        filled = analysis is not None and analysis.flops >= DENSE_FILL * m ** 3 / 3.0
        sparse = M.nnz <= SPARSE_SHARE * m * m and not filled
        if sparse and analysis is not None and analysis.flops >= MULTIFRONTAL_FLOPS:
            try:
                self.F = shifted(lambda shift: MultifrontalCholesky(analysis, M + shift * eye), top, floor)
                self.kind = "multifrontal"
            except np.linalg.LinAlgError:
                pass
        if self.kind == "dense" and sparse:
            qdldl = qdldl_module()
            if qdldl is not None:
                U = sp.triu(M, format="csc")
                try:
                    self.F = shifted(lambda shift: _ldl(qdldl, (U + shift * eye).tocsc()), top, floor)
                    self.kind = "sparse"
                except np.linalg.LinAlgError:
                    pass                     # not positive definite at any shift tried: the dense path says so
        if self.kind == "dense":
            self.L = _regularized_cholesky(M.toarray(), floor)

    def solve(self, b: np.ndarray) -> np.ndarray:
        if self.kind != "dense":
            return self.F.solve(b)
        y = sla.solve_triangular(self.L, b, lower=True, check_finite=False)
        return sla.solve_triangular(self.L, y, lower=True, trans=1, check_finite=False)

    def release(self) -> None:
        """Nothing to give back (host memory): as the GPU's float64 factor's release."""


#: L's flops (sum of its squared column counts) from which the multifrontal factor is worth
#: its Python analysis instead: the same line as MULTIFRONTAL_FLOPS, in qdldl's own count
LDL_FLOPS = MULTIFRONTAL_FLOPS


class SparseLDL:
    """qdldl's LDL^T of a sparse M on a fixed pattern (normal_pattern.NormalPattern): the
    first factorization orders (AMD) and finds the elimination tree, later ones only
    factor the new numbers (`Solver.update`: 80bau3b's 8.9 ms a factorization -> 2.2).
    One live factor: factor() replaces the numbers the last one solved with."""

    kind = "sparse"

    def __init__(self, pattern, ordered=None):
        """ordered: a qdldl Solver already made on this very triangle structure (the presolve's
        rank check of A A^T, `ordered_on`): its ordering and tree are taken, not made again."""
        self.pattern = pattern
        self._solver = ordered
        self._U = None                           # the triangle as scipy CSC, its values replaced each time
        self.flops = 0.0                         # of the last factor: sum of L's squared column counts

    def factor(self, data: np.ndarray, floor: float) -> "SparseLDL":
        """Factor the M whose triangle holds `data` (pattern order), regularized as
        HostFactor's are: a shift from floor x max diag, 100 times more while not
        positive definite."""
        top = float(data[self.pattern.diagonal_at].max(initial=0))
        shifted(lambda shift: self._factor(data, shift), top, floor)
        return self

    def _factor(self, data, shift):
        w = data.copy()
        w[self.pattern.diagonal_at] += shift
        if self._U is None:
            self._U = self.pattern.matrix(w)
        else:
            self._U.data = w                     # the same structure: no new scipy matrix a factorization
        U = self._U
        qdldl = qdldl_module()
        try:
            if self._solver is None:
                self._solver = qdldl.Solver(U, upper=True)
                self.flops = 0.0
            else:
                self._solver.update(U, upper=True)
        except (ValueError, RuntimeError) as exc:      # a zero pivot ("not quasi-definite")
            self._solver = None                        # ordered again next time: nothing half-made kept
            raise np.linalg.LinAlgError(str(exc)) from None
        L, D, perm = self._solver.factors()
        # M is semidefinite, so every pivot of M + shift I is at least the shift in exact
        # arithmetic: one far below it is rounding's, and its solves are noise (ganges and
        # modszk1 then took 45 and 39 iterations instead of 18 and 28).  A border's pivots
        # (long columns, normal_pattern) are negative: K is quasi-definite
        of_m = np.asarray(perm) < self.pattern.m
        if not (np.all(D[of_m] > PIVOT_SHARE * shift) and np.all(D[~of_m] < 0)):
            raise np.linalg.LinAlgError("LDL^T with a pivot below the shift")
        if not self.flops:                       # L's pattern is the ordering's: counted once
            self.flops = ldl_flops(L)

    def solve(self, b: np.ndarray) -> np.ndarray:
        P = self.pattern
        if P.size == P.m:
            return self._solver.solve(b)
        return self._solver.solve(np.concatenate([b, np.zeros(P.size - P.m)]))[:P.m]

    def release(self) -> None:
        """Nothing to give back: the pattern's factor is kept for the next numbers (Float64Ladder)."""


def ordered_on(order, pattern):
    """`order` -- (qdldl Solver, indptr, indices) of an upper triangle it was made on -- where that
    structure is exactly the pattern's triangle, else None."""
    if order is None:
        return None
    solver, indptr, indices = order
    same = np.array_equal(indptr, pattern.indptr) and np.array_equal(indices, pattern.indices)
    return solver if same else None


def _ldl(qdldl, U):
    """qdldl's LDL^T of the upper triangle U; LinAlgError unless D > 0 (positive definite)."""
    try:
        F = qdldl.Solver(U, upper=True)
    except (ValueError, RuntimeError) as exc:      # a zero pivot ("not quasi-definite")
        raise np.linalg.LinAlgError(str(exc)) from None
    if not np.all(F.factors()[1] > 0):
        raise np.linalg.LinAlgError("LDL^T with a pivot <= 0")
    return F
