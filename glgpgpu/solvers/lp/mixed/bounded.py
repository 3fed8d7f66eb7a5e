"""The formulation the mixed-precision solver iterates on, and the presolve and
scaling done once on the host in float64.

    min c^T x + const   s.t.  A x = b,   0 <= x_j,   x_j <= u_j (j in U)

Rows: an equality keeps its right-hand side; any other row with a finite side
gets a slack r (a_i x - r = 0, row_lo <= r <= row_up), so ranged rows cost one
bounded column, not two rows; free rows are dropped.  Columns: a fixed variable
is substituted; a finite lower bound is shifted to 0; an upper bound alone is
reflected (x = u - x'); a free variable stays one column, marked `free` (no
barrier term: the solver regularizes it, so no split p - q drifts).  Upper bounds stay
*implicit* (the set U with u_j): they never become rows of A, so the normal
matrix keeps A's size (fit2p has 13,525 bounded columns and 3,000 rows).

`BoundedLP.recover(x)` maps a solution back to the original variables.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..presolve import dependent_rows, geometric_scaling, opposite_pairs

INF = np.inf


@dataclass
class BoundedLP:
    A: sp.csc_matrix                # (m, n) float64, sparse: setup passes touch the nonzeros only
    b: np.ndarray
    c: np.ndarray
    u: np.ndarray                   # upper bounds, inf where none
    const: float = 0.0
    free: np.ndarray = None         # columns with no bound at all
    # original x_j = shift_j + coef_j * x_{col_j}, or shift_j alone where col_j is -1 (fixed, removed)
    n_orig: int = 0
    shift: np.ndarray = None
    col: np.ndarray = None
    coef: np.ndarray = None
    status: str = ""                # presolve's verdict: "infeasible" / "unbounded" / "" (go on)
    message: str = ""
    # scaling: A_scaled = diag(r) A diag(s), x = s * x_scaled
    row_scale: np.ndarray = None
    col_scale: np.ndarray = None
    dropped_rows: int = 0
    rows: np.ndarray = None         # the GeneralLP's index of each row of A (free, empty, dependent rows gone)
    normal_flops: float = float("nan")  # qdldl's count for A A^T's factor, made by the rank check (device="auto")
    normal_order: tuple | None = None   # that factor and its triangle's structure (host_factor.ordered_on)
    # original variables (J, K) that were one free variable split in two, merged by presolve into
    # J's column (z = x_J - x_K, opposite_pairs): recover() puts z's negative part on K
    split: np.ndarray = None
    split_found: int = 0            # such pairs found (merged or not)

    @property
    def shape(self):
        return self.A.shape

    def recover(self, x: np.ndarray) -> np.ndarray:
        """Original variables from a solution of this (unscaled) formulation."""
        out = self.shift.copy()
        has = self.col >= 0
        out[has] += self.coef[has] * x[self.col[has]]
        if self.split is not None and self.split.size:
            J, K = self.split[:, 0], self.split[:, 1]
            z = (out[J] - self.shift[J]) * self.coef[J]           # coef is +-1
            neg = z < 0
            out[J[neg]] = self.shift[J[neg]]
            out[K[neg]] = self.shift[K[neg]] - self.coef[K[neg]] * z[neg]
        return out


def from_general(lp) -> BoundedLP:
    """Rows and columns of a GeneralLP into the form above (no presolve yet)."""
    A0 = sp.csr_matrix(lp.A, dtype=np.float64)
    m0, n0 = A0.shape
    lo_r, up_r = np.asarray(lp.row_lo, float), np.asarray(lp.row_up, float)
    eq = lo_r == up_r
    free_row = np.isinf(lo_r) & np.isinf(up_r) & (lo_r < 0) & (up_r > 0)
    keep_rows = np.flatnonzero(~free_row)
    slack_rows = keep_rows[~eq[keep_rows]]
    # columns: the originals, then one slack per inequality row (coefficient -1)
    n_all = n0 + len(slack_rows)
    slack_at = np.flatnonzero(~eq[keep_rows])               # their rows among the kept ones
    # [A0's kept rows, slacks] by columns, the slacks' one entry each appended (what hstack gives)
    K = A0[keep_rows].tocsc()
    ns = len(slack_rows)
    A_all = sp.csc_matrix((np.concatenate([K.data, -np.ones(ns)]), np.concatenate([K.indices, slack_at]),
                           np.concatenate([K.indptr, K.indptr[-1] + np.arange(1, ns + 1)])),
                          shape=(len(keep_rows), n_all))
    A_all.sum_duplicates()
    col_lo = np.concatenate([np.asarray(lp.col_lo, float), lo_r[slack_rows]])
    col_up = np.concatenate([np.asarray(lp.col_up, float), up_r[slack_rows]])
    b = np.where(eq[keep_rows], lo_r[keep_rows], 0.0)
    c_all = np.concatenate([np.asarray(lp.c, float), np.zeros(len(slack_rows))])
    if np.any(col_lo > col_up):
        j = int(np.flatnonzero(col_lo > col_up)[0])
        what = f"variable {j}" if j < n0 else f"row {slack_rows[j - n0]}"
        return _verdict(m0, n0, "infeasible", f"{what} has lower bound > upper bound")

    # each column: fixed (substituted), x = lo + x', x = up - x', or free (kept as is)
    fixed = col_lo == col_up
    lower = ~fixed & np.isfinite(col_lo)
    upper_only = ~fixed & ~lower & np.isfinite(col_up)
    kept = np.flatnonzero(~fixed)
    sign = np.where(upper_only[kept], -1.0, 1.0)
    shift_all = np.where(fixed | lower, col_lo, np.where(upper_only, col_up, 0.0))
    shift_all = np.where(np.isfinite(shift_all), shift_all, 0.0)
    A = A_all[:, kept]
    A.data *= np.repeat(sign, np.diff(A.indptr))          # reflected columns: exact
    cost = c_all[kept] * sign
    upper = np.where(lower[kept], col_up[kept] - col_lo[kept], INF)
    free = ~lower[kept] & ~upper_only[kept]
    col = np.full(n_all, -1, np.int64)
    col[kept] = np.arange(kept.shape[0])
    coef = np.zeros(n_all)
    coef[kept] = sign
    const = float(lp.offset)
    b = _minus_product(b, A_all, shift_all)
    const += float(c_all @ shift_all)
    return BoundedLP(A, b, cost, upper, const, free, n0, shift_all[:n0], col[:n0], coef[:n0], rows=keep_rows)


def _minus_product(b: np.ndarray, A: sp.spmatrix, x: np.ndarray) -> np.ndarray:
    """b - A x, each row's sum carried in extended precision (long double where the
    platform has it) and rounded once: the result is then (nearly always) the correctly
    rounded one, whatever order the nonzeros are stored in -- a last-bit difference in
    b sent greenbea's late iterations elsewhere."""
    A = sp.csr_matrix(A)
    prod = A.data.astype(np.longdouble) * x[A.indices]
    sums = np.zeros(A.shape[0], np.longdouble)
    rows = np.flatnonzero(np.diff(A.indptr))
    if rows.size:
        sums[rows] = np.add.reduceat(prod, A.indptr[rows])
    return (b.astype(np.longdouble) - sums).astype(np.float64)


def _verdict(m, n, status, message):
    out = BoundedLP(sp.csc_matrix((m, 0)), np.zeros(m), np.zeros(0), np.zeros(0), 0.0, np.zeros(0, bool), n,
                    np.zeros(n), np.full(n, -1, np.int64), np.zeros(n))
    out.status, out.message = status, message
    return out


def presolve(p: BoundedLP, *, rank_tol: float = 1e-9, qr_limit: float = 4e10, merge_split: bool = False) -> BoundedLP:
    """Empty columns and rows, linearly dependent rows (pivoted QR while it is
    cheap: m^2 n below qr_limit; beyond that the solver's regularization copes).
    merge_split: free variables written as x+ - x- at no cost made one free column again
    (otherwise only counted, in p.split_found: the solver's last resort merges them)."""
    if p.status:
        return p
    A, b, c, u, free = sp.csc_matrix(p.A), p.b, p.c, p.u, p.free
    A.eliminate_zeros()
    m, n = A.shape
    value = np.zeros(n)                                # where removed columns sit
    empty = np.diff(A.indptr) == 0
    for j in np.flatnonzero(empty):
        if free[j] and c[j] != 0:
            p.status, p.message = "unbounded", f"a free variable with nonzero cost appears in no constraint ({j})"
            return p
        if c[j] < 0 and not np.isfinite(u[j]):
            p.status, p.message = "unbounded", f"a variable with negative cost appears in no constraint (column {j})"
            return p
        value[j] = u[j] if c[j] < 0 else 0.0
    keep = ~empty
    p.const += float(c[empty] @ value[empty])
    # the removed columns' values enter recover(): fold them into the shifts
    remap = np.full(n, -1, np.int64)
    remap[keep] = np.arange(int(keep.sum()))
    has = np.flatnonzero(p.col >= 0)
    gone = has[~keep[p.col[has]]]
    p.shift[gone] += p.coef[gone] * value[p.col[gone]]
    p.col[has] = remap[p.col[has]]
    A, c, u, free = A[:, keep], c[keep], u[keep], free[keep]
    A, c, u, free = _merge_split_pairs(p, A, c, u, free, merge_split)
    zero_rows = np.bincount(A.indices, minlength=A.shape[0]) == 0
    big = 1e-9 * (1 + np.abs(b).max(initial=0))
    if np.any(zero_rows & (np.abs(b) > big)):
        p.status, p.message = "infeasible", "a constraint with no variables has a nonzero right-hand side"
        return p
    A, b, rows = A.tocsr()[~zero_rows], b[~zero_rows], p.rows[~zero_rows]
    dropped = 0
    if 0 < A.shape[0] and float(A.shape[0]) ** 2 * A.shape[1] <= qr_limit:
        count = {}
        keep_r, consistent = dependent_rows(A, b, rank_tol, rtol=1e-9, count=count)
        p.normal_flops = count.get("flops", float("nan"))
        p.normal_order = count.get("order")
        if len(keep_r) < A.shape[0] and consistent:
            dropped = A.shape[0] - len(keep_r)
            A, b, rows = A[keep_r], b[keep_r], rows[keep_r]
    A = A.tocsc()
        # an inconsistent near-dependence keeps every row: it is no proof of infeasibility;
        # the solver's dual regularization copes, and a real contradiction shows as a Farkas ray
    p.A, p.b, p.c, p.u, p.free, p.dropped_rows, p.rows = A, b, c, u, free, dropped, rows
    return p


def _merge_split_pairs(p: BoundedLP, A, c, u, free, merge: bool):
    """Each free variable written as x+ - x- at no cost (presolve.opposite_pairs) made one free
    column again (merge), the pairs kept in p.split for recover(); p.split_found counts them
    either way.  Only pairs of original variables (not slacks).  Not the first resort: NETLIB
    has such pairs in 10 problems, solved in as many or fewer iterations without merging them."""
    pairs = opposite_pairs(A, c, u, free)
    if not pairs.size:
        return A, c, u, free
    orig = np.full(A.shape[1], -1, np.int64)
    has = np.flatnonzero(p.col >= 0)
    orig[p.col[has]] = has
    pairs = pairs[(orig[pairs[:, 0]] >= 0) & (orig[pairs[:, 1]] >= 0)]
    p.split_found = int(pairs.shape[0])
    if not pairs.size or not merge:
        return A, c, u, free
    keep = np.ones(A.shape[1], bool)
    keep[pairs[:, 1]] = False
    free = free.copy()
    free[pairs[:, 0]] = True
    p.split = np.stack([orig[pairs[:, 0]], orig[pairs[:, 1]]], axis=1)
    remap = np.full(A.shape[1], -1, np.int64)
    remap[keep] = np.arange(int(keep.sum()))
    p.col[has] = remap[p.col[has]]                      # the dropped one: -1, its shift alone
    return A[:, keep], c[keep], u[keep], free[keep]


def scale(p: BoundedLP, passes: int = 10) -> BoundedLP:
    """Geometric (Curtis-Reid style) scaling of rows and columns, iterated, so
    that |a_ij| is near 1: A <- R A S, b <- R b, c <- S c, u <- u / S."""
    A = p.A
    r, s = geometric_scaling(A, passes, power_of_two=True)
    A = sp.csc_matrix(A, dtype=np.float64, copy=True)
    A.sort_indices()
    A.data *= r[A.indices]                              # powers of two: exact
    A.data *= np.repeat(s, np.diff(A.indptr))
    p.A = A
    p.b, p.c, p.u = p.b * r, p.c * s, p.u / s
    p.row_scale, p.col_scale = r, s
    return p


# Right-hand sides and bounds are brought near 1 when their largest is below 1 or beyond
# 2^30, costs when below 2^-10 or beyond 2^30 (after the geometric scaling): the stopping
# test is relative to 1 + norms, so data far below 1 would be solved to an absolute, not a
# relative, accuracy; and the solver's absolute constants assume data near 1.
RHS_RANGE = (1.0, 2.0 ** 30)
COST_RANGE = (2.0 ** -10, 2.0 ** 30)


def normalize(p: BoundedLP) -> tuple:
    """(sigma_b, sigma_c): b and u divided by sigma_b, c by sigma_c, const by both, each a
    power of two (exact) chosen only outside the ranges above.  Solutions come back as
    x = sigma_b x', y = sigma_c y'."""
    def power(values, lo, hi):
        big = float(np.abs(values[np.isfinite(values)]).max(initial=0.0))
        return 2.0 ** np.round(np.log2(big)) if big > 0 and not lo <= big <= hi else 1.0
    sb, sc = power(np.concatenate([p.b, p.u]), *RHS_RANGE), power(p.c, *COST_RANGE)
    p.b, p.u, p.c = p.b / sb, p.u / sb, p.c / sc
    p.const = p.const / (sb * sc)
    return sb, sc
