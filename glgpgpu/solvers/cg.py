"""Conjugate gradients on the GPU: PLSSVM's solver, the LS-SVM comparator of the
thesis (chapters 2 and 7).  Every vector is an N x 1 float32 texture;
one iteration is the symmetric product reading only the stored lower triangle
(vectors symv_lower), two dot products (multipass reductions; their scalars come
back to the host, as the 2006 LP solver's do) and three saxpys.

The thesis's question -- CG's solution drifts through rounding -- is answered by
measuring, not assumed: with `track`, every iteration also reads x back and
records the true residual ||b - S x|| in float64 beside the recursively updated
one, and the error against a float64 solve when one is given.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..vectors import Vectors


@dataclass
class CGInfo:
    iterations: int = 0
    converged: bool = False
    residuals: list = field(default_factory=list)        # recursive ||r_k|| / ||b|| (float32, on the GPU)
    true_residuals: list = field(default_factory=list)   # ||b - S x_k|| / ||b|| in float64 (track only)
    errors: list = field(default_factory=list)           # ||x_k - x*|| / ||x*|| (track with a reference)


def cg(V: Vectors, L, b: np.ndarray, *, packed: bool = False, tol: float = 1e-3, max_iter: int | None = None,
       S64: np.ndarray | None = None, reference: np.ndarray | None = None) -> tuple:
    """Solve S x = b for the SPD S whose lower triangle is the texture L (order N);
    stop when ||r|| <= tol ||b|| (PLSSVM's relative epsilon, default 1e-3 as there)
    or after max_iter (default N) iterations.  S64 (float64 S) turns on tracking.
    Returns (x float64, CGInfo)."""
    N = b.shape[0]
    max_iter = N if max_iter is None else max_iter
    info = CGInfo()
    nb = float(np.linalg.norm(b)) or 1.0
    x, xn = V.new(N, "x"), V.new(N, "x'")
    x.write(np.zeros((N, 1), np.float32))
    r, rn = V.upload(b, "r"), V.new(N, "r'")
    p, pn = V.upload(b, "p"), V.new(N, "p'")
    Ap = V.new(N, "Ap")
    try:
        rr = V.dot(r, r)
        for k in range(max_iter):
            if np.sqrt(max(rr, 0.0)) <= tol * nb:
                info.converged = True
                break
            V.symv_lower(Ap, L, p, packed=packed)
            pAp = V.dot(p, Ap)
            if not pAp > 0:                       # S not positive definite in float32 (or breakdown)
                break
            alpha = rr / pAp
            V.saxpy(xn, alpha, p, x)
            V.saxpy(rn, -alpha, Ap, r)
            x, xn, r, rn = xn, x, rn, r
            rr_new = V.dot(r, r)
            V.saxpy(pn, rr_new / rr, p, r)
            p, pn = pn, p
            rr = rr_new
            info.iterations = k + 1
            info.residuals.append(float(np.sqrt(max(rr, 0.0)) / nb))
            if S64 is not None:
                xk = V.read(x).astype(np.float64)
                info.true_residuals.append(float(np.linalg.norm(b - S64 @ xk) / nb))
                if reference is not None:
                    info.errors.append(float(np.linalg.norm(xk - reference) / np.linalg.norm(reference)))
        else:
            info.converged = bool(np.sqrt(max(rr, 0.0)) <= tol * nb)
        return V.read(x).astype(np.float64), info
    finally:
        V.free(x, xn, r, rn, p, pn, Ap)
