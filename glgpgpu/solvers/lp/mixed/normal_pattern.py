"""The upper triangle of M = A diag(d) A^T + delta I on a pattern made once per problem.

M's entries are sums over the columns j of d_j a_ij a_kj, one term per pair of
nonzeros of column j -- the same pairs the sparse assembly draws as points
(issue's "sparse A D A^T"), here summed on the host.  The pattern (which entries
exist) does not change between iterations, only d does; so the pairs, where each
lands in the triangle's CSC data, and their products a_ij a_kj are found once, and
every factorization is one sum of sum_j nnz_j (nnz_j + 1) / 2 terms (a sparse
matrix-vector product) -- no sparse matrix product, no conversions, no `triu`, and the same CSC structure
each time, which lets qdldl keep its ordering and elimination tree
(host_factor.SparseLDL).  The diagonal is always in the pattern (an empty row
still gets delta or the regularizing shift).

Long columns (more than LONG entries, at most MAX_LONG of them) would make M dense
(seba: 14 of 1,036 columns; fit2p: 25 of 13,525).  They are bordered instead -- the
dense-column technique: with V = A_long diag(d_long)^1/2 the matrix is the augmented

    K = [ M_short  V  ]      whose Schur complement M_short + V V^T is M,
        [ V^T     -I  ]

quasi-definite, so qdldl factors it as it is and a solve of K [x; 0] gives M^-1 r
in x.  The triangle then has m + k columns.  With border=False every column is short:
the triangle is M's own (the GPU's float64 factor scatters it into a dense matrix).
"""
from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp

#: no pattern for matrices whose columns make more pairs than this (memory: 16 bytes a pair)
MAX_PAIRS = 4_000_000
#: a column with more entries than this is bordered (a column of V), if there are at most MAX_LONG
LONG, MAX_LONG = 32, 64
#: pairs per entry of the triangle beyond which no pattern is made (beaconfd 2.4, d6cube 1.7: sparse
#: M all the same; fit1d 319, wood1p 32: dense)
PAIRS_PER_ENTRY = 4
#: a triangle of at most this many positions (n^2) finds its pairs' places through a map of them all
#: (4 bytes a position); a larger one by binary search in its sorted entries
DENSE_PLACES = 2 ** 24


@functools.lru_cache(maxsize=256)
def _pairs(c: int) -> tuple:
    """np.triu_indices(c), made once per length (a few of them serve a whole problem)."""
    return np.triu_indices(c)


def _upper_with_diagonal(S) -> tuple:
    """(indptr, indices) of the upper triangle of the pattern S S^T with the whole diagonal, CSC
    with rows sorted: what sp.triu(S @ S.T + eye, format="csc") holds, without its conversions."""
    m = S.shape[0]
    C = (S @ S.T).tocsc()
    C.sort_indices()
    cols = np.repeat(np.arange(m), np.diff(C.indptr))
    keep = C.indices <= cols
    rows, cols = C.indices[keep].astype(np.int64), cols[keep]
    on = np.zeros(m, bool)
    on[rows[rows == cols]] = True
    missing = np.flatnonzero(~on)                 # rows no short column touches: their diagonal still
    if missing.size:
        rows, cols = np.concatenate([rows, missing]), np.concatenate([cols, missing])
        order = np.lexsort((rows, cols))
        rows, cols = rows[order], cols[order]
    kind = np.int32 if rows.size < 2 ** 31 else np.int64           # scipy's index type
    indptr = np.zeros(m + 1, kind)
    np.cumsum(np.bincount(cols, minlength=m), out=indptr[1:])
    return indptr, rows.astype(kind)


def _long_columns(counts: np.ndarray, border: bool = True) -> np.ndarray:
    long = np.flatnonzero(counts > LONG) if border else counts[:0]
    return long if long.size <= MAX_LONG else long[:0]


class NormalPattern:
    """Pairs of A's short columns' nonzeros, placed in the upper triangle of A A^T (CSC, rows
    sorted in each column, the diagonal always present), and the long columns as a border."""

    def __init__(self, A, border: bool = True):
        A = sp.csc_matrix(A)
        A.sum_duplicates()
        m = A.shape[0]
        counts = np.diff(A.indptr)
        self.long = _long_columns(counts, border)
        k = self.long.size
        self.m, self.size = m, m + k
        n = self.size
        short = counts.copy()
        short[self.long] = 0
        # each short column's pairs, column after column: W's columns (CSC) as they come, no sort
        starts = np.zeros(A.shape[1] + 1, np.int64)
        np.cumsum(short * (short + 1) // 2, out=starts[1:])
        kind = np.int32 if n * n < 2 ** 31 else np.int64          # keys col * n + row: half the memory
        keys, vals = np.empty(int(starts[-1]), kind), np.empty(int(starts[-1]))
        for c in np.unique(short[short > 0]):
            js = np.flatnonzero(short == c)
            idx = A.indptr[js][:, None] + np.arange(c)[None, :]       # each column's entries, rows sorted
            r, v = A.indices[idx].astype(kind), A.data[idx]
            a, b = _pairs(int(c))                                     # a <= b: row r[a] <= row r[b]
            at = starts[js][:, None] + np.arange(a.size)[None, :]
            keys[at] = r[:, b] * n + r[:, a]                          # (r[a], r[b]) in column r[b]
            vals[at] = v[:, a] * v[:, b]
        # the border: long column t's entries in column m + t, and -1 at (m + t, m + t)
        Al = A[:, self.long]
        v_rows = Al.indices.astype(np.int64)
        v_cols = m + np.repeat(np.arange(k), np.diff(Al.indptr))
        self.v_values, self.v_long = Al.data.copy(), self.long[v_cols - m]
        border = np.arange(m, m + k)
        # the triangle's entries, in order: the short columns' product pattern with the diagonal
        # (compiled, where sorting every pair cost maros-r7's 3.2 million pairs most of this
        # constructor), then the border's columns, each its long column's rows and its -1
        S = A[:, np.flatnonzero(short)]
        S_indptr, S_indices = _upper_with_diagonal(sp.csc_matrix((np.ones(S.nnz), S.indices, S.indptr), shape=S.shape))
        tail = np.sort(np.concatenate([v_cols * n + v_rows, border * (n + 1)]))
        key = np.concatenate([np.repeat(np.arange(m, dtype=np.int64) * n, np.diff(S_indptr)) + S_indices, tail])
        if n * n <= DENSE_PLACES:                                     # a place map: one gather per pair
            place = np.empty(n * n, np.int32 if key.size < 2 ** 31 else np.int64)
            place[key] = np.arange(key.size)
            pairs = place[keys]
            del place
        else:
            pairs = np.searchsorted(key, keys)
        self.diagonal_at = S_indptr[1:] - 1                              # (i, i): each column's last
        self.v_at = S_indices.size + np.searchsorted(tail, v_cols * n + v_rows)
        self.border_at = S_indices.size + np.searchsorted(tail, border * (n + 1))
        # the sums as one sparse product W d, W[place, j] = a_ij a_kj: a compiled row-by-row sum,
        # 2-5x quicker than a weighted bincount of the pairs; built by columns as the pairs come,
        # then by rows (a counting sort: each place's terms still added in column order)
        self._W = sp.csc_matrix((vals, pairs, starts), shape=(key.size, A.shape[1])).tocsr()
        self.indices = (key % n).astype(np.int32)
        col = key // n
        self.indptr = np.zeros(n + 1, np.int32)
        np.cumsum(np.bincount(col, minlength=n), out=self.indptr[1:])
        self.row_of, self.col_of = self.indices, col.astype(np.int32)
        self.nnz = int(key.size)
        self.nnz_short = int(np.count_nonzero(col < m))                 # M_short's triangle

    @staticmethod
    def usable(A, border: bool = True) -> bool:
        """Whether a pattern of A is worth making: its short columns make at most MAX_PAIRS
        pairs, and at most PAIRS_PER_ENTRY times as many as the triangle has entries (more: M
        is about dense -- fit1d, wood1p -- and formed dense as cheaply)."""
        m = A.shape[0]
        c = np.diff(sp.csc_matrix(A).indptr).astype(np.int64)
        c[_long_columns(c, border)] = 0
        return int((c * (c + 1) // 2).sum()) <= min(MAX_PAIRS, PAIRS_PER_ENTRY * m * (m + 1) // 2)

    @property
    def full_nnz(self) -> int:
        """Nonzeros of the whole symmetric M_short (of M itself with no long column)."""
        return 2 * self.nnz_short - self.m

    @property
    def sums(self) -> sp.csr_matrix:
        """W: one row per entry of the triangle (the pattern's order), W[e, j] = a_ij a_kj, so
        that the entries are W d (`data`, less delta and the border)."""
        return self._W

    def data(self, d: np.ndarray, delta: float = 0.0) -> np.ndarray:
        """The triangle's values of A diag(d) A^T + delta I (bordered: see the module), in
        the pattern's order."""
        out = self._W @ d
        out[self.diagonal_at] += delta
        out[self.v_at] = self.v_values * np.sqrt(d[self.v_long])
        out[self.border_at] = -1.0
        return out

    def matrix(self, data: np.ndarray) -> sp.csc_matrix:
        """The upper triangle with these values, as scipy CSC (sharing the pattern's arrays)."""
        U = sp.csc_matrix((data, self.indices, self.indptr), shape=(self.size, self.size))
        U.has_sorted_indices = True
        return U

    def scale(self, data: np.ndarray, s: np.ndarray) -> np.ndarray:
        """diag(s) M diag(s)'s triangle values, in place (the border's rows scaled with M's)."""
        if self.size > self.m:
            s = np.concatenate([s, np.ones(self.size - self.m)])
        data *= s[self.row_of]
        data *= s[self.col_of]
        return data
