"""What is done once on the host, in float64, before the GPU iterates:
empty rows and columns, linearly dependent rows (the normal equations need full
row rank), and geometric scaling of rows and columns (float32 arithmetic needs
entries of similar size)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla


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


def geometric_scaling(A: np.ndarray, passes: int = 8, power_of_two: bool = False):
    """Row and column factors r, s (Curtis-Reid style geometric passes) that bring
    the nonzeros of diag(r) A diag(s) near 1; power_of_two rounds them so that
    scaling rounds nothing."""
    r, s = np.ones(A.shape[0]), np.ones(A.shape[1])
    if A.size == 0:
        return r, s
    absA = np.abs(A)
    nz = absA > 0
    for _ in range(passes):
        M = absA * r[:, None] * s[None, :]
        big = np.where(nz, M, 0).max(axis=1)
        small = np.where(nz, M, np.inf).min(axis=1)
        r = r / np.sqrt(np.maximum(big * small, 1e-300))
        M = absA * r[:, None] * s[None, :]
        big = np.where(nz, M, 0).max(axis=0)
        small = np.where(nz, M, np.inf).min(axis=0)
        s = s / np.sqrt(np.maximum(big * small, 1e-300))
    if power_of_two:
        r, s = 2.0 ** np.round(np.log2(r)), 2.0 ** np.round(np.log2(s))
    return r, s


def dependent_rows(A: np.ndarray, b: np.ndarray, rank_tol: float = 1e-9, rtol: float = 1e-7):
    """(rows to keep, whether the dropped rows' right-hand sides agree): a
    rank-revealing QR of A^T keeps the pivot rows; each dropped row is a
    combination y of the kept ones, consistent when y^T b_kept = b_dropped."""
    _, R, piv = sla.qr(A.T, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    rank = int(np.sum(d > rank_tol * max(d.max(initial=0), 1e-300)))
    if rank == A.shape[0]:
        return np.arange(A.shape[0]), True
    keep = np.sort(piv[:rank])
    out = np.setdiff1d(np.arange(A.shape[0]), keep)
    y, *_ = np.linalg.lstsq(A[keep].T, A[out].T, rcond=None)
    return keep, bool(np.allclose(y.T @ b[keep], b[out], rtol=rtol, atol=rtol * (1 + np.abs(b).max())))
