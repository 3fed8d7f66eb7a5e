"""A X = B for a square float64 A by the normal equations of the second kind, refined
against A itself (the corrected semi-normal equations, Bjorck 1987; the refinement as
LAPACK's dsgesv): glgpgpu.linalg.solve's general case, where the GPU's float64 factor of
A Dc^2 A^T takes n^3 flops against the Householder QR's 4/3 n^3.  The factor comes from
the caller (the GPU's, `api.gram_cholesky64`); the answer only where its backward error
meets dsgesv's test, else None and the caller's QR decides.  Also scipy's LinAlgWarning
for an ill-conditioned A."""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla

EPS = np.finfo(np.float64).eps


def warn_ill(rcond: float) -> None:
    """scipy's LinAlgWarning, in its words, for a reciprocal condition number below eps."""
    if rcond < EPS:
        warnings.warn(f"Ill-conditioned matrix (rcond={rcond:.6g}): result may not be accurate.",
                      sla.LinAlgWarning, stacklevel=3)


#: refinement steps the normal-equations route takes at most before the QR decides
GRAM_STEPS = 10


def refined_normal_solve(A: np.ndarray, B: np.ndarray, gram_factor):
    """X (n, k) with A X = B (n, k), or None: with A's columns scaled by powers of two (Dc,
    exact), L = gram_factor(A, Dc^2) -- lower, float64, L L^T = A Dc^2 A^T, raising
    numpy.linalg.LinAlgError where that is not positive definite to float64 -- then
    X = Dc^2 A^T L^-T L^-1 R for R = B and for each float64 residual R = B - A X, while each
    step gains a factor 2.  A step's error shrinks by about kappa(A Dc)^2 eps, so this gets there
    for kappa up to ~1e7.  The answer is taken where its backward error meets LAPACK dsgesv's
    test, ||R||_inf <= ||X||_inf ||A||_inf eps sqrt(n) for every column; else None (the QR decides:
    singular, ill-conditioned, or a product out of float64's range)."""
    n = A.shape[0]
    cmax = np.maximum(np.max(A, axis=0), -np.min(A, axis=0))
    if not (np.all(cmax > 0) and np.all(np.isfinite(cmax))):
        return None                                   # a zero column: singular, the QR names it
    e = np.frexp(cmax)[1]
    if np.abs(e).max() > 500:                         # Dc^2 past float64's range: the QR decides
        return None
    d = np.ldexp(1.0, -2 * e)                         # Dc^2: each scaled column's largest in [0.5, 1)
    try:
        L = gram_factor(A, d)
    except (np.linalg.LinAlgError, ValueError):       # not positive definite to float64, or past a buffer
        return None
    pivots = np.abs(np.diagonal(L))
    if not pivots.min() > 0 or (pivots.max() / pivots.min()) ** 2 * EPS >= 0.5:
        return None                                   # A Dc^2 A^T singular to float64: its solves are not A's
    U = L.T                                           # L's bytes in Fortran order (no copy): U = L^T

    def gram_inverse(R):                              # (A Dc^2 A^T)^-1 R
        W = sla.solve_triangular(U, R, trans=1, lower=False, check_finite=False)
        return sla.solve_triangular(U, W, lower=False, check_finite=False)

    def gram_solve(R):                                # A^-1 R = Dc^2 A^T (A Dc^2 A^T)^-1 R
        return d[:, None] * (A.T @ gram_inverse(R))
    anorm = float(np.abs(A).sum(axis=1).max())
    X = gram_solve(B)
    last, first_gain = np.inf, None
    for step in range(GRAM_STEPS + 1):
        R = B - A @ X                                 # X's residual: the test below reads the last one
        rnorm = np.abs(R).max(axis=0)
        if not np.all(np.isfinite(rnorm)):
            return None
        xnorm = np.abs(X).max(axis=0)
        worst = float(np.max(rnorm / np.maximum(xnorm, np.finfo(np.float64).tiny)))
        if first_gain is None and np.isfinite(last):
            first_gain = worst / last if last > 0 else 0.0
        if step == GRAM_STEPS or worst == 0.0 or worst > last / 2:    # out of steps, exact, or no longer gaining
            break
        last = worst
        X = X + gram_solve(R)
    if not (np.all(rnorm <= xnorm * anorm * EPS * np.sqrt(n)) and np.all(np.isfinite(X))):
        return None
    _warn_if_ill(A, d, cmax, pivots, first_gain or 0.0, gram_solve, gram_inverse)
    return X


def _warn_if_ill(A, d, cmax, pivots, gain, gram_solve, gram_inverse) -> None:
    """scipy's LinAlgWarning where A's reciprocal condition number (1-norm, estimated) is below
    eps.  A step of refinement gains about kappa(A Dc)^2 eps and L's pivots spread at most
    kappa(A Dc) (the route has declined where A Dc^2 A^T is singular to float64 and they say
    nothing), so kappa_1(A) <= n kappa(A Dc) kappa(Dc) is known roughly for free; only where
    that could pass 1e-3 / eps is ||A^-1||_1 estimated (onenormest, by solves with the factor)."""
    n = A.shape[0]
    scaled = max(np.sqrt(gain / EPS), float(pivots.max() / pivots.min()))
    if n * scaled * float(cmax.max() / cmax.min()) * EPS <= 1e-3:
        return
    from scipy.sparse.linalg import LinearOperator, onenormest
    inv = LinearOperator((n, n), dtype=np.float64, matvec=lambda x: gram_solve(x.reshape(n, -1)).ravel(),
                         matmat=gram_solve,
                         rmatvec=lambda y: gram_inverse(A @ (d * y.ravel())).ravel(),
                         rmatmat=lambda Y: gram_inverse(A @ (d[:, None] * Y)))
    warn_ill(1.0 / (float(np.abs(A).sum(axis=0).max()) * onenormest(inv, t=1)))      # t=1: LAPACK gecon's dlacn2
