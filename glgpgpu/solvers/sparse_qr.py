"""Sparse multifrontal QR (Yeralan, Davis, Sid-Lakhdar, Ranka 2015): the numeric phase.

The symbolic analysis (symbolic/) gives the fronts; here each front is assembled
from its rows of A and its children's contribution blocks (concatenation: every
row has one source, section 3.3.1) and factored by the method's dense QR of many
fronts in one atlas (`qr_batched`, many fronts per launch, section 3).  Fronts go
in rounds: a front is factored in the first round after all its children are
(so fronts of different subtrees and depths share a round; a round waits only for
what it needs).  R of a front is final once it is factored (its frank rows); its
contribution block waits on the host for the parent's round.

This first version assembles on the host between rounds; the paper assembles on
the GPU (S-assembly and pack-assembly kernels) and keeps blocks there.

Every front's QR is the same arithmetic whatever the round, the atlas it lands in
or the memory budget (qr_batched's results are bit-identical to one front alone),
so R does not depend on any of them.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, lsmr, spsolve_triangular

from ..symbolic import Analysis, analyze, column_order, front_rounds, plan_stages

#: Fig. 15's threshold: below this arithmetic intensity the GPU can be skipped (section 4)
INTENSITY_THRESHOLD = 10.0


class HostQR:
    """Fronts factored by LAPACK's sgeqrf (float32, the GPU path's layout): method="host",
    and what "auto" picks below Fig. 15's threshold."""
    name = "host"

    def qr_batched(self, mats, *, ctx=None, stairs=None) -> list:
        out = []
        for a in mats:
            F, tau = scipy.linalg.qr(a, mode="raw", overwrite_a=False, check_finite=False)[0]
            out.append((np.asarray(F, np.float32), np.asarray(tau, np.float32)))
        return out


@dataclass
class SparseQRFactor:
    """R (n x n, CSC, float32 values) with A[:, perm] = Q R; `rank` from R's diagonal
    (the columns in `dead` are declared dependent); `qtb` = (Q^T b)[:n] when b was given."""
    R: sp.csc_matrix
    perm: np.ndarray
    rank: int
    dead: np.ndarray
    analysis: Analysis
    qtb: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    @property
    def E(self) -> np.ndarray:
        """The column permutation as scipy/SPQR name it (A[:, E] = Q R)."""
        return self.perm


def _assemble(an: Analysis, f: int, AP: sp.csr_matrix, blocks: dict) -> np.ndarray:
    """Front f's dense fm x fn matrix: its rows of A scattered to its columns, its
    children's contribution blocks placed through Rjmap -- in staircase order."""
    pat = an.pattern[f]
    M = np.zeros((int(an.fm[f]), pat.shape[0]), np.float32)
    src, srow = an.sources[f], an.source_row[f]
    mine = np.flatnonzero(src == -1)
    if mine.size:
        ip = AP.indptr
        rows = srow[mine]
        lens = ip[rows + 1] - ip[rows]
        where = np.repeat(mine, lens)
        idx = np.concatenate([np.arange(ip[r], ip[r + 1]) for r in rows])
        M[where, np.searchsorted(pat, AP.indices[idx])] = AP.data[idx]
    for c in an.children[f]:
        if an.cm[c]:                        # a block with no rows was never kept
            at = np.flatnonzero(src == c)
            M[np.ix_(at, an.rjmap[c])] = blocks.pop(c)[srow[at]]
    return M


def _row_limit(impl, ctx, n: int) -> int | None:
    """The most rows of an n-column front the method's dense QR holds: a texture's
    height for the fragment methods, one storage block's bytes for the compute method,
    no limit on the host."""
    if ctx is None:
        return None
    if impl.name == "compute":
        lim = ctx.caps.max_storage_block
        return lim // (4 * (-(-n // 4) * 4)) if lim else None
    return ctx.max_texture_size


def _rows_within(M: np.ndarray, leftmost, impl, ctx) -> tuple:
    """(M, leftmost) for a front, or for one taller than the method holds (_row_limit)
    the same R by row blocks: each block of at most that many rows is factored (in one
    batch, on its staircase) and the blocks' R stacked, until the stack fits (a TSQR
    tree; Q changes, R does not up to signs; the stack has no staircase)."""
    limit = _row_limit(impl, ctx, M.shape[1])
    if limit is None or M.shape[0] <= limit:
        return M, leftmost
    while M.shape[0] > limit:
        step = max(limit, 2 * M.shape[1])
        if step > limit:
            raise ValueError(f"a front of {M.shape[0]} x {M.shape[1]} cannot be split into row blocks of at most "
                             f"{limit} rows (the method's limit) each holding its R: use method='host'")
        starts = range(0, M.shape[0], step)
        parts = [M[i:i + step] for i in starts]
        stairs = [leftmost[i:i + step] for i in starts] if leftmost is not None else None
        M = np.concatenate([np.triu(F[:min(F.shape)]) for F, _ in impl.qr_batched(parts, ctx=ctx, stairs=stairs)])
        leftmost = None
    return M, None


def numeric(an: Analysis, AP: sp.csr_matrix, impl, ctx, *, memory_budget=None, times=None) -> tuple:
    """Factor every front; returns (R as CSC, the per-round front counts)."""
    times = times if times is not None else {}
    limit = ctx.max_texture_size if ctx is not None and impl.name != "compute" else None
    if limit is not None and an.nfronts and (an.fn.max() + 3) // 4 > limit:
        f = int(np.argmax(an.fn))
        raise ValueError(f"front {f} has {an.fn[f]} columns, more than this GPU's texture holds "
                         f"({4 * limit}): use method='host'")
    blocks = {}
    r_rows, r_cols, r_vals = [], [], []
    per_round = []
    for stage in plan_stages(an, memory_budget):
        for rnd in front_rounds(an, stage):
            t0 = time.perf_counter()
            work = [f for f in rnd if an.fm[f] > 0]
            mats = [_assemble(an, f, AP, blocks) for f in work]
            t1 = time.perf_counter()
            stairs = [an.leftmost[f] for f in work]
            if mats:
                mats, stairs = zip(*[_rows_within(M, s, impl, ctx) for M, s in zip(mats, stairs)])
            res = impl.qr_batched(list(mats), ctx=ctx, stairs=list(stairs)) if mats else []
            t2 = time.perf_counter()
            for f, (F, _tau) in zip(work, res):
                fp, fr, k = int(an.fp[f]), int(an.frank[f]), int(an.cm[f])
                pat = an.pattern[f]
                if fr:
                    U = np.triu(F[:fr])
                    ii, jj = np.nonzero(np.triu(np.ones((fr, pat.shape[0]), bool)))
                    r_rows.append(an.super[f] + ii)
                    r_cols.append(pat[jj])
                    r_vals.append(U[ii, jj])
                if k:
                    blocks[f] = np.triu(F[fr:fr + k, fp:])
            per_round.append(len(work))
            times["assemble"] = times.get("assemble", 0.0) + t1 - t0
            times["factor"] = times.get("factor", 0.0) + t2 - t1
            times["extract"] = times.get("extract", 0.0) + time.perf_counter() - t2
    n = AP.shape[1]
    if r_rows:
        R = sp.csc_matrix((np.concatenate(r_vals), (np.concatenate(r_rows), np.concatenate(r_cols))), shape=(n, n))
    else:
        R = sp.csc_matrix((n, n), dtype=np.float32)
    return R, per_round


def column_norms(A: sp.spmatrix) -> np.ndarray:
    return np.sqrt(np.asarray(A.multiply(A).sum(axis=0)).ravel()) if A.nnz else np.zeros(A.shape[1])


def default_tol(A: sp.spmatrix) -> float:
    """SuiteSparseQR's default rank tolerance (Heath's rule), 20 (m + n) eps max_j ||A_j||."""
    m, n = A.shape
    return 20.0 * (m + n) * float(np.finfo(np.float64).eps) * float(column_norms(A).max(initial=0.0))


#: |R_kk| of a float32 factor below this fraction of its own column's norm may be a
#: dependency or noise: Householder QR is columnwise backward stable (Higham, Thm
#: 19.4), but a dependent column's |R_kk| also carries the previous columns' errors
#: times its coefficients, so the net is wide (sqrt(u32)) and float64 decides
NOISE = 2.0 ** -12


def preconditioned(S: sp.spmatrix, R: sp.spmatrix) -> tuple:
    """(S R^-1 as a LinearOperator, y -> R^-1 y), float64: LSMR on S R^-1 converges in
    a few iterations when R is a QR factor of S, even a float32 one."""
    Ru = R.astype(np.float64).tocsr()
    Rt = Ru.T.tocsr()

    def solve(y):
        return spsolve_triangular(Ru, y, lower=False)

    op = LinearOperator(S.shape, matvec=lambda y: S @ solve(y),
                        rmatvec=lambda z: spsolve_triangular(Rt, S.T @ z, lower=True), dtype=np.float64)
    return op, solve


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
    Rb = R[cols][:, cols].tolil()
    dg = np.abs(Rb.diagonal())
    zero = np.flatnonzero(dg <= NOISE * norms[cols])
    for i in zero:
        Rb[i, i] = max(norms[cols[i]], 1.0)
    S = AP[:, cols].tocsc()
    op, solve = preconditioned(S, Rb.tocsr())
    y, istop = lsmr(op, a, atol=1e-14, btol=1e-14, maxiter=500)[:2]
    if istop not in (0, 1, 2, 4, 5):
        return np.inf
    return float(np.linalg.norm(a - S @ solve(y)))


def dependent(an: Analysis, R: sp.spmatrix, AP: sp.csc_matrix, norms: np.ndarray, tol: float) -> np.ndarray:
    """Pivots (columns of A P) that are dependent by Heath's rule at `tol`: a pivot
    whose float32 |R_kk| is within float32's noise of its column (NOISE ||A_k||, or
    at most tol) is measured again in float64 -- its distance from its subtree's
    earlier columns that are not dead -- and is dead if that is <= tol.  A dense front
    cannot skip a dead column as Heath's method does (its pivot row stays unused), so
    pivots after one may be garbage; the float64 distance does not depend on them, but
    a dependency they hide is only seen after re-factoring without the dead columns."""
    n = R.shape[0]
    d = np.abs(R.diagonal()).astype(np.float64)
    small = d <= np.maximum(tol, NOISE * norms)
    first = np.zeros(an.nfronts, np.int64)            # first column of each front's subtree
    for f in range(an.nfronts):
        first[f] = min([an.super[f]] + [first[c] for c in an.children[f]])
    dead = np.zeros(n, bool)
    for f in range(an.nfronts):                  # postorder: children first
        for k in range(an.super[f], min(an.super[f + 1], n)):
            if small[k]:
                cols = np.arange(first[f], k)
                if _distance(AP, R, cols[~dead[cols]], k, norms) <= tol:
                    dead[k] = True
    return np.flatnonzero(dead)


def factorize(A: sp.spmatrix, B: np.ndarray | None, *, ordering, tol: float, engine,
              memory_budget=None) -> SparseQRFactor:
    """Analysis + numeric phase of [A B] (B's columns kept last, as SuiteSparseQR
    appends b to get Q^T b without Q).  engine(analysis) -> (implementation, ctx,
    path): the method, chosen once the intensity is known."""
    m, n = A.shape
    times = {}
    t0 = time.perf_counter()
    if B is not None:
        q, name = column_order(A, ordering)
        aug = sp.hstack([A[:, q], sp.csc_matrix(B)], format="csc")
        an = analyze(aug, np.arange(n + B.shape[1]))
        an.ordering = name
        perm = q[an.perm[:n]]               # the postorder keeps B's columns (the tree's tops) last
    else:
        aug, an = A, analyze(A, ordering)
        perm = an.perm
    times["analyze"] = time.perf_counter() - t0
    impl, ctx, path = engine(an)
    AP = aug[:, an.perm].tocsr().astype(np.float32)
    R, per_round = numeric(an, AP, impl, ctx, memory_budget=memory_budget, times=times)
    qtb = None
    if B is not None:
        cols = an.perm[n:] - n              # B's columns after the analysis' postorder
        qtb = R[:n, n:].toarray()[:, np.argsort(cols)].astype(np.float64)
        R = R[:n, :n].tocsc()
    dead = dependent(an, R, A[:, perm].tocsc(), column_norms(A)[perm], tol) if tol >= 0 else np.zeros(0, np.int64)
    info = {"ordering": an.ordering, "fronts": an.nfronts, "rounds": len(per_round), "fronts_per_round": per_round,
            "flops": an.flops, "intensity": an.intensity, "nnz_r": int(R.nnz), "times": times,
            "method": getattr(impl, "name", "?"), "path": path, "tol": tol}
    return SparseQRFactor(R=R, perm=perm, rank=n - dead.shape[0], dead=dead, analysis=an, qtb=qtb, info=info)


def factorize_rank(A: sp.spmatrix, B, *, ordering, tol: float, engine, memory_budget=None) -> SparseQRFactor:
    """factorize, then drop the columns found dependent and factor the rest again
    until none is (Heath's rule, decided on re-factored fronts).  The result's R is
    rank x rank for A[:, E[:rank]]; `dead` = E[rank:], A's dependent columns."""
    n = A.shape[1]
    cols = np.arange(n)
    passes, total = 0, {}
    while True:
        order = ordering
        if not isinstance(ordering, str) and cols.size < n:      # the caller's order, without the dropped
            kept = np.asarray(ordering)[np.isin(ordering, cols)]
            order = np.searchsorted(cols, kept)
        fac = factorize(A[:, cols] if cols.size < n else A, B, ordering=order, tol=tol, engine=engine,
                        memory_budget=memory_budget)
        passes += 1
        for k, v in fac.info["times"].items():
            total[k] = total.get(k, 0.0) + v
        if fac.dead.size == 0 or tol < 0:
            break
        if fac.dead.size == cols.size:              # nothing independent: A is zero
            cols = cols[:0]
            fac.R = sp.csc_matrix((0, 0), dtype=np.float32)
            fac.perm = np.zeros(0, np.int64)
            if fac.qtb is not None:
                fac.qtb = fac.qtb[:0]
            break
        cols = np.delete(cols, fac.perm[fac.dead])
    dead = np.setdiff1d(np.arange(n), cols)
    fac.perm = np.concatenate([cols[fac.perm], dead])
    fac.dead, fac.rank = dead, int(cols.size)
    fac.info.update(passes=passes, times=total)
    return fac
