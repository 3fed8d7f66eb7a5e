"""Multifrontal sparse Cholesky of A D A^T on the host, in float64, for the LP's
last-resort solves.

The symbolic part is the sparse QR's (symbolic/): the fronts of the QR of A^T are
the supernodes of the Cholesky factor of A A^T (R of A^T P is L^T of P^T A A^T P),
ordered by COLAMD on A^T and postordered, relaxed-amalgamated as CHOLMOD does.
It depends on A's pattern only, so one analysis serves every factorization of
A D A^T + shift I.  The numeric part runs front by front in postorder: assemble the
front's pivot columns of M and its children's update matrices (extend-add), factor
the pivot block (LAPACK), form the off-diagonal block and this front's update
matrix (BLAS) -- dense work in blocks where an up-looking factorization goes entry
by entry.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..symbolic import analyze, reamalgamated

_potrf, _trsm, _syrk, _trsv = sla.lapack.dpotrf, sla.blas.dtrsm, sla.blas.dsyrk, sla.blas.dtrsv

#: a factor of at least BIG_FLOPS (with the QR's amalgamation, CHOLMOD's defaults) gets its fronts
#: amalgamated further: fewer extend-adds, whose numpy gathers are this factor's cost, for more
#: flops in BLAS -- dfl001: 743 -> 362 fronts, 1.4 -> 1.9 GFLOP, 0.19 -> 0.13 s on the H100's host
BIG_FLOPS = 5e7
BIG_NRELAX, BIG_ZRELAX = (16, 64, 256), (0.8, 0.3, 0.1)


def qdldl_module():
    """The qdldl module (compiled LDL^T, installed with glgpgpu[lp]), or None where it is not."""
    try:
        import qdldl
    except ImportError:
        return None
    return qdldl


def ldl_flops(L) -> float:
    """The flop count of a sparse factor with unit-lower L's pattern (scipy CSC, no diagonal, as
    qdldl's `factors()` gives it): the sum of its squared column counts, diagonal included."""
    c = np.diff(L.indptr).astype(np.float64) + 1.0
    return float(c @ c)


def _flops(an) -> float:
    fp, fn = an.fp, an.fn
    return float(np.sum(fp ** 3 / 3 + (fn - fp) * fp ** 2 + (fn - fp) ** 2 * fp))


class CholeskyAnalysis:
    """The fronts of the Cholesky factor of A A^T (A: m x n, scipy.sparse).
    `CholeskyAnalysis.of(A)` reuses the last ones made for the same pattern."""

    _recent: list = []                 # [(shape, ordering, indptr, indices, analysis)], newest last
    RECENT = 1

    @classmethod
    def of(cls, A, ordering: str = "colamd") -> "CholeskyAnalysis":
        """The analysis of A's pattern, reused while the same pattern comes back (the
        LP's presolve and its solves' fallback ask for the same one); the pattern is
        compared entry by entry, not by a hash."""
        C = sp.csc_matrix(A)
        C.sort_indices()
        for shape, order, indptr, indices, an in cls._recent:
            if (shape == C.shape and order == ordering and np.array_equal(indptr, C.indptr)
                    and np.array_equal(indices, C.indices)):
                return an
        an = cls(C, ordering)
        cls._recent = (cls._recent + [(C.shape, ordering, C.indptr.copy(), C.indices.copy(), an)])[-cls.RECENT:]
        return an

    def __init__(self, A, ordering: str = "colamd"):
        """Prefer `of(A)`.  ordering: symbolic.column_order's ("colamd", or "natural"
        where COLAMD is missing)."""
        At = sp.csc_matrix(A).T.tocsc()                 # its columns are A's rows
        an = analyze(At, ordering, staircases=False, singletons=False, dense_rows=None)
        #: multiply-adds of the numeric factorization (pivot blocks, off-diagonal blocks, updates) with
        #: CHOLMOD's amalgamation: what the choices between the host's factors compare
        self.flops = _flops(an)
        if self.flops >= BIG_FLOPS:             # the same order, tree and patterns: fronts amalgamated again
            an = reamalgamated(an, BIG_NRELAX, BIG_ZRELAX)
        self.m = A.shape[0]
        self.perm = an.perm                           # L L^T = (M + shift I)[perm][:, perm]
        self.super, self.pattern, self.children = an.super, an.pattern, an.children
        self.nfronts = an.nfronts
        self.parent = an.parent
        self._maps = [None] * self.nfronts

    def tiles(self, nb: int) -> np.ndarray:
        """Which nb x nb tiles of L (in the permuted order) may hold nonzeros: a boolean lower
        triangle over the tile rows and columns, a superset of L's own (each front's columns
        times its rows), closed under the right-looking factor's updates -- tile (I, J) is in
        when some column tile K has both (I, K) and (J, K) -- so a dense factorization that
        skips the tiles outside it skips only exact zeros."""
        t = -(-self.m // nb)
        B = np.zeros((t, t), bool)
        for f in range(self.nfronts):
            rows = np.unique(np.asarray(self.pattern[f]) // nb)
            for c in np.unique(np.arange(self.super[f], self.super[f + 1]) // nb):
                B[rows[rows >= c], c] = True
        B[np.diag_indices(t)] = True
        for k in range(t):
            below = np.flatnonzero(B[k:, k]) + k
            B[np.ix_(below, below)] = True
        return np.tril(B)

    def extend_add(self, c: int):
        """into: child c's update matrix U (column-major) goes into its parent's front F
        (column-major) as F.flat[into] += U.flat, all of U: its upper triangle is zero (only
        lower triangles are ever written), and lands in F's, which stays zero -- the same for
        every factorization, so found once."""
        if self._maps[c] is None:
            f = self.parent[c]
            pat, kc = self.pattern[c], int(self.super[c + 1] - self.super[c])
            li = np.searchsorted(self.pattern[f], pat[kc:])       # its rows among the parent's, increasing
            fn = self.pattern[f].shape[0]
            dt = np.int32 if fn * fn < 2 ** 31 else np.int64
            self._maps[c] = (li[:, None] + li[None, :] * fn).ravel(order="F").astype(dt)
        return self._maps[c]


class MultifrontalCholesky:
    """L of M[perm][:, perm] = L L^T for symmetric positive definite M (scipy.sparse,
    pattern within A A^T's plus the diagonal); raises numpy.linalg.LinAlgError
    when a pivot block is not positive definite."""

    def __init__(self, analysis: CholeskyAnalysis, M):
        a = self.analysis = analysis
        p = a.perm
        Mp = sp.tril(sp.csc_matrix(M)[p][:, p], format="csc")     # the lower triangle, permuted
        Mp.sort_indices()
        loc = np.zeros(a.m, np.int64)
        self.fronts = [None] * a.nfronts
        updates = [None] * a.nfronts
        for f in range(a.nfronts):
            cols = a.pattern[f]
            lo, hi = int(a.super[f]), int(a.super[f + 1])
            k, fn = hi - lo, cols.shape[0]
            loc[cols] = np.arange(fn)
            # column-major: LAPACK and BLAS work in place; only lower triangles are read
            # (a child's rows map to its parent's in increasing order: lower stays lower)
            F = np.zeros((fn, fn), order="F")
            s, e = Mp.indptr[lo], Mp.indptr[hi]
            jcol = np.repeat(np.arange(k), np.diff(Mp.indptr[lo:hi + 1]))
            F[loc[Mp.indices[s:e]], jcol] = Mp.data[s:e]
            Ff = F.reshape(-1, order="F")                      # a view
            for c in a.children[f]:
                # ufunc.at over the whole update: one pass, where `Ff[into] +=` on its lower
                # triangle gathered, added and scattered (the extend-adds are most of dfl001's
                # factor, benchmarks/RESULTS.md)
                np.add.at(Ff, a.extend_add(c), updates[c].reshape(-1, order="F"))
                updates[c] = None
            L11, info = _potrf(F[:k, :k], lower=1, clean=1, overwrite_a=0)
            if info:
                raise np.linalg.LinAlgError(f"the pivot block of front {f} is not positive definite")
            if fn > k:
                L21 = _trsm(1.0, L11, F[k:, :k], side=1, lower=1, trans_a=1)        # F21 L11^-T
                U = _syrk(-1.0, L21, beta=1.0, c=F[k:, k:], lower=1, overwrite_c=1)  # F22 - L21 L21^T
                updates[f] = U
            else:
                L21 = np.zeros((0, k))
            self.fronts[f] = (lo, hi, cols[k:], L11, np.ascontiguousarray(L21))

    def pivots(self) -> np.ndarray:
        """L's squared diagonal, in the permuted order: pivot k is row perm[k]'s squared
        distance from the span of the rows before it (for a unit-diagonal M, relative)."""
        return np.concatenate([np.diag(L11) ** 2 for *_, L11, _ in self.fronts])

    def solve(self, b: np.ndarray) -> np.ndarray:
        """x with M x = b (BLAS dtrsv per front: scipy's solve_triangular costs more
        in its checks than a small front's substitution)."""
        p = self.analysis.perm
        y = np.asarray(b, float)[p].copy()
        for lo, hi, rest, L11, L21 in self.fronts:
            yk = _trsv(L11, y[lo:hi], lower=1)
            y[lo:hi] = yk
            if rest.shape[0]:
                y[rest] -= L21 @ yk
        for lo, hi, rest, L11, L21 in reversed(self.fronts):
            r = y[lo:hi] - L21.T @ y[rest] if rest.shape[0] else y[lo:hi]
            y[lo:hi] = _trsv(L11, r, lower=1, trans=1)
        x = np.empty_like(y)
        x[p] = y
        return x
