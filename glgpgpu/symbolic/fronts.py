"""Fronts of the multifrontal QR (Yeralan et al. 2015, section 2.1.1, Figs. 1-4).

After the fill-reducing order and the column elimination tree's postorder:

* the pattern of each row of R (one pass in column order: row j of R is column j
  plus the rows of A whose leftmost nonzero is column j plus each child's pattern
  without the child -- the symbolic Cholesky of A^T A, computed from A);
* fundamental supernodes (a column joins its only child when its row of R is the
  child's without the child) and CHOLMOD's relaxed amalgamation (nrelax, zrelax:
  merge a child into its parent while the explicit zeros stay few) -- the fronts;
* the rows of A each front assembles (by leftmost column), the children's
  contribution blocks, every front's staircase (its rows sorted by leftmost
  column, Fig. 4) and the maps that put a child's columns into its parent's
  (Rjmap, section 3.3.1: each parent row has exactly one source, nothing is summed);
* the flop count on the staircases and the paper's arithmetic intensity (flops
  per byte of the fronts, section 4, Fig. 15).

Front f's dense matrix is fm x fn: its pivot columns are the first fp entries of
`pattern[f]` (columns of A P), the rest are where its contribution block goes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .etree import column_etree, postorder
from .ordering import column_order
from .singletons import column_singletons, leading_singletons

#: CHOLMOD's defaults (t_cholmod_defaults: nrelax 4, 16, 48; zrelax 0.8, 0.1, 0.05)
NRELAX = (4, 16, 48)
ZRELAX = (0.8, 0.1, 0.05)


@dataclass
class Analysis:
    """Everything the numeric phase needs, for A P with P = `perm`."""
    m: int
    n: int
    perm: np.ndarray                  # A P = A[:, perm]
    ordering: str
    col_parent: np.ndarray            # the column elimination tree of A P
    col_count: np.ndarray             # nonzeros in each row of R (the pattern's length)
    super: np.ndarray                 # front f's pivots are columns super[f] .. super[f+1]-1
    pattern: list                     # front f's columns (of A P), sorted; the first fp are its pivots
    parent: np.ndarray                # parent front, -1 at roots
    children: list                    # child fronts, increasing
    fm: np.ndarray                    # rows of front f (its rows of A + its children's contribution rows)
    frank: np.ndarray                 # rows of R front f produces: min(fm, fp)
    cm: np.ndarray                    # rows of its contribution block: min(fm, fn) - frank
    s_rows: list                      # rows of A front f assembles (indices into A), in staircase order
    sources: list                     # per front row: -1 for a row of A, else the child front it comes from
    source_row: list                  # per front row: the row of A, or the row of that child's block
    leftmost: list                    # per front row: its leftmost local column (non-decreasing: the staircase)
    rjmap: list                       # child c: where its block's columns sit among its parent's
    flops: float = 0.0                # Householder flops on the staircases
    relax: tuple | None = (NRELAX, ZRELAX)  # the amalgamation's parameters, None when off
    n1: int = 0                       # column singletons: A P's first n1 columns, one front each
    fundamental: tuple | None = None  # (first columns, row patterns) of the fundamental supernodes
                                      # (kept with staircases=False: `reamalgamated`)

    @property
    def nfronts(self) -> int:
        return len(self.pattern)

    @property
    def fp(self) -> np.ndarray:
        return np.diff(self.super)

    @property
    def fn(self) -> np.ndarray:
        return np.array([p.shape[0] for p in self.pattern], np.int64)

    @property
    def front_entries(self) -> int:
        """sum fm fn: the fronts' entries (the paper's memory for its intensity)."""
        return int(np.dot(self.fm, self.fn))

    @property
    def intensity(self) -> float:
        """flops per byte of the fronts in double precision (Yeralan et al. 2015,
        section 4: "flops / memory required"; Fig. 15's axis, threshold 10)."""
        return self.flops / max(1, 8 * self.front_entries)

    @property
    def nnz_r(self) -> int:
        """Entries of R's pattern (each front's frank rows, upper trapezoidal)."""
        fn, fr = self.fn, self.frank
        return int(np.sum(fr * fn - fr * (fr - 1) // 2))

    def postorder_ok(self) -> bool:
        return bool(np.all((self.parent == -1) | (self.parent > np.arange(self.nfronts))))


def _rows_by_leftmost(AP_csr, n):
    """For each column j, the rows of A P whose leftmost nonzero is j; empty rows get -1."""
    ip = AP_csr.indptr
    nonempty = np.diff(ip) > 0
    left = np.full(AP_csr.shape[0], -1, np.int64)
    left[nonempty] = AP_csr.indices[ip[:-1][nonempty]]
    order = np.argsort(left, kind="stable")
    order = order[left[order] >= 0]
    starts = np.searchsorted(left[order], np.arange(n + 1))
    return left, order, starts


def _union(parts) -> np.ndarray:
    """The sorted union of index arrays that are mostly sorted runs (the children's
    patterns): a stable sort merges runs in near-linear time, where np.unique hashes."""
    a = np.concatenate(parts)
    a.sort(kind="stable")
    return a[np.concatenate(([True], a[1:] != a[:-1]))]


def _row_patterns(AP, n):
    """One pass over the columns: the pattern of each row of R, stored once per
    fundamental supernode (a chain's later columns are slices of its first)."""
    csr = AP.tocsr()
    csr.sort_indices()
    left, order, starts = _rows_by_leftmost(csr, n)
    grouped = csr[order]                     # the rows by leftmost column: column j's rows contiguous
    gind = grouped.indices
    # Python lists where the loop reads single entries (numpy scalars cost several times as much)
    gp, starts = grouped.indptr.tolist(), starts.tolist()
    kids = [[] for _ in range(n)]
    count = [0] * n
    parent = [-1] * n
    first = [0] * n                          # first column of j's fundamental supernode
    stored = {}
    for j in range(n):
        parts = [np.array([j])]
        for c in kids[j]:
            s = first[c]
            parts.append(stored[s][c - s + 1:])
        if starts[j + 1] > starts[j]:
            parts.append(gind[gp[starts[j]]:gp[starts[j + 1]]])
        pat = _union(parts) if len(parts) > 1 else parts[0]
        count[j] = size = pat.shape[0]
        if size > 1:
            p = int(pat[1])
            parent[j] = p
            kids[p].append(j)
        if len(kids[j]) == 1 and kids[j][0] == j - 1 and size == count[j - 1] - 1:
            first[j] = first[j - 1]          # the child's row without the child: same supernode
        else:
            first[j] = j
            stored[j] = pat
    return (csr, left, np.asarray(parent, np.int64), np.asarray(count, np.int64), np.asarray(first, np.int64),
            stored)


def _amalgamate(fund_start, count, parent_col, nrelax, zrelax):
    """CHOLMOD's relaxed amalgamation over the fundamental supernodes (cholmod_super.c):
    supernode s+1 is merged into s when s+1 is s's parent and either the result is
    small (ns <= nrelax[0]) or its fraction of explicit zeros is under zrelax."""
    nf = fund_start.shape[0] - 1
    fmap = np.repeat(np.arange(nf), np.diff(fund_start))
    sparent = np.full(nf, -1, np.int64)
    last = fund_start[1:] - 1
    has = parent_col[last] >= 0
    sparent[has] = fmap[parent_col[last][has]]
    # Python lists: the loop reads them element by element (numpy scalars cost ~5x as much)
    sparent = sparent.tolist()
    merged = [-1] * nf
    nscol = np.diff(fund_start).astype(np.int64).tolist()
    snz = count[fund_start[:-1]].astype(np.int64).tolist()
    zeros = [0.0] * nf
    for s in range(nf - 2, -1, -1):
        if sparent[s] < 0:
            continue
        ss = sparent[s]
        while merged[ss] != -1:
            ss = merged[ss]
        top, ss = ss, sparent[s]
        while merged[ss] != -1:
            nxt = merged[ss]
            merged[ss] = top
            ss = nxt
        if top != s + 1:
            continue
        n0, n1 = nscol[s], nscol[s + 1]
        ns = n0 + n1
        tot = zeros[s + 1]
        if ns <= nrelax[0]:
            merge = True
        else:
            new = float(n0) * (snz[s + 1] + n0 - snz[s])
            if new == 0:
                merge = True
            else:
                size = ns * (ns + 1) / 2.0 + ns * (float(snz[s + 1]) - n1)
                z = (tot + new) / size
                tot += new
                merge = (ns <= nrelax[1] and z < zrelax[0]) or (ns <= nrelax[2] and z < zrelax[1]) or z < zrelax[2]
        if merge:
            zeros[s] = tot
            merged[s + 1] = s
            snz[s] = n0 + snz[s + 1]
            nscol[s] += nscol[s + 1]
    keep = np.flatnonzero(np.asarray(merged) == -1)
    return np.append(fund_start[keep], fund_start[-1])


def rows_only(A, keep: np.ndarray) -> sp.csr_matrix:
    """A with the rows not in `keep` emptied (same shape, explicit entries kept)."""
    C = A.tocsr()
    lens = np.diff(C.indptr)
    mask = np.repeat(keep, lens)
    indptr = np.concatenate(([0], np.cumsum(lens * keep)))
    return sp.csr_matrix((C.data[mask], C.indices[mask], indptr), shape=C.shape)


def _order(A, ordering, singletons: bool, tol: float, pivots: int, dense_rows) -> tuple:
    """(q, name, n1, rows): the column order of A -- its first `pivots` columns ordered,
    the rest (a right-hand side's) kept last -- with the n1 column singletons first
    and each one's row (-1: dead).  A named ordering finds the singletons with the
    columns free to move and orders what is left (SuiteSparseQR's spqr_1colamd); a
    given order keeps its leading run of singletons (spqr_1fixed)."""
    m, n = A.shape
    rest = np.arange(pivots, n)
    if isinstance(ordering, str) and singletons:
        cols, rows = column_singletons(A[:, :pivots], tol)
        free_cols = np.setdiff1d(np.arange(pivots), cols)
        keep = np.ones(m, bool)
        keep[rows[rows >= 0]] = False
        q2, name = column_order(A[keep][:, free_cols], ordering, dense_rows=dense_rows)
        return np.concatenate([cols, free_cols[q2], rest]), name, cols.shape[0], rows
    q, name = column_order(A[:, :pivots], ordering, dense_rows=dense_rows)
    q = np.concatenate([q, rest])
    if not singletons:
        return q, name, 0, np.zeros(0, np.int64)
    rows = leading_singletons(A[:, q[:pivots]], tol)
    return q, name, rows.shape[0], rows


def analyze(A, ordering="colamd", *, relax: bool = True, nrelax=NRELAX, zrelax=ZRELAX,
            staircases: bool = True, singletons: bool = True, tol: float = 0.0, pivots: int | None = None,
            dense_rows: float | None = -1.0) -> Analysis:
    """The symbolic analysis of A (scipy.sparse, m x n): order, tree, fronts, maps, flops.
    relax=False keeps the fundamental supernodes (R's pattern is then exactly the
    symbolic factor's, no explicit zeros).  staircases=False stops after the fronts
    and their tree (what a Cholesky of A^T A needs): no rows, staircases, maps or flops.
    singletons: column singletons first, each its own front of one row (symbolic/
    singletons.py; |a| > tol counts), the tree built without their rows -- off for a
    Cholesky of A^T A, where a singleton's row is fill like any other.  pivots: the
    columns that are A's (the default: all); those after them (b, for Q^T b) stay last.
    dense_rows: COLAMD's knob (symbolic/ordering.py), SuiteSparseQR's by default."""
    A = A.tocsc()
    m, n = A.shape
    pivots = n if pivots is None else pivots
    q, name, n1, srows = _order(A, ordering, singletons, tol, pivots, dense_rows)
    keep = np.ones(m, bool)
    keep[srows[srows >= 0]] = False
    left_by = rows_only(A, keep).tocsc() if n1 else A                  # what the singletons leave
    perm = np.concatenate([q[:n1], q[n1:][postorder(column_etree(left_by[:, q[n1:]]))]])
    AP = A[:, perm]
    csr, left, col_parent, count, first, stored = _row_patterns(left_by[:, perm], n)
    if n1:                          # a singleton's row of R is its row of A, as it stands
        full = AP.tocsr()
        full.sort_indices()
        for j, i in enumerate(srows.tolist()):
            if i >= 0:
                stored[j] = full.indices[full.indptr[i]:full.indptr[i + 1]].astype(np.int64)
                count[j] = stored[j].shape[0]
                left[i] = j
    fund_start = np.append(np.flatnonzero(first == np.arange(n)), n)
    sup, pattern, parent, children = _fronts(fund_start, stored, count, col_parent,
                                             (nrelax, zrelax) if relax else None)
    nf = sup.shape[0] - 1
    colfront = np.repeat(np.arange(nf), np.diff(sup))
    fp = np.diff(sup)
    fn = np.array([p.shape[0] for p in pattern], np.int64)
    fm = np.zeros(nf, np.int64)
    frank = np.zeros(nf, np.int64)
    cm = np.zeros(nf, np.int64)
    rowfront = np.where(left >= 0, colfront[np.maximum(left, 0)], -1)
    by_front = np.argsort(rowfront, kind="stable")
    by_front = by_front[rowfront[by_front] >= 0]
    fstart = np.searchsorted(rowfront[by_front], np.arange(nf + 1))
    s_rows, sources, source_row, leftmost, rjmap = [], [], [], [], [None] * nf
    for f in range(nf if staircases else 0):
        pat = pattern[f]
        rows = by_front[fstart[f]:fstart[f + 1]]
        lo = [np.searchsorted(pat, left[rows])]
        src = [np.full(rows.shape[0], -1, np.int64)]
        srow = [rows.astype(np.int64)]
        for c in children[f]:
            cmap = np.searchsorted(pat, pattern[c][fp[c]:])
            rjmap[c] = cmap
            k = int(cm[c])
            lo.append(cmap[:k])                     # a block's row t starts at its column t
            src.append(np.full(k, c, np.int64))
            srow.append(np.arange(k, dtype=np.int64))
        lo, src, srow = np.concatenate(lo), np.concatenate(src), np.concatenate(srow)
        order = np.argsort(lo, kind="stable")
        lo, src, srow = lo[order], src[order], srow[order]
        leftmost.append(lo)
        sources.append(src)
        source_row.append(srow)
        s_rows.append(srow[src == -1])
        fm[f] = lo.shape[0]
        frank[f] = min(fm[f], fp[f])
        cm[f] = min(fm[f], fn[f]) - frank[f]
    flops = _house_flops(leftmost, fn, np.where(np.arange(nf) < n1, 0, fm), n) if staircases else 0.0
    return Analysis(m=m, n=n, perm=perm, ordering=name, col_parent=col_parent, col_count=count, super=sup,
                    pattern=pattern, parent=parent, children=children, fm=fm, frank=frank, cm=cm, s_rows=s_rows,
                    sources=sources, source_row=source_row, leftmost=leftmost, rjmap=rjmap, flops=flops,
                    relax=(tuple(nrelax), tuple(zrelax)) if relax else None, n1=int(n1),
                    fundamental=None if staircases else (fund_start, stored))


def _fronts(fund_start, stored, count, col_parent, relax) -> tuple:
    """(super, pattern, parent, children) of the fronts: the fundamental supernodes (fund_start,
    their row patterns `stored`), amalgamated with relax = (nrelax, zrelax) unless None."""
    sup = _amalgamate(fund_start, count, col_parent, *relax) if relax is not None else fund_start
    nf = sup.shape[0] - 1
    colfront = np.repeat(np.arange(nf), np.diff(sup))
    pattern = []
    at = np.searchsorted(fund_start, sup)          # front f's fundamental supernodes: at[f] .. at[f + 1]
    for f in range(nf):
        members = fund_start[at[f]:at[f + 1]]
        pat = stored[members[0]] if members.shape[0] == 1 else _union([stored[s] for s in members])
        pattern.append(pat.astype(np.int64))
    parent = np.full(nf, -1, np.int64)
    lastcol = sup[1:] - 1
    has = col_parent[lastcol] >= 0
    parent[has] = colfront[col_parent[lastcol][has]]
    children = [[] for _ in range(nf)]
    for f in range(nf):
        if parent[f] >= 0:
            children[parent[f]].append(f)
    return sup, pattern, parent, children


def reamalgamated(an: Analysis, nrelax, zrelax) -> Analysis:
    """The same order, tree and row patterns with other amalgamation parameters: what analyze
    with `an.perm` and these would give, without the tree and patterns made again (an must come
    from analyze(..., staircases=False, singletons=False), which keeps its fundamental supernodes)."""
    if an.fundamental is None or an.n1:
        raise ValueError("reamalgamated needs an analysis made with staircases=False, singletons=False")
    fund_start, stored = an.fundamental
    sup, pattern, parent, children = _fronts(fund_start, stored, an.col_count, an.col_parent, (nrelax, zrelax))
    nf = sup.shape[0] - 1
    zeros = np.zeros(nf, np.int64)
    return Analysis(m=an.m, n=an.n, perm=an.perm, ordering=an.ordering, col_parent=an.col_parent,
                    col_count=an.col_count, super=sup, pattern=pattern, parent=parent, children=children,
                    fm=zeros, frank=zeros.copy(), cm=zeros.copy(), s_rows=[], sources=[], source_row=[], leftmost=[],
                    rjmap=[None] * nf, flops=0.0, relax=(tuple(nrelax), tuple(zrelax)), n1=0,
                    fundamental=an.fundamental)


def _house_flops(leftmost: list, fn: np.ndarray, fm: np.ndarray, n: int) -> float:
    """Householder QR flops of all fronts on their staircases, counted as SuiteSparseQR
    counts them (spqr_front.cpp): every column k of a front while rows remain (k <
    min(fm, fn): its contribution block is triangularized too), reflector k spanning
    the h = max(t, k + 1) - k rows from k down to t, the last row whose leftmost
    column is <= k, at 3 h flops for itself and 4 h on each of the fn - k - 1 columns
    right of it.  All fronts in one pass (a front's rows are sorted by leftmost
    column; keyed by f (n + 1) + leftmost they are sorted across fronts too).  The
    terms are integers, so the float64 sum is exact in any order."""
    steps = np.minimum(fm, fn)
    if not leftmost or not steps.any():
        return 0.0
    sizes = np.array([lo.shape[0] for lo in leftmost], np.int64)
    nf, big = len(leftmost), n + 1
    keys = np.repeat(np.arange(nf, dtype=np.int64), sizes) * big + np.concatenate(leftmost)
    front = np.repeat(np.arange(nf, dtype=np.int64), steps)            # each reflector's front
    k = np.arange(front.shape[0]) - np.repeat(np.cumsum(steps) - steps, steps)
    start = np.concatenate(([0], np.cumsum(sizes)))[front]
    reach = np.searchsorted(keys, front * big + k, side="right") - start   # its front's rows with leftmost <= k
    h = (np.maximum(reach, k + 1) - k).astype(np.float64)
    return float(np.sum(h * (4.0 * (fn[front] - k - 1) + 3.0)))


def own_entries(an: Analysis, f: int, AP) -> tuple:
    """(front rows, front columns, values) of front f's own rows of A (S-assembly);
    AP: A with the analysis' column order, scipy CSR."""
    pat = an.pattern[f]
    mine = np.flatnonzero(an.sources[f] == -1)
    ip = AP.indptr
    rows = an.source_row[f][mine]
    lens = ip[rows + 1] - ip[rows]
    starts = np.repeat(ip[rows] - (np.cumsum(lens) - lens), lens)
    idx = starts + np.arange(int(lens.sum()))
    return np.repeat(mine, lens), np.searchsorted(pat, AP.indices[idx]), AP.data[idx]


def block_rows(an: Analysis, f: int, c: int) -> tuple:
    """The rows of front f that child c's block fills, and which block row each takes."""
    at = np.flatnonzero(an.sources[f] == c)
    return at, an.source_row[f][at]
