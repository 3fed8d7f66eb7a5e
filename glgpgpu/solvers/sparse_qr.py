"""Sparse multifrontal QR (Yeralan, Davis, Sid-Lakhdar, Ranka 2015): the factorization
a user calls -- the analysis (symbolic/), the numeric phase (sparse_fronts.py: the fronts
assembled and factored round by round) and the rank: the columns Heath's rule finds
dependent, decided in float64 and factored again without them until none is, R returned
with every column as SuiteSparseQR's (rank x n, [R11 R12]).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, lsmr, splu, spsolve_triangular

from ..symbolic import Analysis, analyze, rows_only
from .sparse_fronts import _charge, column_norms, numeric
from .sparse_q import SparseQ

#: Fig. 15's threshold: below this arithmetic intensity the GPU can be skipped (section 4)
INTENSITY_THRESHOLD = 10.0


@dataclass
class SparseQRFactor:
    """R (rank x n, CSC, float32 values, upper trapezoidal) with A[:, perm] = Q R, as
    SuiteSparseQR returns it: its first `rank` columns the triangle of the independent
    columns, then the columns in `dead` (declared dependent by R's diagonal, Heath's rule),
    last, their coefficients in Q's first rank columns; `qtb` = (Q^T b)[:rank] when b was
    given.  R11 = R[:, :rank] is the triangle the solves use."""
    R: sp.csc_matrix
    perm: np.ndarray
    rank: int
    dead: np.ndarray
    analysis: Analysis
    qtb: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    Q: SparseQ | None = None            # keep_h=True: A[:, E] = Q [R; 0] as the fronts' reflectors

    def qt(self, y) -> np.ndarray:
        """Q^T y (m,) or (m, k), float64 (needs keep_h=True)."""
        return self._q().qt(y)

    def q(self, z) -> np.ndarray:
        """Q z (m,) or (m, k), float64 (needs keep_h=True)."""
        return self._q().q(z)

    def _q(self) -> SparseQ:
        if self.Q is None:
            raise ValueError("Q was not kept: factor with sparse_qr(A, keep_h=True)")
        return self.Q

    @property
    def E(self) -> np.ndarray:
        """The column permutation as scipy/SPQR name it (A[:, E] = Q R)."""
        return self.perm

    @property
    def R11(self) -> sp.csc_matrix:
        """The rank x rank upper triangle of the independent columns (R's first columns)."""
        return self.R[:, :self.rank].tocsc()


def default_tol(A: sp.spmatrix) -> float:
    """SuiteSparseQR's default rank tolerance (Heath's rule), 20 (m + n) eps max_j ||A_j||."""
    m, n = A.shape
    return 20.0 * (m + n) * float(np.finfo(np.float64).eps) * float(column_norms(A).max(initial=0.0))


#: |R_kk| of a float32 factor below this fraction of its own column's norm may be a
#: dependency or noise: Householder QR is columnwise backward stable (Higham, Thm
#: 19.4), but a dependent column's |R_kk| also carries the previous columns' errors
#: times its coefficients, so the net is wide (sqrt(u32)) and float64 decides
NOISE = 2.0 ** -12

#: the most columns of an R whose triangular solves go dense (preconditioned)
DENSE_TRIANGLE = 2048

#: the most entries (rows x columns) of a subtree's float64 least-squares problem solved
#: densely where LSMR on the float32 factor does not settle
DENSE_DISTANCE = 2 * 10 ** 7


def _nonsingular(R: sp.spmatrix, S: sp.spmatrix) -> sp.spmatrix:
    """R with each zero (or underflowed) pivot replaced by its column's norm in S: a pivot a
    dense front had no row for (a wide or rank-deficient front) leaves R singular where S
    is not, and any nonsingular triangle is a preconditioner for LSMR."""
    d = R.diagonal().astype(np.float64)
    norms = np.sqrt(np.asarray(S.multiply(S).sum(axis=0)).ravel()) if S.shape[1] == R.shape[0] else np.ones(d.size)
    bad = np.abs(d) <= np.finfo(np.float32).tiny * np.maximum(norms, 1.0)
    if not bad.any():
        return R
    return (R.astype(np.float64) + sp.diags(np.where(bad, np.maximum(norms, 1.0) - d, 0.0))).tocsc()


def preconditioned(S: sp.spmatrix, R: sp.spmatrix) -> tuple:
    """(S R^-1 as a LinearOperator, y -> R^-1 y), float64: LSMR on S R^-1 converges in
    a few iterations when R is a QR factor of S, even a float32 one.  R of at most
    DENSE_TRIANGLE columns is solved dense (LAPACK's trsv: scipy's sparse triangular
    solve costs ~2 ms a call in overhead alone, and the rank decision makes thousands)."""
    R = _nonsingular(R, S)
    if R.shape[0] <= DENSE_TRIANGLE:
        Rd = np.asarray(R.astype(np.float64).toarray())

        def solve(y):
            return scipy.linalg.solve_triangular(Rd, y, lower=False, check_finite=False)

        def solve_t(z):
            return scipy.linalg.solve_triangular(Rd, z, lower=False, trans="T", check_finite=False)
    else:
        solve, solve_t = _sparse_triangle(R.astype(np.float64).tocsc())
    op = LinearOperator(S.shape, matvec=lambda y: S @ solve(y), rmatvec=lambda z: solve_t(S.T @ z),
                        dtype=np.float64)
    return op, solve


def _sparse_triangle(Ru: sp.csc_matrix) -> tuple:
    """(y -> R^-1 y, z -> R^-T z) for a sparse upper triangle R with no zero on its
    diagonal: SuperLU's factors of R in its own order, L = I and U = R, solve in ~0.1 ms
    where scipy's sparse triangular solve takes ~1 ms (n = 3,000); that solve where
    SuperLU would pivot."""
    n = Ru.shape[0]
    try:
        lu = splu(Ru, permc_spec="NATURAL", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
        plain = np.array_equal(lu.perm_r, np.arange(n)) and np.array_equal(lu.perm_c, np.arange(n)) \
            and lu.L.nnz == n
    except RuntimeError:                        # a zero pivot
        plain = False
    if plain:
        return lu.solve, lambda z: lu.solve(z, trans="T")
    Rr, Rt = Ru.tocsr(), Ru.T.tocsr()
    return (lambda y: spsolve_triangular(Rr, y, lower=False)), (lambda z: spsolve_triangular(Rt, z, lower=True))


def _distance(AP: sp.csc_matrix, R: sp.spmatrix, cols: np.ndarray, k: int, norms: np.ndarray) -> float:
    """||(I - P) a_k|| in float64, P the projector on the columns `cols` of A P (k's
    subtree before k, less the columns already found dead) -- the exact |R_kk| of
    Heath's method, since R_ik = 0 outside the subtree: least squares by LSMR
    preconditioned with the float32 factor's block R[cols, cols] (a zero on its
    diagonal -- a pivot the dense front had no row for -- replaced by the column's
    norm: any nonsingular triangle gives the exact distance, a good one in few steps).
    inf when LSMR does not settle (undecided: the next factorization decides)."""
    a = AP[:, k].toarray().ravel()
    if cols.size == 0:
        return float(np.linalg.norm(a))
    Rb = R[cols][:, cols].astype(np.float64)
    dg = Rb.diagonal()
    fix = np.where(np.abs(dg) <= NOISE * norms[cols], np.maximum(norms[cols], 1.0) - dg, 0.0)
    Rb = (Rb + sp.diags(fix)).tocsc() if fix.any() else Rb.tocsc()     # the zero pivots replaced
    S = AP[:, cols].tocsc()
    op, solve = preconditioned(S, Rb)
    y, istop = lsmr(op, a, atol=1e-14, btol=1e-14, maxiter=500)[:2]
    if istop in (0, 1, 2, 4, 5):
        return float(np.linalg.norm(a - S @ solve(y)))
    # a float32 block too ill-conditioned to precondition: dense float64 least squares
    # over the rows the columns touch, where that is small (else undecided)
    rows = np.unique(S.indices)
    if rows.shape[0] * cols.shape[0] > DENSE_DISTANCE:
        return np.inf
    y = scipy.linalg.lstsq(S[rows].toarray(), a[rows], check_finite=False)[0]
    rest = np.delete(a, rows)
    return float(np.hypot(np.linalg.norm(a[rows] - S[rows] @ y), np.linalg.norm(rest)))


def dependent(an: Analysis, R: sp.spmatrix, AP: sp.csc_matrix, norms: np.ndarray, tol: float) -> np.ndarray:
    """Pivots (columns of A P) that are dependent by Heath's rule at `tol`: a pivot
    whose float32 |R_kk| is within float32's noise of its column (NOISE ||A_k||, or
    at most tol) is measured again in float64 -- its distance from its subtree's
    earlier columns that are not dead -- and is dead if that is <= tol.  A dense front
    cannot skip a dead column as Heath's method does (its pivot row stays unused), so
    pivots after one may be garbage; the float64 distance does not depend on them, but
    a dependency they hide is only seen after re-factoring without the dead columns.
    A column singleton (the first an.n1 pivots) is dead when it found no row: the
    analysis took it only where its entry, R_kk itself, is above tol.  The others'
    distances are measured in the rows the singletons left (A2: R_kk is A2's)."""
    n = R.shape[0]
    d = np.abs(R.diagonal()).astype(np.float64)
    small = d <= np.maximum(tol, NOISE * norms)
    first = np.zeros(an.nfronts, np.int64)            # first column of each front's subtree
    for f in range(an.nfronts):
        first[f] = min([an.super[f]] + [first[c] for c in an.children[f]])
    dead = np.zeros(n, bool)
    n1 = min(an.n1, n)
    dead[:n1] = an.fm[:n1] == 0                  # a singleton's front is its own column's
    if n1:
        keep = np.ones(AP.shape[0], bool)
        keep[np.concatenate([an.s_rows[f] for f in range(n1)])] = False
        AP = rows_only(AP, keep).tocsc()
    for f in range(n1, an.nfronts):              # postorder: children first
        for k in range(an.super[f], min(an.super[f + 1], n)):
            if small[k]:
                cols = np.arange(first[f], k)
                if _distance(AP, R, cols[~dead[cols]], k, norms) <= tol:
                    dead[k] = True
    return np.flatnonzero(dead)


def factorize(A: sp.spmatrix, B: np.ndarray | None, *, ordering, tol: float, engine,
              memory_budget=None, keep_h: bool = False) -> SparseQRFactor:
    """Analysis + numeric phase of [A B] (B's columns kept last, as SuiteSparseQR
    appends b to get Q^T b without Q).  engine(analysis) -> (implementation, ctx,
    path): the method, chosen once the intensity is known."""
    m, n = A.shape
    times = {}
    t0 = time.perf_counter()
    if B is not None:
        aug = sp.hstack([A, sp.csc_matrix(B)], format="csc")
        an = analyze(aug, ordering, tol=max(tol, 0.0), pivots=n)
        perm = an.perm[:n]                  # the postorder keeps B's columns (the tree's tops) last
    else:
        aug, an = A, analyze(A, ordering, tol=max(tol, 0.0))
        perm = an.perm
    times["analyze"] = time.perf_counter() - t0
    impl, ctx, path = engine(an)
    AP = aug[:, an.perm].tocsr().astype(np.float32)
    R, per_round, how, kept = numeric(an, AP, impl, ctx, memory_budget=memory_budget, times=times,
                                        keep_h=keep_h)
    qtb = None
    if B is not None:
        cols = an.perm[n:] - n              # B's columns after the analysis' postorder
        qtb = R[:n, n:].tocsc()[:, np.argsort(cols)]
        R = R[:n, :n].tocsc()
    t0 = time.perf_counter()
    dead = dependent(an, R, A[:, perm].tocsc(), column_norms(A)[perm], tol) if tol >= 0 else np.zeros(0, np.int64)
    if tol >= 0:
        _charge(times, "rank", t0)          # Heath's rule: the float64 distances of the small pivots
    info = {"ordering": an.ordering, "singletons": an.n1, "fronts": an.nfronts, "rounds": len(per_round),
            "fronts_per_round": per_round,
            "flops": an.flops, "intensity": an.intensity, "nnz_r": int(R.nnz), "times": times,
            "method": impl.name, "path": path, "tol": tol, **how}
    Q = SparseQ(an, kept, m) if kept is not None else None
    return SparseQRFactor(R=R, perm=perm, rank=n - dead.shape[0], dead=dead, analysis=an, qtb=qtb, info=info, Q=Q)


#: entries (rows x columns) of the dependent columns Q^T is applied to at once
QT_CHUNK = 2 * 10 ** 7


def _with_dependent(A: sp.csc_matrix, B, live: np.ndarray, dead: np.ndarray, *, engine, memory_budget,
                    keep_h: bool, times: dict):
    """One more factorization of the independent columns A[:, live] in their order, Q kept
    as the fronts' reflectors, and the dependent columns' rows of R from it: R12 =
    (Q^T A[:, dead])[:rank], as SuiteSparseQR's R holds them -- Householder's backward
    stability covers [R11 R12] as it does R11.  Returns (R, perm, qtb, Q)."""
    t0 = time.perf_counter()
    fh = factorize(A[:, live], None, ordering=np.arange(live.size), tol=-1.0, engine=engine,
                   memory_budget=memory_budget, keep_h=True)
    r, m = live.size, A.shape[0]
    step = max(1, QT_CHUNK // max(m, 1))
    try:
        blocks = [sp.csc_matrix(fh.qt(A[:, dead[k:k + step]].toarray())[:r].astype(np.float32))
                  for k in range(0, dead.size, step)]
        qtb = fh.qt(np.asarray(B, np.float64).reshape(m, -1))[:r] if B is not None else None
        R, live, Q = sp.hstack([fh.R] + blocks, format="csc"), live[fh.perm], (fh.Q if keep_h else None)
    except ValueError:
        # fronts with fewer rows than pivots (zero rows of R) can leave the kept reflectors
        # without a slot for every row: A's independent columns then by LAPACK's float64 QR
        if m * r > DENSE_DISTANCE:
            raise
        import scipy.linalg
        (F, tau), _ = scipy.linalg.qr(A[:, live].toarray(), mode="raw")
        Qt = lambda C: scipy.linalg.lapack.dormqr("L", "T", F, tau, C, max(1, C.shape[1]) * 64)[0]  # noqa: E731
        R = sp.hstack([sp.csc_matrix(np.triu(F[:r]).astype(np.float32)),
                       sp.csc_matrix(Qt(A[:, dead].toarray())[:r].astype(np.float32))], format="csc")
        qtb = Qt(np.asarray(B, np.float64).reshape(m, -1))[:r] if B is not None else None
        Q = None
    times["dependent columns"] = times.get("dependent columns", 0.0) + time.perf_counter() - t0
    return R, live, qtb, Q


def factorize_rank(A: sp.spmatrix, B, *, ordering, tol: float, engine, memory_budget=None,
                   keep_h: bool = False) -> SparseQRFactor:
    """factorize, then drop the columns found dependent and factor the rest again
    until none is (Heath's rule, decided on re-factored fronts).  The result's R is
    rank x n, [R11 R12]: R11 the triangle of A[:, E[:rank]], R12 the rows of the
    dependent columns `dead` = E[rank:] (SuiteSparseQR's form)."""
    n = A.shape[1]
    cols = np.arange(n)
    passes, total, order, name = 0, {}, ordering, None
    A = sp.csc_matrix(A)
    while True:
        fac = factorize(A[:, cols] if cols.size < n else A, B, ordering=order, tol=tol, engine=engine,
                        memory_budget=memory_budget, keep_h=keep_h)
        passes += 1
        if passes == 1:
            name = fac.info["ordering"]             # later passes' order is "given": this one's
        for k, v in fac.info["times"].items():
            total[k] = total.get(k, 0.0) + v
        if fac.dead.size == 0 and tol >= 0 and cols.size > A.shape[0]:
            # more independent columns than rows cannot be: pivots whose float64 distance LSMR
            # could not settle stayed undecided; the smallest of them beyond the row count are dead
            fac.dead = np.sort(np.argsort(np.abs(fac.R.diagonal()), kind="stable")[:cols.size - A.shape[0]])
        if fac.dead.size == 0 or tol < 0:
            break
        if fac.dead.size == cols.size:              # nothing independent: A is zero
            cols = cols[:0]
            fac.R = sp.csc_matrix((0, 0), dtype=np.float32)
            fac.perm = np.zeros(0, np.int64)
            if fac.qtb is not None:
                fac.qtb = fac.qtb[:0]
            break
        alive = np.delete(fac.perm, fac.dead)          # this pass's order, without the dropped (as
        order = np.searchsorted(np.sort(cols[alive]), cols[alive])   # SuiteSparseQR keeps its order)
        cols = np.sort(cols[alive])
    dead = np.setdiff1d(np.arange(n), cols)
    r = int(cols.size)
    live = cols[fac.perm]
    if fac.qtb is not None:
        fac.qtb = fac.qtb.toarray().astype(np.float64)
    if dead.size and r:                              # R = [R11 R12], rank x n, as SuiteSparseQR's
        fac.R, live, qtb, Q = _with_dependent(A, B, live, dead, engine=engine, memory_budget=memory_budget,
                                              keep_h=keep_h, times=total)
        fac.qtb = qtb if B is not None else None
        fac.Q = Q if keep_h else fac.Q
    else:
        fac.R = sp.hstack([fac.R, sp.csc_matrix((r, dead.size), dtype=np.float32)], format="csc")
    fac.perm = np.concatenate([live, dead])
    fac.dead, fac.rank = dead, r
    fac.info.update(passes=passes, times=total, ordering=name)
    return fac
