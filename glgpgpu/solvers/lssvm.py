"""LS-SVM training on the rasterized Cholesky (issue 15, step 2; the PLSSVM thesis,
seed 003, chapters 2 and 5).

The LS-SVM dual is the bordered system  [0 1^T; 1 H] [b; alpha] = [0; y],
H = K + I/C.  We solve it through the Schur complement (the bordered matrix is
indefinite, H is SPD): H eta = 1, H nu = y, b = 1^T nu / 1^T eta,
alpha = nu - b eta -- one Cholesky of H for every right-hand side, so a
one-vs-all multi-class problem factors H once.  H is formed (kernel_texture with
1/C on the diagonal) and factored (Algorithm 5) on the GPU in float32; each solve
is refined to float64 on the host (Algorithm 1) with H in float64.  The thesis's
reduction to N-1 unknowns (q, QA_cost) gives the same solution; the Schur form
keeps the matrix the papers' kernels factor: symmetric positive definite.
"""
from __future__ import annotations

import numpy as np

from .. import validate as check
from ..gl import resolve

KERNELS = ("linear", "poly", "rbf")


def kernel64(X, Y, kernel, gamma, degree, coef0):
    """k(x_i, y_j) in float64 on the host (refinement residuals, prediction)."""
    G = X @ Y.T
    if kernel == "linear":
        return G
    if kernel == "poly":
        return (gamma * G + coef0) ** degree
    D = (X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2 * G
    return np.exp(-gamma * np.maximum(D, 0.0))


def train(X, Y, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0, C=1.0, packed=False, ctx=None,
          tol=1e-12, max_refine=30):
    """(alpha (N, k), b (k,), info) for the k target columns of Y (N, k)."""
    from ..paper import kernel_texture
    from ..paper.cholesky import check_pivots, factor_texture
    from ..paper.triangular import substitute_texture

    ctx = resolve(ctx)
    K = ctx.kernels
    N = X.shape[0]
    X32 = np.ascontiguousarray(X, np.float32)
    rhs = np.column_stack([np.ones(N), Y])                    # eta and every nu at once
    with K.pool.scope():
        h_tex = kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed,
                               diag=1.0 / C, ctx=ctx)
        l_tex = factor_texture(h_tex, N, packed=packed, ctx=ctx)
        try:
            check_pivots(l_tex, N, packed, ctx)

            def gpu_solve(R):
                t = K.pool.take(N, R.shape[1])
                t.write(R.astype(np.float32))
                for backward in (False, True):
                    t = substitute_texture(l_tex, N, t, packed=packed, backward=backward, ctx=ctx)
                out = t.read().astype(np.float64)
                K.pool.give(t)
                return out

            H = kernel64(X, X, kernel, gamma, degree, coef0) + np.eye(N) / C
            Z = gpu_solve(rhs)
            history = []
            for _ in range(max_refine):                       # Algorithm 1 on every column
                R = rhs - H @ Z
                rel = float(np.abs(R).max() / np.abs(rhs).max())
                history.append(rel)
                if rel <= tol:
                    break
                Z = Z + gpu_solve(R)
        finally:
            K.pool.give(l_tex)
    eta, nu = Z[:, :1], Z[:, 1:]
    b = (nu.sum(0)) / eta.sum()
    alpha = nu - eta * b[None, :]
    return alpha, b, {"refinement": history, "converged": bool(history and history[-1] <= max(tol, 1e-10))}


class LSSVC:
    """A least-squares SVM classifier shaped like scikit-learn's: fit, predict,
    decision_function, score; two classes by the sign, more by one-vs-all (one
    factorization for all classes).  Training on the GPU's Cholesky (paper kernels)."""

    def __init__(self, kernel="rbf", C=1.0, gamma=None, degree=3, coef0=0.0, packed=False, ctx=None):
        self.kernel, self.C, self.gamma, self.degree, self.coef0 = kernel, C, gamma, degree, coef0
        self.packed, self.ctx = packed, ctx

    def _params(self, d):
        check.choice(self.kernel, "kernel", KERNELS)
        C = check.real(self.C, "C", 0.0, np.inf)
        gamma = 1.0 / d if self.gamma is None else check.real(self.gamma, "gamma", 0.0, np.inf)
        degree = check.integer(self.degree, "degree", 1, 64)
        coef0 = check.real(self.coef0, "coef0", -np.inf, np.inf)
        check.flag(self.packed, "packed")
        return C, gamma, degree, coef0

    def fit(self, X, y):
        X = check.array(X, "X", 2, np.float64)
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must be 1-D with one label per row of X ({X.shape[0]}), got shape {y.shape}")
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(f"y holds one class only ({self.classes_.tolist()}); a classifier needs two or more")
        C, gamma, degree, coef0 = self._params(X.shape[1])
        self._gamma = gamma
        if len(self.classes_) == 2:
            Y = np.where(y == self.classes_[1], 1.0, -1.0)[:, None]
        else:
            Y = np.where(y[:, None] == self.classes_[None, :], 1.0, -1.0)
        self.X_ = X
        self.alpha_, self.b_, self.info_ = train(X, Y, kernel=self.kernel, gamma=gamma, degree=degree, coef0=coef0,
                                                 C=C, packed=self.packed, ctx=self.ctx)
        return self

    def decision_function(self, X):
        X = check.array(X, "X", 2, np.float64)
        if X.shape[1] != self.X_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features but the model was fitted with {self.X_.shape[1]}")
        F = kernel64(X, self.X_, self.kernel, self._gamma, self.degree, self.coef0) @ self.alpha_ + self.b_
        return F[:, 0] if F.shape[1] == 1 else F

    def predict(self, X):
        F = self.decision_function(X)
        if F.ndim == 1:
            return np.where(F >= 0, self.classes_[1], self.classes_[0])
        return self.classes_[np.argmax(F, axis=1)]

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y)))
