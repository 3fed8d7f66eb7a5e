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
The scikit-learn estimators LSSVC (one-vs-all classification) and LSSVR (regression)
around `train` are in estimators.py.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import choose, implementation
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
