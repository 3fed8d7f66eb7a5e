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

Each GPU method has a front store (`sparse_fronts`, a methods.contract.FrontStore:
compute/fronts.py by dispatches, methods/fronts.py by draws for blocked and paper): the
fronts are assembled on the GPU as the paper does -- S-assembly and the children's blocks
gathered through their maps, each front handed over as a FrontSpec -- and the blocks kept
there between rounds.  With keep_h (and for method="host") the fronts are assembled here
between rounds.

Every front's QR is the same arithmetic whatever the round, the atlas it lands in
or the memory budget (qr_batched's results are bit-identical to one front alone),
so R does not depend on any of them.
"""
from __future__ import annotations

import time

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ..dispatch import FrontSpec
from ..scheduling.tree import rounds_launches
from ..symbolic import Analysis, block_rows, front_levels, front_rounds, own_entries, plan_stages


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


def numeric(an: Analysis, AP: sp.csr_matrix, impl, ctx, *, memory_budget=None, times=None,
            keep_h: bool = False) -> tuple:
    """Factor every front; returns (R as CSC, the per-round front counts, {"assembly":
    where the fronts were assembled: "gpu", "gpu (N too tall on the host)" or "host",
    "schedule": how the rounds were grouped, "rounds" and/or "levels" (_grouping)}, and with
    keep_h each front's (F, tau) -- its reflectors; those fronts go by the host assembly).
    A method with a front store (compute, blocked, paper) assembles and keeps its fronts on
    the GPU; the others' fronts are assembled here and sent to `qr_batched` round by round."""
    return FrontFactorization(an, AP, impl, ctx, memory_budget, times, keep_h).run()


class FrontFactorization:
    """The numeric phase's state for one factorization: what it reads (the analysis, A with
    its columns permuted, the method and its context, the memory budget) and what it makes
    (each front's R rows `tops`, the rounds' sizes, the schedules chosen, the kept reflectors
    and the phases' times)."""

    def __init__(self, an: Analysis, AP: sp.csr_matrix, impl, ctx, memory_budget=None, times=None,
                 keep_h: bool = False):
        self.an, self.AP, self.impl, self.ctx, self.memory_budget = an, AP, impl, ctx, memory_budget
        self.keep_h = keep_h
        self.times = times if times is not None else {}
        self.tops: dict = {}                # front -> its R rows (fr x fn, float32)
        self.per_round: list = []           # fronts per round
        self.chosen: list = []              # each stage's grouping ("rounds" / "levels")
        self.kept = {} if keep_h else None  # keep_h: front -> (F, tau)
        self.tall = 0                       # fronts too tall for the store, assembled here

    def run(self) -> tuple:
        an = self.an
        limit = self.ctx.max_texture_size if self.ctx is not None and self.impl.name != "compute" else None
        if limit is not None and an.nfronts and (an.fn.max() + 3) // 4 > limit:
            f = int(np.argmax(an.fn))
            raise ValueError(f"front {f} has {an.fn[f]} columns, more than this GPU's texture holds "
                             f"({4 * limit}): use method='host'")
        store = None if self.keep_h else self.impl.sparse_fronts(ctx=self.ctx)
        self._singleton_rows()
        try:
            if store is not None:
                self._on_gpu(store)
            else:
                self._by_rounds()
        finally:
            if store is not None:
                store.release()
        t = time.perf_counter()
        R = _r_matrix(an, self.tops, self.AP.shape[1])
        _charge(self.times, "extract", t)
        how = {"assembly": "host" if store is None else "gpu" if not self.tall else
               f"gpu ({self.tall} too tall on the host)", "schedule": ",".join(sorted(set(self.chosen))) or "rounds"}
        return R, self.per_round, how, self.kept

    def _singleton_rows(self) -> None:
        """The column singletons' rows of R: their rows of A as they stand (a front of one
        row needs no reflector: H = I), on the host -- no round, no draw."""
        an, t0 = self.an, time.perf_counter()
        for f in range(an.n1):
            if an.fm[f]:
                rows, cols, vals = own_entries(an, f, self.AP)
                U = np.zeros((1, an.pattern[f].shape[0]), np.float32)
                U[0, cols] = vals
                self.tops[f] = U
                if self.kept is not None:
                    self.kept[f] = (U, np.zeros(1, np.float32))
        _charge(self.times, "assemble", t0)

    def _rounds(self, end_stage=None, group=front_rounds):
        """Each round's fronts that have rows, stage by stage (section 3.4), counted in
        per_round; end_stage() after each stage.  group: front_rounds (as soon as possible)
        or front_levels (as late as possible)."""
        an = self.an
        for stage in plan_stages(an, self.memory_budget):
            for rnd in group(an, stage):
                work = [f for f in rnd if an.fm[f] > 0 and f >= an.n1]      # singletons: _singleton_rows
                self.per_round.append(len(work))
                yield work
            if end_stage is not None:
                end_stage()

    def _on_gpu(self, store) -> None:
        """Each round's fronts by the method's store; a front taller than the store holds
        (ch7-8-b3's root under the fragment methods: past a texture's height) takes its
        children's blocks from the store, is assembled here and factored by row blocks,
        and gives its own block back to the store (counted in `tall`)."""
        an = self.an
        scales = _front_scales(an, self.AP)
        blocks = _StoreBlocks(store, scales)
        too_tall = {f for f in range(an.nfronts)
                    if (lim := store.row_limit(int(an.fn[f]))) is not None and an.fm[f] > lim}
        for work in self._rounds(store.pull, _grouping(an, store, self.chosen)):
            tall = [f for f in work if f in too_tall]
            if tall:
                self.tall += len(tall)
                work = [f for f in work if f not in too_tall]
                self._host_round(tall, blocks)
            t0 = time.perf_counter()
            specs = [front_spec(an, f, self.AP, float(scales[f])) for f in work]
            t1 = _charge(self.times, "assemble", t0)
            self.tops.update(zip(work, store.round(specs)))
            _charge(self.times, "factor", t1)

    def _by_rounds(self) -> None:
        blocks = {}
        for work in self._rounds():
            self._host_round(work, blocks)

    def _host_round(self, work, blocks) -> None:
        """The fronts `work` assembled on the host from A and `blocks` (their children's),
        factored by the method's qr_batched; their R rows to tops, their blocks to blocks."""
        an, impl, ctx, t0 = self.an, self.impl, self.ctx, time.perf_counter()
        mats = [_assemble(an, f, self.AP, blocks) for f in work]
        t1 = _charge(self.times, "assemble", t0)
        stairs = [an.leftmost[f] for f in work]
        if mats:
            rows = [M.shape[0] for M in mats]
            mats, stairs = zip(*[_rows_within(M, s, impl, ctx) for M, s in zip(mats, stairs)])
            if self.kept is not None and any(M.shape[0] != r for M, r in zip(mats, rows)):
                raise ValueError("keep_h: a front is taller than this method's QR holds and was split into "
                                 "row blocks, whose reflectors are not kept: use method='host'")
        res = impl.qr_batched(list(mats), ctx=ctx, stairs=list(stairs)) if mats else []
        _charge(self.times, "factor", t1)
        for f, (F, tau) in zip(work, res):
            fp, fr, k = int(an.fp[f]), int(an.frank[f]), int(an.cm[f])
            self.tops[f] = F[:fr]
            if self.kept is not None:
                self.kept[f] = (F, tau)
            if k:
                blocks[f] = np.triu(F[fr:fr + k, fp:])


def front_spec(an: Analysis, f: int, AP: sp.csr_matrix, scale: float) -> FrontSpec:
    """What a method's front store needs to assemble and factor front f on the GPU."""
    rows, cols, vals = own_entries(an, f, AP)
    children = []
    for c in an.children[f]:
        if an.cm[c]:
            at, brow = block_rows(an, f, c)
            prow = np.full(int(an.cm[c]), -1, np.int32)
            prow[brow] = at
            children.append((int(c), prow, np.asarray(an.rjmap[c], np.int32)))
    return FrontSpec(f=int(f), m=int(an.fm[f]), n=int(an.pattern[f].shape[0]), scale=scale, rows=rows, cols=cols,
                     vals=vals, children=children, leftmost=an.leftmost[f], fr=int(an.frank[f]), fp=int(an.fp[f]),
                     cm=int(an.cm[f]))


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


def column_norms(A: sp.spmatrix) -> np.ndarray:
    return np.sqrt(np.asarray(A.multiply(A).sum(axis=0)).ravel()) if A.nnz else np.zeros(A.shape[1])


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


def _charge(times, key, t0) -> float:
    now = time.perf_counter()
    times[key] = times.get(key, 0.0) + now - t0
    return now


def _grouping(an, store, chosen: list):
    """How a store's stages go in rounds: front_rounds, or for a store whose launches
    are its fronts' panels in lockstep (store.panel columns each: the drawing stores)
    whichever of front_levels and front_rounds counts fewer launches -- a round costs
    its tallest front's panels.  The names chosen, stage by stage, go to `chosen`."""
    if store.panel is None:
        return lambda an_, stage: chosen.append("rounds") or front_rounds(an_, stage)
    lengths = np.maximum(1, -(-np.minimum(an.fm, an.fn) // store.panel))

    def group(an_, stage):
        levels, rounds = front_levels(an_, stage), front_rounds(an_, stage)
        cost = [rounds_launches(g, lengths) for g in (levels, rounds)]
        chosen.append("levels" if cost[0] <= cost[1] else "rounds")
        return levels if cost[0] <= cost[1] else rounds
    return group


class _StoreBlocks:
    """The host assembly's view of a store's blocks: pop takes one to the host, setting
    one puts it back (unscaled on the host, scaled by its front's power of two there)."""

    def __init__(self, store, scales):
        self.store, self.scales = store, scales

    def pop(self, c):
        return self.store.fetch(c)

    def __setitem__(self, f, block):
        self.store.put(f, block, float(self.scales[f]))
