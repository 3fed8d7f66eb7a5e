"""LS-SVM training on the rasterized Cholesky (the PLSSVM thesis,
chapters 2 and 5).

The LS-SVM dual is the bordered system  [0 1^T; 1 H] [b; alpha] = [0; y],
H = K + I/C.  We solve it through the Schur complement (the bordered matrix is
indefinite, H is SPD): H eta = 1, H nu = y, b = 1^T nu / 1^T eta,
alpha = nu - b eta -- one Cholesky of H for every right-hand side, so a
one-vs-all multi-class problem factors H once.  H is formed (kernel_texture with
1/C on the diagonal) and factored (Algorithm 5) on the GPU in float32; each solve
is refined to float64 on the host (Algorithm 1) with H in float64.  The thesis's
reduction to N-1 unknowns (q, QA_cost) gives the same solution; the Schur form
keeps the matrix the papers' kernels factor: symmetric positive definite.
The comparator, PLSSVM's own solver, is conjugate gradients on the GPU (cg.py).
LSSVC classifies (one-vs-all), LSSVR regresses; both shaped like scikit-learn's.
"""
from __future__ import annotations

import numpy as np

from .. import validate as check
from ..dispatch import METHODS, choose, implementation
from ..errors import NotPositiveDefiniteError
from ..gl import Stopwatch, resolve
from ..paper import kernel_texture
from ..vectors import Vectors
from .cg import cg

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


def train(X, Y, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0, C=1.0, jitter=0.0, packed=False,
          method="auto", solver="cholesky", ctx=None, tol=1e-12, max_refine=30, cg_tol=1e-3,
          cg_max_iter=None, track=False):
    """(alpha (N, k), b (k,), info) for the k target columns of Y (N, k).

    solver="cholesky": H + jitter I = L L^T on the GPU (impl.KernelFactor of the
    paper's or the blocked path), every solve refined to float64 against H itself,
    so the jitter that keeps float32 pivots positive (the thesis's parameter) does
    not bias the result once refinement converges.  solver="cg": PLSSVM's conjugate
    gradients on the GPU, float32, no refinement, stopping at ||r|| <= cg_tol ||b||;
    track=True records the true float64 residual and the error against a float64
    solve at every iteration (the drift the thesis asks about)."""
    ctx = resolve(ctx)
    N = X.shape[0]
    X32 = np.ascontiguousarray(X, np.float32)
    rhs = np.column_stack([np.ones(N), Y])                    # eta and every nu at once
    H = kernel64(X, X, kernel, gamma, degree, coef0) + np.eye(N) / C
    watch = Stopwatch(ctx)
    info = {"solver": solver}
    with ctx.pool.scope():
        if solver == "cg":
            Z = _train_cg(X32, rhs, H, kernel, gamma, degree, coef0, C, packed, ctx, cg_tol, cg_max_iter, track, info)
        else:
            impl = implementation(choose(method, ctx, packed=packed))
            fac = impl.kernel_factor(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                                    diag=1.0 / C + jitter, packed=packed, ctx=ctx, watch=watch)
            try:
                NotPositiveDefiniteError.check(fac.pivots, N)
                Z = fac.solve(rhs)
                history = []
                for _ in range(max_refine):                   # Algorithm 1 on every column
                    R = rhs - H @ Z
                    rel = float(np.abs(R).max() / np.abs(rhs).max())
                    history.append(rel)
                    if rel <= tol:
                        break
                    Z = Z + fac.solve(R)
            finally:
                fac.release()
            info.update(refinement=history, converged=bool(history and history[-1] <= max(tol, 1e-10)))
    info["times"] = watch.as_dict()
    eta, nu = Z[:, :1], Z[:, 1:]
    b = (nu.sum(0)) / eta.sum()
    alpha = nu - eta * b[None, :]
    return alpha, b, info


def _train_cg(X32, rhs, H, kernel, gamma, degree, coef0, C, packed, ctx, tol, max_iter, track, info):
    V = Vectors(ctx)
    h_tex = kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed,
                           diag=1.0 / C, ctx=ctx)
    try:
        cols, infos = [], []
        for c in range(rhs.shape[1]):
            ref = np.linalg.solve(H, rhs[:, c]) if track else None
            x, ci = cg(V, h_tex, rhs[:, c], packed=packed, tol=tol, max_iter=max_iter,
                       S64=H if track else None, reference=ref)
            cols.append(x)
            infos.append(ci)
    finally:
        ctx.pool.give(h_tex)
    info.update(cg=infos, converged=all(ci.converged for ci in infos),
                iterations=[ci.iterations for ci in infos])
    return np.column_stack(cols)


class _LSSVM:
    """What the LS-SVM estimators share: hyperparameters, training, the decision function."""

    def __init__(self, kernel="rbf", C=1.0, gamma=None, degree=3, coef0=0.0, jitter=0.0, solver="cholesky",
                 method="auto", packed=False, tol=1e-12, cg_tol=1e-3, cg_max_iter=None, ctx=None):
        self.kernel, self.C, self.gamma, self.degree, self.coef0 = kernel, C, gamma, degree, coef0
        self.jitter, self.solver, self.method, self.packed = jitter, solver, method, packed
        self.tol, self.cg_tol, self.cg_max_iter, self.ctx = tol, cg_tol, cg_max_iter, ctx

    def _params(self, d):
        check.choice(self.kernel, "kernel", KERNELS)
        check.choice(self.solver, "solver", ("cholesky", "cg"))
        check.choice(self.method, "method", METHODS)
        C = check.real(self.C, "C", 0.0, np.inf)
        gamma = 1.0 / d if self.gamma is None else check.real(self.gamma, "gamma", 0.0, np.inf)
        degree = check.integer(self.degree, "degree", 1, 64)
        coef0 = check.real(self.coef0, "coef0", -np.inf, np.inf)
        check.real(self.jitter, "jitter", 0.0, np.inf, open_lo=False)
        check.real(self.cg_tol, "cg_tol", 0.0, 1.0)
        check.flag(self.packed, "packed")
        return C, gamma, degree, coef0

    def _fit(self, X, Y, *, track=False):
        C, gamma, degree, coef0 = self._params(X.shape[1])
        self._gamma = gamma
        self.X_ = X
        self.alpha_, self.b_, self.info_ = train(
            X, Y, kernel=self.kernel, gamma=gamma, degree=degree, coef0=coef0, C=C, jitter=self.jitter,
            packed=self.packed, method=self.method, solver=self.solver, ctx=self.ctx, tol=self.tol,
            cg_tol=self.cg_tol, cg_max_iter=self.cg_max_iter, track=track)
        return self

    def decision_function(self, X):
        X = check.array(X, "X", 2, np.float64)
        if X.shape[1] != self.X_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features but the model was fitted with {self.X_.shape[1]}")
        F = kernel64(X, self.X_, self.kernel, self._gamma, self.degree, self.coef0) @ self.alpha_ + self.b_
        return F[:, 0] if F.shape[1] == 1 else F


def _xy(X, y):
    X = check.array(X, "X", 2, np.float64)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-D with one label per row of X ({X.shape[0]}), got shape {y.shape}")
    return X, y


class LSSVC(_LSSVM):
    """A least-squares SVM classifier shaped like scikit-learn's: fit, predict,
    decision_function, score; two classes by the sign, more by one-vs-all (one
    factorization for all classes).  solver="cholesky" (the GPU's Cholesky of
    K + I/C, refined to float64; jitter as the thesis's) or "cg" (PLSSVM's conjugate
    gradients on the GPU, float32, stopping at cg_tol); method="paper"|"blocked"|"auto"
    for the Cholesky's kernels."""

    def fit(self, X, y, *, track=False):
        X, y = _xy(X, y)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(f"y holds one class only ({self.classes_.tolist()}); a classifier needs two or more")
        if len(self.classes_) == 2:
            Y = np.where(y == self.classes_[1], 1.0, -1.0)[:, None]
        else:
            Y = np.where(y[:, None] == self.classes_[None, :], 1.0, -1.0)
        return self._fit(X, Y, track=track)

    def predict(self, X):
        F = self.decision_function(X)
        if F.ndim == 1:
            return np.where(F >= 0, self.classes_[1], self.classes_[0])
        return self.classes_[np.argmax(F, axis=1)]

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y)))


class LSSVR(_LSSVM):
    """Least-squares support vector regression: the same bordered system with real
    targets (Suykens' LS-SVR), the same solvers; score is R^2 as scikit-learn's."""

    def fit(self, X, y, *, track=False):
        X, y = _xy(X, y)
        y = check.array(y, "y", 1, np.float64)
        return self._fit(X, y[:, None], track=track)

    def predict(self, X):
        return self.decision_function(X)

    def score(self, X, y):
        y = np.asarray(y, np.float64)
        u = ((y - self.predict(X)) ** 2).sum()
        v = ((y - y.mean()) ** 2).sum()
        return float(1 - u / v) if v > 0 else float("nan")
