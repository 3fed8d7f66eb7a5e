"""The product-form Cholesky factor of a normal matrix with long columns (Goldfarb and
Scheinberg, 2004): M = K11 + K12 K12^T, K11 the short columns' part (sparse), K12 the long
columns scaled by their weights' square roots -- the pattern's bordered triangle
(normal_pattern.NormalPattern) read as its two blocks.

K11 = P (I + L) D (I + L)^T P^T by qdldl; then M = P (I + L) (D + sum_j q_j q_j^T) (I + L)^T P^T
with q_j = (I + L)^-1 P^T k_j, and the diagonal plus the k rank-one terms is factored one term
at a time: D + q q^T = L(q, beta) D' L(q, beta)^T, L(q, beta) = I + the strictly lower part of
q beta^T, by Gill, Golub, Murray and Saunders's method C1 -- t_i = 1 + sum_{l <= i} q_l^2 / d_l,
d'_i = d_i t_i / t_{i-1}, beta_i = q_i / (d_i t_i), all positive sums, so stable however far the
weights spread (where the border's quasi-definite LDL^T is not: quantile regression's
coefficients).  Every solve with an L(q, beta) is one cumulative sum, O(m): a factor costs K11's
plus O(m k^2), a solve K11's plus O(m k).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve_triangular

from ...sparse_cholesky import ldl_flops, qdldl_module
from .host_factor import PIVOT_SHARE, shifted


def _lower_solve(q, d, t_before, b):
    """y with L(q, beta) y = b (the update made on diagonal d; t_before[i] = t_{i-1}): y_i =
    b_i - q_i s_{i-1}, s_i = sum_{l <= i} beta_l y_l, and t_i s_i = sum_{l <= i} q_l b_l / d_l."""
    u = np.cumsum(q * b / d)
    prev = np.concatenate([[0.0], u[:-1]])
    return b - q * prev / t_before


def _upper_solve(q, d, t_before, b):
    """y with L(q, beta)^T y = b: y_i = b_i - beta_i r_i, r_i = sum_{l > i} q_l y_l, and
    r_i / t_i = sum_{l > i} q_l b_l / t_{l-1}."""
    terms = q * b / t_before
    w = np.concatenate([np.cumsum(terms[::-1])[::-1][1:], [0.0]])
    return b - (q / d) * w


class ProductFormLDL:
    """The factor of the pattern's M = K11 + K12 K12^T in product form; SparseLDL's interface
    (factor(data, floor) -> self, solve, kind, flops)."""

    kind = "sparse"

    def __init__(self, pattern):
        self.pattern = pattern
        self.flops = 0.0

    def factor(self, data: np.ndarray, floor: float) -> "ProductFormLDL":
        """Factor the M whose bordered triangle holds `data` (pattern order): K11 regularized
        as HostFactor's are (a shift from floor x its largest diagonal entry, 100 times more
        while an LDL^T pivot falls below half the shift), the long columns added exactly."""
        P, m = self.pattern, self.pattern.m
        K = P.matrix(data)
        K11 = sp.csc_matrix(K[:m, :m])
        K12 = K[:m, m:].toarray()
        top = float(K11.diagonal().max(initial=0))
        eye = sp.eye(m, format="csc")
        qdldl = qdldl_module()

        def ldl(shift):
            try:
                F = qdldl.Solver((K11 + shift * eye).tocsc(), upper=True)
            except (ValueError, RuntimeError) as exc:
                raise np.linalg.LinAlgError(str(exc)) from None
            L, D, perm = F.factors()
            if not np.all(D > PIVOT_SHARE * shift):
                raise np.linalg.LinAlgError("LDL^T with a pivot below the shift")
            return L, D, np.asarray(perm)
        L, D, self.perm = shifted(ldl, top, floor)
        self.flops = ldl_flops(L) + m * K12.shape[1] ** 2
        self.lower = (sp.eye(m, format="csr") + L).tocsr()
        self.upper = self.lower.T.tocsr()
        Q = spsolve_triangular(self.lower, K12[self.perm], lower=True, unit_diagonal=True) if K12.size else K12
        d = np.asarray(D, np.float64).copy()
        self.updates = []
        for j in range(K12.shape[1]):
            q = Q[:, j].copy()
            for upd in self.updates:
                q = _lower_solve(*upd, q)
            t = 1.0 + np.cumsum(q * q / d)
            t_before = np.concatenate([[1.0], t[:-1]])
            self.updates.append((q, d, t_before))
            d = d * t / t_before
        self.d = d
        return self

    def solve(self, b: np.ndarray) -> np.ndarray:
        z = spsolve_triangular(self.lower, np.asarray(b, np.float64)[self.perm], lower=True, unit_diagonal=True)
        for upd in self.updates:
            z = _lower_solve(*upd, z)
        z = z / self.d
        for upd in reversed(self.updates):
            z = _upper_solve(*upd, z)
        y = spsolve_triangular(self.upper, z, lower=False, unit_diagonal=True)
        x = np.empty_like(y)
        x[self.perm] = y
        return x

    def release(self) -> None:
        """Nothing to give back (host memory)."""
