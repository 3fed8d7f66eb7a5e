"""What is done once on the host, in float64, before the GPU iterates:
empty rows and columns, linearly dependent rows (the normal equations need full
row rank), and geometric scaling of rows and columns (float32 arithmetic needs
entries of similar size)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ...symbolic import colamd_available
from ..sparse_cholesky import CholeskyAnalysis, MultifrontalCholesky, ldl_flops, qdldl_module

@dataclass
class Reduced:
    A: np.ndarray
    b: np.ndarray
    c: np.ndarray
    rows: np.ndarray            # kept rows of the standard form
    cols: np.ndarray            # kept columns (others are fixed at 0)
    row_scale: np.ndarray       # A_scaled = diag(r) A diag(s)
    col_scale: np.ndarray
    status: str = ""            # "infeasible" / "unbounded" when presolve already knows
    message: str = ""
    dropped_rows: int = 0

    def unscale_x(self, z_scaled: np.ndarray, n_full: int) -> np.ndarray:
        z = np.zeros(n_full)
        z[self.cols] = z_scaled * self.col_scale
        return z


def reduce(A, b, c, *, scale_passes: int = 8, rank_tol: float = 1e-9) -> Reduced:
    m, n = A.shape
    rows, cols = np.arange(m), np.arange(n)
    # empty columns: x_j = 0 if c_j >= 0, else the LP is unbounded (x_j grows freely)
    empty = ~np.any(A != 0, axis=0)
    if np.any(empty & (c < 0)):
        return Reduced(A, b, c, rows, cols, np.ones(m), np.ones(n), "unbounded",
                       "a variable with negative cost appears in no constraint")
    cols = cols[~empty]
    A, c = A[:, ~empty], c[~empty]
    # empty rows: need b_i = 0
    zero_rows = ~np.any(A != 0, axis=1)
    if np.any(zero_rows & (np.abs(b) > 1e-9 * (1 + np.abs(b).max(initial=0)))):
        return Reduced(A, b, c, rows, cols, np.ones(m), np.ones(len(cols)), "infeasible",
                       "a constraint with no variables has a nonzero right-hand side")
    rows = rows[~zero_rows]
    A, b = A[~zero_rows], b[~zero_rows]
    # dependent rows: rank-revealing QR of A^T, keep the pivot rows
    dropped = 0
    if A.shape[0] > 0:
        keep, consistent = dependent_rows(A, b, rank_tol, rtol=1e-7)
        if len(keep) < A.shape[0]:
            if not consistent:
                return Reduced(A, b, c, rows, cols, np.ones(A.shape[0]), np.ones(len(cols)), "infeasible",
                               "linearly dependent equality constraints with inconsistent right-hand sides")
            dropped = A.shape[0] - len(keep)
            rows, A, b = rows[keep], A[keep], b[keep]
    if A.size == 0:                 # nothing left: every variable sits at 0
        return Reduced(A, b, c, rows, cols, np.ones(A.shape[0]), np.ones(A.shape[1]), dropped_rows=dropped)
    r, s = geometric_scaling(A, scale_passes)
    As = A * r[:, None] * s[None, :]
    return Reduced(As, b * r, c * s, rows, cols, r, s, dropped_rows=dropped)


def geometric_scaling(A, passes: int = 8, power_of_two: bool = False):
    """Row and column factors r, s (Curtis-Reid style geometric passes) that bring
    the nonzeros of diag(r) A diag(s) near 1; power_of_two rounds them so that
    scaling rounds nothing.  A dense or scipy.sparse; the passes touch the nonzeros
    only (O(nnz) each, where a dense pass costs m n)."""
    m, n = A.shape
    r, s = np.ones(m), np.ones(n)
    S = sp.csr_matrix(A, dtype=np.float64)
    S.eliminate_zeros()
    if S.nnz == 0:
        return r, s
    row_len = np.diff(S.indptr)
    cols, a = S.indices, np.abs(S.data)
    by_col = np.argsort(cols, kind="stable")
    row_runs = _runs(np.repeat(np.arange(m), row_len))
    col_runs = _runs(cols[by_col])
    col_len = np.bincount(cols, minlength=n)
    a_c, rows_c = a[by_col], np.repeat(np.arange(m), row_len)[by_col]     # the nonzeros by column
    for _ in range(passes):      # r (s) repeated over its row's (column's) run: r[rows] without a gather
        r = r / _geometric_mid(a * np.repeat(r, row_len) * s[cols], row_runs, m)
        s = s / _geometric_mid(a_c * r[rows_c] * np.repeat(s, col_len), col_runs, n)
    if power_of_two:
        r, s = 2.0 ** np.round(np.log2(r)), 2.0 ** np.round(np.log2(s))
    return r, s


def _runs(sorted_index):
    """(which, starts): the distinct values of a sorted index array and where each run starts."""
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    return sorted_index[starts], starts


def _geometric_mid(values, runs, size):
    """sqrt(max * min) of each run of `values` (1 where a row or column has none)."""
    which, starts = runs
    out = np.ones(size)
    out[which] = np.sqrt(np.maximum(np.maximum.reduceat(values, starts) * np.minimum.reduceat(values, starts),
                                    1e-300))
    return out


#: a row whose squared distance from the span of the rows before it (relative to its own
#: squared norm) is at least this is clearly independent: no rank-revealing QR needed
CLEAR_PIVOT = 1e-8
#: A A^T holding more than this share of its entries is factored dense for that check (the
#: share at which the LP's host factor goes dense too: mixed/host_factor.SPARSE_SHARE)
DENSE_SHARE = 0.25


def clearly_full_rank(A, count: dict | None = None) -> bool:
    """Whether the rows of A are clearly independent, from a sparse Cholesky of A A^T
    scaled to a unit diagonal (pivot i: row i's squared relative distance from the span
    of the rows ordered before it): every pivot at least CLEAR_PIVOT.  False when not
    clear (a near-dependence, a failed factorization, no sparse factorization at hand):
    the rank-revealing QR decides then.  O(the sparse factor), where the QR is O(m^2 n).
    qdldl's LDL^T (compiled) where installed: the same verdicts on the 75 NETLIB problems as
    the multifrontal factor, in a quarter of its time (mostly its Python analysis).
    count: a dict that gets "flops", qdldl's factor's count (the sum of L's squared column
    counts), where qdldl factored, or m^3/3 where M was dense: device="auto" decides by it
    without factoring again; and "order", (qdldl's factor, its triangle's indptr, indices): the
    normal matrix's host factor takes its ordering where its pattern is the same."""
    As = sp.csr_matrix(A)
    m = A.shape[0]
    longest = int(np.bincount(As.indices, minlength=A.shape[1]).max(initial=0))     # the longest column
    if longest ** 2 > DENSE_SHARE * m * m and private_rows(As).all():
        # a column this long makes A A^T dense (the dense count below) and every row holds a
        # column of its own (clearly independent, private_rows): no A A^T to form -- the sparse
        # product of a few dense columns was most of an L1 regression's solve
        if count is not None:
            count["flops"] = m ** 3 / 3.0
        return True
    M = As @ As.T
    s = 1.0 / np.sqrt(np.maximum(M.diagonal(), 1e-300))
    if M.nnz > DENSE_SHARE * m * m:
        M = (sp.diags(s) @ M @ sp.diags(s)).tocsc()
        # A A^T about dense (a few long columns: seba, fit2p): LAPACK's dense factor, where
        # qdldl's would run entry by entry (seba: 12 of its 37 ms on the CPU machine)
        L, info = sla.lapack.dpotrf(M.toarray(), lower=1)
        if count is not None:
            count["flops"] = m ** 3 / 3.0
        return bool(info == 0 and np.all(np.diag(L) ** 2 >= CLEAR_PIVOT))
    try:
        qdldl = qdldl_module()
        if qdldl is not None:
            # S M S's upper triangle scaled in place, rows then columns: the numbers of the
            # products with diag(s), without them
            U = sp.triu(M, format="csc")
            U.data *= s[U.indices]
            U.data *= np.repeat(s, np.diff(U.indptr))
            factor = qdldl.Solver(U, upper=True)
            L, pivots, _ = factor.factors()
            if count is not None:
                count["flops"] = ldl_flops(L)
                count["order"] = (factor, U.indptr, U.indices)
        elif colamd_available():
            pivots = MultifrontalCholesky(CholeskyAnalysis.of(As), (sp.diags(s) @ M @ sp.diags(s)).tocsc()).pivots()
        else:
            return False
    except (np.linalg.LinAlgError, ValueError, RuntimeError):
        return False
    return bool(pivots.shape[0] == A.shape[0] and np.all(pivots >= CLEAR_PIVOT))


#: the Gram matrix's pivoted Cholesky decides where its pivots split clearly: every kept pivot
#: at least CLEAR_PIVOT, every one left at most DEPENDENT_PIVOT (rounding's size in a unit-diagonal
#: A A^T); otherwise the rank-revealing QR does.  Up to GRAM_ROWS rows (a dense m x m array)
DEPENDENT_PIVOT, GRAM_ROWS = 1e-13, 8000


def _gram_split(A, b, rtol, b_max=None):
    """(rows to keep, consistent) from LAPACK's pivoted Cholesky (dpstrf) of A A^T scaled to a
    unit diagonal -- O(m^3/3) where the QR of A^T is O(m^2 n): cycle 1.9 -> 0.12 s, dfl001
    56 -> 2.5 s on the CPU machine -- or None where its pivots do not split clearly.  b_max: the
    scale of the b check (default: this b's largest entry)."""
    As = sp.csr_matrix(A)
    G = (As @ As.T).toarray()
    s = 1.0 / np.sqrt(np.maximum(np.diag(G), 1e-300))
    G *= s[:, None]
    G *= s[None, :]
    L, piv, r, info = sla.lapack.dpstrf(G, tol=DEPENDENT_PIVOT, lower=1)
    if info < 0 or r == 0:
        return None
    piv = piv - 1
    kept, dropped = piv[:r], piv[r:]
    L11, L21 = np.tril(L[:r, :r]), L[r:, :r]
    left = np.diag(G[np.ix_(dropped, dropped)] - L21 @ L21.T) if dropped.size else np.zeros(0)
    if np.diag(L11).min() ** 2 < CLEAR_PIVOT or np.abs(left).max(initial=0) > DEPENDENT_PIVOT:
        return None
    if not dropped.size:
        return np.arange(A.shape[0]), True
    # the dropped rows as combinations of the kept (scaled): S_d a_d = sum y_k S_k a_k, y = L11^-T L21^T
    y = sla.solve_triangular(L11, L21.T, trans=1, lower=True, check_finite=False)
    predicted = (y * s[kept][:, None]).T @ b[kept] / s[dropped]
    b_max = np.abs(b).max() if b_max is None else b_max
    consistent = np.allclose(predicted, b[dropped], rtol=rtol, atol=rtol * (1 + b_max))
    return np.sort(kept), bool(consistent)


#: a row holding a column of its own (a slack, a singleton column) whose entry is at least this
#: share of the row's norm is clearly independent: its distance from the span of every other row
#: is at least that entry (sqrt(CLEAR_PIVOT): the same line, unsquared)
PRIVATE_SHARE = math.sqrt(CLEAR_PIVOT)


def private_rows(A) -> np.ndarray:
    """Which rows of A (m x n, dense or scipy.sparse) hold a column no other row touches, with an
    entry of at least PRIVATE_SHARE of the row's norm: no combination of the other rows has that
    column, so the row is at least that entry away from their span -- in no dependence, exact or
    near, and left out of the rank-revealing work (sierra: 1,222 rows to 589 for the QR)."""
    C = sp.csc_matrix(A)
    C.eliminate_zeros()
    single = np.flatnonzero(np.diff(C.indptr) == 1)
    rows, vals = C.indices[C.indptr[single]], np.abs(C.data[C.indptr[single]])
    norms = np.sqrt(np.bincount(C.indices, C.data ** 2, minlength=C.shape[0]))
    out = np.zeros(C.shape[0], bool)
    out[rows[vals >= PRIVATE_SHARE * norms[rows]]] = True
    return out


def dependent_rows(A, b: np.ndarray, rank_tol: float = 1e-9, rtol: float = 1e-7, count: dict | None = None):
    """(rows to keep, whether the dropped rows' right-hand sides agree): a
    rank-revealing QR of A^T keeps the pivot rows; each dropped row is a
    combination y of the kept ones, consistent when y^T b_kept = b_dropped.
    With A^T P = Q R, the dropped columns are Q1 R12 + Q2 R22 (R22 below the rank
    tolerance), so y = R11^-1 R12 -- the least-squares combination, from R alone.
    Rows that are clearly independent (`clearly_full_rank`) skip the QR, and so do rows
    whose Gram matrix's pivoted Cholesky splits them clearly (`_gram_split`); rows with a
    column of their own (`private_rows`) are kept and the rest decided among themselves.
    A dense or scipy.sparse (made dense for the QR only).  count: passed to `clearly_full_rank`."""
    m = A.shape[0]
    if m > 1 and clearly_full_rank(A, count):
        return np.arange(m), True
    own = private_rows(A)
    if own.all():
        return np.arange(m), True
    # the QR's rank and the b check stay relative to the whole A's largest row and b's largest entry
    C = sp.csr_matrix(A)
    top = float(np.sqrt(np.asarray(C.multiply(C).sum(axis=1)).ravel()).max(initial=0))
    b_max = float(np.abs(b).max(initial=0))
    if not own.any():
        return _dependent_among(A, b, rank_tol, rtol, top, b_max)
    rest = np.flatnonzero(~own)
    sub = _rows_on_their_columns(C, rest)
    keep, consistent = _dependent_among(sub, np.asarray(b)[rest], rank_tol, rtol, top, b_max)
    return np.sort(np.concatenate([np.flatnonzero(own), rest[keep]])), consistent


#: rows that share no column fall into separate groups for the rank work, packed together up to
#: this many rows (or the largest group's): one small dense factor each, not one of all the rows
GROUP_ROWS = 256


def _groups(A) -> list:
    """A's rows split by the connected components of its rows' graph (two rows joined where they
    share a column): no combination of rows crosses two components.  Components are packed
    together, smallest first, up to GROUP_ROWS rows or the largest component's; one group (all
    the rows) where there is one component."""
    C = sp.csr_matrix(A)
    m = C.shape[0]
    # the components of the bipartite row-column graph: the rows' graph without forming A A^T
    _, label = connected_components(sp.bmat([[None, C], [C.T, None]]), directed=False)
    label = np.unique(label[:m], return_inverse=True)[1]           # the rows' components, 0 ..
    sizes = np.bincount(label)
    if sizes.size == 1:
        return [np.arange(m)]
    room = max(GROUP_ROWS, int(sizes.max()))
    groups, current, held = [], [], 0
    for c in np.argsort(sizes, kind="stable"):
        if held + sizes[c] > room and current:
            groups.append(current)
            current, held = [], 0
        current.append(c)
        held += int(sizes[c])
    groups.append(current)
    return [np.flatnonzero(np.isin(label, g)) for g in groups]


def _rows_on_their_columns(C, rows):
    """C's rows `rows` (CSR) on the columns they touch only."""
    sub = C[rows]
    return sub[:, np.flatnonzero(np.diff(sub.tocsc().indptr))]


def _dependent_among(A, b, rank_tol, rtol, top, b_max):
    """dependent_rows after the screens, a group of rows (`_groups`) at a time: a multicommodity
    flow's conservation rows, one commodity each, factor as 8 small Gram matrices, not one of
    eight times the order.  top: the largest row norm and b_max: the largest |b_i| of the
    problem's whole A and b, the scales of both tests."""
    groups = _groups(A) if A.shape[0] > 1 else [np.arange(A.shape[0])]
    if len(groups) == 1:
        return _dependent_in(A, b, rank_tol, rtol, top, b_max)
    C, b = sp.csr_matrix(A), np.asarray(b)
    kept, consistent = [], True
    for rows in groups:
        keep, ok = _dependent_in(_rows_on_their_columns(C, rows), b[rows], rank_tol, rtol, top, b_max)
        kept.append(rows[keep])
        consistent = consistent and ok
    return np.sort(np.concatenate(kept)), consistent


def _dependent_in(A, b, rank_tol, rtol, top, b_max):
    """One group's rows: the Gram split, else the QR."""
    by_gram = _gram_split(A, b, rtol, b_max) if A.shape[0] <= GRAM_ROWS else None
    if by_gram is not None:
        return by_gram
    if sp.issparse(A):
        A = A.toarray()
    R, piv = sla.qr(A.T, mode="r", pivoting=True)
    d = np.abs(np.diag(R))
    rank = int(np.sum(d > rank_tol * max(d.max(initial=0), top, 1e-300)))
    if rank == A.shape[0]:
        return np.arange(A.shape[0]), True
    kept, dropped = piv[:rank], piv[rank:]
    y = sla.solve_triangular(R[:rank, :rank], R[:rank, rank:A.shape[0]], check_finite=False)
    consistent = np.allclose(y.T @ b[kept], b[dropped], rtol=rtol, atol=rtol * (1 + b_max))
    return np.sort(kept), bool(consistent)


@dataclass
class Tightened:
    """A GeneralLP without the rows presolve settled (equality rows that fixed their one
    variable, rows with none left), and what the dual postsolve needs to give those rows
    back their multipliers."""
    lp: object                       # the reduced GeneralLP (same columns, fewer rows)
    rows: np.ndarray                 # original indices of the rows kept
    order: list = None               # (row, the variable it fixed or -1) in the order the rows went
    status: str = ""                 # "infeasible" when the rows contradict the bounds
    message: str = ""


def _feasibility_slack(*values) -> float:
    """How far apart two bounds may be, rounding only, before they contradict."""
    return 1e-9 * (1.0 + max((abs(v) for v in values if np.isfinite(v)), default=0.0))


def tighten(lp, passes: int = 4) -> Tightened:
    """Rows with no free variable left (all fixed) are checked and dropped; rows with one
    bound it: lo <= a x_j <= up gives x_j in [lo/a, up/a] (swapped for a < 0).  An
    equality row fixes x_j and goes; an inequality row stays (turned into bounds they
    cost 80bau3b its convergence) but its bounds are checked against the others'.
    Repeated while rows go (a fixed variable can leave another row with one).  A
    contradiction is infeasibility, found before any iteration.  Rows of the GeneralLP are
    dropped here; columns never are."""
    from .problem import GeneralLP

    A = _rows(lp.A)
    m, n = A.shape
    row_of = np.repeat(np.arange(m), np.diff(A.indptr))
    col_lo, col_up = np.array(lp.col_lo, float), np.array(lp.col_up, float)
    row_lo, row_up = np.array(lp.row_lo, float), np.array(lp.row_up, float)
    alive = np.ones(m, bool)
    checked = np.zeros(m, bool)                     # inequality singletons already checked
    order = []
    implied_lo, implied_up = col_lo.copy(), col_up.copy()     # bounds with the inequality rows' too

    def verdict(message):
        return Tightened(lp, np.arange(m), order, "infeasible", message)

    for _ in range(passes):
        fixed = col_lo == col_up
        count = np.bincount(row_of[~fixed[A.indices]], minlength=m)     # each row's moving variables
        done = alive & ~checked & (count <= 1)
        if not done.any():
            break
        for i in np.flatnonzero(done):
            cols, vals = A.indices[A.indptr[i]:A.indptr[i + 1]], A.data[A.indptr[i]:A.indptr[i + 1]]
            held = fixed[cols]
            known = _exact_dot(vals[held], col_lo[cols[held]])
            lo, up = row_lo[i] - known, row_up[i] - known
            if count[i] == 0:
                slack = _feasibility_slack(row_lo[i], row_up[i], known)
                if lo > slack or up < -slack:
                    return verdict(f"row {i} has no variable left to move and {known:g} is outside "
                                   f"[{row_lo[i]:g}, {row_up[i]:g}]")
                alive[i] = False
                order.append((int(i), -1))
                continue
            j, a = int(cols[~held][0]), float(vals[~held][0])
            lo_j, up_j = (lo / a, up / a) if a > 0 else (up / a, lo / a)
            implied_lo[j], implied_up[j] = max(implied_lo[j], lo_j), min(implied_up[j], up_j)
            if implied_lo[j] - implied_up[j] > _feasibility_slack(implied_lo[j], implied_up[j]):
                return verdict(f"row {i} bounds variable {j} to [{lo_j:g}, {up_j:g}], which its other bounds exclude")
            if row_lo[i] != row_up[i]:
                checked[i] = True
                continue
            col_lo[j] = col_up[j] = min(max(lo_j, col_lo[j]), col_up[j])
            alive[i] = False
            order.append((int(i), j))
    rows = np.flatnonzero(alive)
    kept = A[rows] if sp.issparse(lp.A) else np.asarray(lp.A, float)[rows]
    reduced = GeneralLP(lp.c, kept, row_lo[rows], row_up[rows], col_lo, col_up, lp.offset, lp.name)
    return Tightened(reduced, rows, order)


def _rows(A) -> sp.csr_matrix:
    """A (dense or sparse) as CSR without stored zeros, duplicates or unsorted rows (a copy)."""
    R = sp.csr_matrix(A, dtype=float, copy=True)
    R.sum_duplicates()
    R.eliminate_zeros()
    return R


def _exact_dot(a: np.ndarray, b: np.ndarray) -> float:
    """sum a_k b_k of the products rounded once each, summed exactly (the fixed variables'
    part of a row: whatever order the row's nonzeros are stored in, the same number)."""
    return math.fsum((a * b).tolist()) if a.size else 0.0


def row_duals(t: Tightened, lp, y_kept: np.ndarray) -> np.ndarray:
    """Multipliers for every row of the original lp: the solver's for the rows kept; for a
    dropped row that fixed its variable, that variable's reduced cost over the row's
    coefficient (the reduced cost moves from the fixed variable to the row that fixed it);
    0 for the rows with no variable left.  The rows are
    visited last-dropped first: a row dropped later may hold a variable an earlier one
    fixed, and its multiplier changes that variable's reduced cost."""
    A = _rows(lp.A).tocsc()
    y = np.zeros(A.shape[0])
    y[t.rows] = y_kept
    for i, j in reversed(t.order):
        if j < 0:
            continue
        rows, vals = A.indices[A.indptr[j]:A.indptr[j + 1]], A.data[A.indptr[j]:A.indptr[j + 1]]
        y[i] = float(lp.c[j] - vals @ y[rows]) / float(vals[rows == i][0])
    return y


def opposite_pairs(A, c, u, free) -> np.ndarray:
    """Pairs (j, k) of columns that are one variable split in two: x_j, x_k >= 0 without upper
    bounds, a_k = -a_j exactly and c_k = -c_j (a coefficient written as x+ - x- at no cost,
    scikit-learn's QuantileRegressor with alpha = 0).  Such a pair is a free variable z = x_j -
    x_k whose optimal face is unbounded along (x_j, x_k) + t (1, 1): the interior point's
    iterates drift along it.  A (m x n, CSC); found by a random projection of the columns, each
    pair then checked entry by entry; each column in one pair at most.  A (p, 2) array of
    (kept, dropped): z = x_kept - x_dropped."""
    A = sp.csc_matrix(A)
    n = A.shape[1]
    cand = np.flatnonzero(~free & ~np.isfinite(u) & (np.diff(A.indptr) > 0))
    if cand.size < 2:
        return np.zeros((0, 2), np.int64)
    r = np.random.default_rng(12345).uniform(1.0, 2.0, A.shape[0])
    h = np.asarray(A[:, cand].T @ r).ravel()
    key = np.round(np.abs(h), 9)
    order = np.lexsort((h, key))
    a_all, b_all = order[:-1], order[1:]                    # neighbours: -h just before +h
    near = (key[a_all] == key[b_all]) & (h[a_all] < 0) & (h[b_all] > 0) & (c[cand[a_all]] + c[cand[b_all]] == 0.0)
    pairs, used = [], np.zeros(n, bool)
    for a, b in zip(a_all[near], b_all[near]):
        j, k = int(cand[a]), int(cand[b])
        if used[j] or used[k]:
            continue
        sj, sk = slice(A.indptr[j], A.indptr[j + 1]), slice(A.indptr[k], A.indptr[k + 1])
        if np.array_equal(A.indices[sj], A.indices[sk]) and np.array_equal(A.data[sj], -A.data[sk]):
            pairs.append((k, j))
            used[j] = used[k] = True
    return np.array(pairs, np.int64).reshape(-1, 2)
