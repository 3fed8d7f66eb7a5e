"""Sparse multifrontal QR (Yeralan, Davis, Sid-Lakhdar, Ranka 2015): the numeric phase.

The symbolic analysis (symbolic/) gives the fronts; here each front is assembled
from its rows of A and its children's contribution blocks (concatenation: every
row has one source, section 3.3.1) and factored by the method's dense QR of many
fronts in one atlas (`qr_batched`, many fronts per launch, section 3).  Fronts go
in rounds, a round after the one holding a front's last child: as soon as possible
(symbolic.front_rounds: every leaf in the first) or, for the drawing stores, as late
as possible (front_levels: each front just before its parent) where that counts
fewer launches (_grouping).  R of a front is final once it is factored (its frank
rows); its contribution block waits for the parent's round.

Each GPU method has a front store (`sparse_fronts`: compute/fronts.py by
dispatches, methods/fronts.py by draws for blocked and paper): the fronts are
assembled on the GPU as the paper does -- S-assembly and the children's blocks
gathered through their maps -- and the blocks kept there between rounds.  With
keep_h (and for method="host") the fronts are assembled here between rounds.

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
from scipy.sparse.linalg import LinearOperator, lsmr, splu, spsolve_triangular

from ..scheduling.tree import rounds_launches
from ..symbolic import (Analysis, analyze, block_rows, front_levels, front_rounds, own_entries, plan_stages,
                        rows_only)
from .sparse_q import SparseQ

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

    def sparse_fronts(self, *, ctx=None):
        return None


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


def _assemble(an: Analysis, f: int, AP: sp.csr_matrix, blocks: dict) -> np.ndarray:
    """Front f's dense fm x fn matrix: its rows of A scattered to its columns, its
    children's contribution blocks placed through Rjmap -- in staircase order."""
    M = np.zeros((int(an.fm[f]), an.pattern[f].shape[0]), np.float32)
    rows, cols, vals = own_entries(an, f, AP)
    M[rows, cols] = vals
    for c in an.children[f]:
        if an.cm[c]:                        # a block with no rows was never kept
            at, brow = block_rows(an, f, c)
            M[np.ix_(at, an.rjmap[c])] = blocks.pop(c)[brow]
    return M


def _front_spec(an: Analysis, f: int, AP: sp.csr_matrix, scale: float) -> dict:
    """What a method's front store needs to assemble and factor front f on the GPU."""
    rows, cols, vals = own_entries(an, f, AP)
    children = []
    for c in an.children[f]:
        if an.cm[c]:
            at, brow = block_rows(an, f, c)
            prow = np.full(int(an.cm[c]), -1, np.int32)
            prow[brow] = at
            children.append((int(c), prow, np.asarray(an.rjmap[c], np.int32)))
    return {"f": int(f), "m": int(an.fm[f]), "n": int(an.pattern[f].shape[0]), "scale": scale, "rows": rows,
            "cols": cols, "vals": vals, "children": children, "leftmost": an.leftmost[f], "fr": int(an.frank[f]),
            "fp": int(an.fp[f]), "cm": int(an.cm[f])}


def _r_matrix(an: Analysis, tops: dict, n: int) -> sp.csc_matrix:
    """R from each front's top rows (fr x fn, R's rows super[f] .. on and right of the
    diagonal, columns pattern[f]), built row by row as CSR, then CSC."""
    counts = np.zeros(n, np.int64)
    idx, vals = [], []
    for f in range(an.nfronts):                 # postorder: R's rows in order
        U = tops.get(f)
        if U is None or not U.shape[0]:
            continue
        pat = an.pattern[f]
        for r in range(U.shape[0]):
            idx.append(pat[r:])
            vals.append(U[r, r:])
        counts[an.super[f]:an.super[f] + U.shape[0]] = pat.shape[0] - np.arange(U.shape[0])
    indptr = np.concatenate([[0], np.cumsum(counts)])
    if not idx:
        return sp.csc_matrix((n, n), dtype=np.float32)
    R = sp.csr_matrix((np.concatenate(vals).astype(np.float32), np.concatenate(idx), indptr), shape=(n, n))
    R.eliminate_zeros()             # as SuiteSparseQR keeps R: a front's explicit zeros are not R's pattern
    return R.tocsc()


def _front_scales(an: Analysis, AP: sp.csr_matrix) -> np.ndarray:
    """Each front's power-of-two scale: its columns' largest norm in A brought into
    [0.5, 1) -- a bound on every entry the front holds, its children's blocks included
    (Householder QR keeps column norms)."""
    norms = column_norms(AP)
    out = np.ones(an.nfronts)
    for f in range(an.nfronts):
        pat = an.pattern[f]
        top = float(norms[pat].max()) if pat.size else 0.0
        if top > 0.0:
            out[f] = np.ldexp(1.0, -int(np.frexp(top)[1]))
    return out


def _row_limit(impl, ctx, n: int) -> int | None:
    """The most rows of an n-column front the method's dense QR holds: a texture's
    height for the fragment methods, one storage block's bytes for the compute method,
    no limit on the host."""
    if ctx is None:
        return None
    if impl.name == "compute":
        lim = ctx.max_storage_block
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


def numeric(an: Analysis, AP: sp.csr_matrix, impl, ctx, *, memory_budget=None, times=None,
            keep_h: bool = False) -> tuple:
    """Factor every front; returns (R as CSC, the per-round front counts, {"assembly":
    where the fronts were assembled: "gpu", "gpu (N too tall on the host)" or "host",
    "schedule": how the rounds were grouped, "rounds" and/or "levels" (_grouping)}, and with keep_h each front's (F, tau) --
    its reflectors; those fronts go by the host assembly).  A method
    with a front store (compute, blocked, paper) assembles and keeps its fronts on the GPU; the
    others' fronts are assembled here and sent to `qr_batched` round by round."""
    times = times if times is not None else {}
    limit = ctx.max_texture_size if ctx is not None and impl.name != "compute" else None
    if limit is not None and an.nfronts and (an.fn.max() + 3) // 4 > limit:
        f = int(np.argmax(an.fn))
        raise ValueError(f"front {f} has {an.fn[f]} columns, more than this GPU's texture holds "
                         f"({4 * limit}): use method='host'")
    store = None if keep_h else impl.sparse_fronts(ctx=ctx)
    tops, per_round, kept, tall, chosen = {}, [], ({} if keep_h else None), 0, []
    _singleton_rows(an, AP, tops, kept, times)
    try:
        if store is not None:
            tall = _fronts_on_gpu(an, AP, store, impl, ctx, memory_budget, tops, per_round, times, chosen)
        else:
            _fronts_by_rounds(an, AP, impl, ctx, memory_budget, tops, per_round, times, kept)
    finally:
        if store is not None:
            store.release()
    t = time.perf_counter()
    R = _r_matrix(an, tops, AP.shape[1])
    _charge(times, "extract", t)
    how = {"assembly": "host" if store is None else "gpu" if not tall else f"gpu ({tall} too tall on the host)",
           "schedule": ",".join(sorted(set(chosen))) or "rounds"}
    return R, per_round, how, kept


def _singleton_rows(an: Analysis, AP: sp.csr_matrix, tops: dict, kept: dict | None, times: dict) -> None:
    """The column singletons' rows of R: their rows of A as they stand (a front of one
    row needs no reflector: H = I), on the host -- no round, no draw."""
    t0 = time.perf_counter()
    for f in range(an.n1):
        if an.fm[f]:
            rows, cols, vals = own_entries(an, f, AP)
            U = np.zeros((1, an.pattern[f].shape[0]), np.float32)
            U[0, cols] = vals
            tops[f] = U
            if kept is not None:
                kept[f] = (U, np.zeros(1, np.float32))
    _charge(times, "assemble", t0)


def _rounds(an, memory_budget, per_round, end_stage=None, group=front_rounds):
    """Each round's fronts that have rows, stage by stage (section 3.4), counted in
    per_round; end_stage() after each stage.  group: front_rounds (as soon as possible)
    or front_levels (as late as possible)."""
    for stage in plan_stages(an, memory_budget):
        for rnd in group(an, stage):
            work = [f for f in rnd if an.fm[f] > 0 and f >= an.n1]      # singletons: _singleton_rows
            per_round.append(len(work))
            yield work
        if end_stage is not None:
            end_stage()


def _charge(times, key, t0) -> float:
    now = time.perf_counter()
    times[key] = times.get(key, 0.0) + now - t0
    return now


def _grouping(an, store, chosen: list):
    """How a store's stages go in rounds: front_rounds, or for a store whose launches
    are its fronts' panels in lockstep (store.panel columns each: the drawing stores)
    whichever of front_levels and front_rounds counts fewer launches -- a round costs
    its tallest front's panels.  The names chosen, stage by stage, go to `chosen`."""
    panel = getattr(store, "panel", None)
    if panel is None:
        return lambda an_, stage: chosen.append("rounds") or front_rounds(an_, stage)
    lengths = np.maximum(1, -(-np.minimum(an.fm, an.fn) // panel))

    def group(an_, stage):
        levels, rounds = front_levels(an_, stage), front_rounds(an_, stage)
        cost = [rounds_launches(g, lengths) for g in (levels, rounds)]
        chosen.append("levels" if cost[0] <= cost[1] else "rounds")
        return levels if cost[0] <= cost[1] else rounds
    return group


def _fronts_on_gpu(an, AP, store, impl, ctx, memory_budget, tops, per_round, times, chosen) -> int:
    """Each round's fronts by the method's store; a front taller than the store holds
    (ch7-8-b3's root under the fragment methods: past a texture's height) takes its
    children's blocks from the store, is assembled here and factored by row blocks,
    and gives its own block back to the store.  Returns how many fronts were so."""
    scales = _front_scales(an, AP)
    blocks, count = _StoreBlocks(store, scales), 0
    fn = an.fn
    too_tall = {f for f in range(an.nfronts) if (lim := store.row_limit(int(fn[f]))) is not None and an.fm[f] > lim}
    for work in _rounds(an, memory_budget, per_round, store.pull, _grouping(an, store, chosen)):
        tall = [f for f in work if f in too_tall]
        if tall:
            count += len(tall)
            work = [f for f in work if f not in too_tall]
            _host_round(an, AP, impl, ctx, tall, blocks, tops, times)
        t0 = time.perf_counter()
        specs = [_front_spec(an, f, AP, float(scales[f])) for f in work]
        t1 = _charge(times, "assemble", t0)
        tops.update(zip(work, store.round(specs)))
        _charge(times, "factor", t1)
    return count


class _StoreBlocks:
    """The host assembly's view of a store's blocks: pop takes one to the host, setting
    one puts it back (unscaled on the host, scaled by its front's power of two there)."""

    def __init__(self, store, scales):
        self.store, self.scales = store, scales

    def pop(self, c):
        return self.store.fetch(c)

    def __setitem__(self, f, block):
        self.store.put(f, block, float(self.scales[f]))


def _fronts_by_rounds(an, AP, impl, ctx, memory_budget, tops, per_round, times, kept=None) -> None:
    blocks = {}
    for work in _rounds(an, memory_budget, per_round):
        _host_round(an, AP, impl, ctx, work, blocks, tops, times, kept)


def _host_round(an, AP, impl, ctx, work, blocks, tops, times, kept=None) -> None:
    """The fronts `work` assembled on the host from A and `blocks` (their children's),
    factored by the method's qr_batched; their R rows to tops, their blocks to blocks."""
    t0 = time.perf_counter()
    mats = [_assemble(an, f, AP, blocks) for f in work]
    t1 = _charge(times, "assemble", t0)
    stairs = [an.leftmost[f] for f in work]
    if mats:
        rows = [M.shape[0] for M in mats]
        mats, stairs = zip(*[_rows_within(M, s, impl, ctx) for M, s in zip(mats, stairs)])
        if kept is not None and any(M.shape[0] != r for M, r in zip(mats, rows)):
            raise ValueError("keep_h: a front is taller than this method's QR holds and was split into "
                             "row blocks, whose reflectors are not kept: use method='host'")
    res = impl.qr_batched(list(mats), ctx=ctx, stairs=list(stairs)) if mats else []
    _charge(times, "factor", t1)
    for f, (F, tau) in zip(work, res):
        fp, fr, k = int(an.fp[f]), int(an.frank[f]), int(an.cm[f])
        tops[f] = F[:fr]
        if kept is not None:
            kept[f] = (F, tau)
        if k:
            blocks[f] = np.triu(F[fr:fr + k, fp:])


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
            "method": getattr(impl, "name", "?"), "path": path, "tol": tol, **how}
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
