"""Weighted least squares with mixed-precision iterative refinement
(Jung & O'Leary 2008, sections 2 and 5.3, Algorithm 1).

    min_x || D (b - A^T x) ||_2,   A: m x n (m <= n), D^2 = diag(d2)
    normal equations  A D^2 A^T x = A D^2 b

The GPU forms C = A D^2 A^T and its Cholesky factor L in float32 (Algorithm 3
then Algorithm 5, chained on the GPU: the NormalFactor operation of paper/ or
blocked/) and gets x0 by forward and back substitution with L where it lies.  Then, in float64 on the host,
    r_k = A D^2 b - A D^2 A^T x_k        (A, D, b in float64; never forming C)
and the correction solves L L^T c = single(r_k) on the GPU, x_{k+1} = x_k + c,
until ||r_k||_2 / ||x_{k+1}|| <= tol or max_iter corrections.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..dispatch import METHODS, choose, implementation
from ..layouts.scaling import pow2_solve
from ..errors import NotPositiveDefiniteError
from ..gl import Context, Stopwatch, resolve
from .. import validate as check

#: If the smallest pivot of L, squared and relative to the largest, falls below
#: this multiple of m * u, C is singular to float32 working precision and
#: refinement cannot converge: the problem is reported as rank deficient.
_SINGULAR_FACTOR = 1.0


@dataclass
class WLSInfo:
    status: str                         # converged | iteration limit | diverged | rank deficient | not positive definite
    iterations: int = 0                 # refinement steps taken
    residuals: list = field(default_factory=list)    # ||r_k||_2 / ||x_{k+1}|| per step
    rel_error_estimate: float = float("nan")         # ||c_last|| / ||x||: size of the last correction
    times: dict = field(default_factory=dict)        # transfer, assemble, factor, solve, refine (seconds)
    x0: np.ndarray | None = None        # the float32 solution before refinement
    message: str = ""

    @property
    def converged(self) -> bool:
        return self.status == "converged"


def _inputs(A, d2, b, magnitude=None):
    """A, d2, b as float64, checked; magnitude: a list to append max |A| and max |d2| to,
    found by their finiteness passes."""
    A = check.array(A, "A", 2, np.float64, magnitude=magnitude)
    m, n = A.shape
    if m > n:
        raise ValueError(f"A must be m x n with m <= n (one column per sample), got {m} x {n}; "
                         "pass the transpose if your samples are rows")
    d2 = check.array(d2, "d2", 1, np.float64, magnitude=magnitude)
    b = check.array(b, "b", 1, np.float64)
    if d2.shape[0] != n:
        raise ValueError(f"d2 has length {d2.shape[0]} but A has {n} columns")
    if b.shape[0] != n:
        raise ValueError(f"b has length {b.shape[0]} but A has {n} columns")
    if (d2 < 0).any():
        raise ValueError("d2 holds negative weights; it is the diagonal of D^2 and must be >= 0")
    return A, d2, b


def wls(A, d2, b, *, tol: float = 1e-8, max_iter: int = 100, packed: bool = False,
        method: str = "auto", solver: str = "normal", ctx: Context | None = None):
    """Solve min_x ||D (b - A^T x)|| by Algorithm 1; returns (x float64, WLSInfo).

    A: (m, n) with m <= n (row j holds basis function j at the n samples),
    d2: (n,) the weights (diagonal of D^2, 1/sigma^2 for data with errors sigma),
    b: (n,) the data.  Never returns a wrong x silently: when refinement does not
    reach `tol`, info.status says why and a RuntimeWarning is issued.
    method: "paper" (Algorithms 3 and 5), "blocked", "compute" or "auto", as in cholesky.
    solver: "normal" (the paper: Cholesky of A D^2 A^T, refinement of the normal
    equations) or "qr" (Householder QR of D A^T on the GPU and Bjorck's
    refinement, solvers/lstsq.py: kappa is not squared).  Both stop on the same
    test, ||A D^2 (b - A^T x)|| / ||x|| <= tol.
    """
    A_in = A
    tops = []                          # max |A|, max |d2|: from the validation's own passes
    A, d2, b = _inputs(A, d2, b, tops)
    top = tops[1]
    if top > 0 and not 2.0 ** -60 <= top <= 2.0 ** 60:
        # x = (A D^2 A^T)^-1 A D^2 b does not change when D^2 is scaled: weights of 1e38 or
        # 1e-40 (whose products over- or underflow float32) divided by a power of two (exact)
        d2 = d2 / 2.0 ** np.round(np.log2(top))
        tops[1] = top / 2.0 ** np.round(np.log2(top))
    tol = check.real(tol, "tol", 0.0, 1.0)
    max_iter = check.integer(max_iter, "max_iter", 1)
    check.flag(packed, "packed")
    check.choice(method, "method", METHODS)
    check.choice(solver, "solver", ("normal", "qr"))
    ctx = resolve(check.context(ctx))
    if solver == "qr":
        if packed:
            raise ValueError("solver='qr' has no packed layout (the packed format stores triangles)")
        # A 2^-ea: x scales by 2^ea, b 2^-eb: x by 2^-eb -- exact, and the stopping test (whose
        # ||r|| / ||x|| is not scale-free) then sees the problem at the size it was tuned for
        ea = int(np.frexp(tops[0])[1]) if tops[0] > 0 else 0
        bmax = float(np.abs(b).max(initial=0.0))
        eb = int(np.frexp(bmax)[1]) if bmax > 0 else 0
        x, info = _wls_qr(np.ldexp(A, -ea), d2, np.ldexp(b, -eb), tol, max_iter, method, ctx)
        return np.ldexp(x, eb - ea), info
    impl = implementation(choose(method, ctx, packed=packed))
    m = A.shape[0]
    watch = Stopwatch(ctx)
    rhs = A @ (d2 * b)                       # A D^2 b in float64
    with watch("transfer"):
        # float32 input goes to the GPU as it came (validated above); the float64 A
        # is for the refinement's residuals only
        A32 = A_in if isinstance(A_in, np.ndarray) and A_in.dtype == np.float32 else A.astype(np.float32)
        d32 = d2.astype(np.float32)
    with ctx.pool.scope():          # a failure midway leaves no texture behind
        try:
            fac = impl.normal_factor(A32, d32, packed=packed, ctx=ctx, watch=watch)
        except NotPositiveDefiniteError as exc:
            info = WLSInfo("not positive definite", times=watch.as_dict(),
                           message=f"A D^2 A^T is not positive definite in float32 ({exc}); "
                                   "A is rank deficient or its weights vanish")
            warnings.warn(info.message, RuntimeWarning, stacklevel=2)
            return np.full(m, np.nan), info
        try:
            piv = fac.pivots.astype(np.float64) ** 2
            if piv.min() < _SINGULAR_FACTOR * m * 2.0 ** -24 * piv.max():
                info = WLSInfo("rank deficient", times=watch.as_dict(),
                               message=f"A D^2 A^T is singular to float32 precision (pivot ratio "
                                       f"{piv.min() / piv.max():.2e} < m*u = {m * 2.0 ** -24:.2e}); "
                                       "A is (numerically) rank deficient: drop dependent basis functions")
                warnings.warn(info.message, RuntimeWarning, stacklevel=2)
                return np.full(m, np.nan), info
            x = pow2_solve(lambda v: fac.solve(v, "solve"), rhs)
            info = WLSInfo("iteration limit", x0=x.astype(np.float32))
            t0 = time.perf_counter()
            # ||r|| / ||x|| is the 2008 paper's test (Algorithm 1), kept for data whose normal
            # matrix is of size 2^-16 .. 2^16 (its Tables 1 and 2: 1 and 1e4); data far outside it
            # (weights 1e8, A x 1e5) is measured against that size, a power of two, so scaling
            # such data changes neither the steps nor the status
            size = tops[0] ** 2 * tops[1]
            norm = 1.0 if not size or 2.0 ** -16 <= size <= 2.0 ** 16 else float(2.0 ** np.frexp(size)[1])
            x = _refine(fac, A, d2, rhs, x, info, tol, max_iter, norm)
            refine_wall = time.perf_counter() - t0
            times = watch.as_dict()
            times["refine_total"] = refine_wall
            info.times = times
        finally:
            fac.release()
        if not info.converged:
            info.message = (f"refinement stopped ({info.status}) after {info.iterations} steps with "
                            f"||r||/||x|| = {info.residuals[-1] if info.residuals else float('nan'):.3g} > tol = {tol:g}")
            warnings.warn(info.message, RuntimeWarning, stacklevel=2)
        return x, info


def _refine(fac, A, d2, rhs, x, info, tol, max_iter, norm):
    """Algorithm 1's loop: r = A D^2 b - A D^2 A^T x in float64, the correction from the
    float32 factor, until ||r|| / ||x|| (over `norm`) <= tol; info's status, residuals and
    iterations filled as it goes (diverged: not finite, or 1e3 above the best after 5 steps)."""
    best = np.inf
    for k in range(max_iter):
        r = rhs - A @ (d2 * (A.T @ x))
        c = pow2_solve(lambda v: fac.solve(v, "refine"), r)
        x = x + c
        nx = np.linalg.norm(x)
        rel = (np.linalg.norm(r) / nx if nx > 0 else np.linalg.norm(r)) / norm
        info.residuals.append(float(rel))
        info.iterations = k + 1
        info.rel_error_estimate = float(np.linalg.norm(c) / nx) if nx > 0 else float("nan")
        if not np.isfinite(rel):
            info.status = "diverged"
            break
        if rel <= tol:
            info.status = "converged"
            break
        best = min(best, rel)
        if k >= 5 and rel > 1e3 * best:
            info.status = "diverged"
            break
    return x


def _wls_qr(A, d2, b, tol, max_iter, method, ctx):
    """wls by QR: min ||D b - (D A^T) x|| with Bjorck's refinement (lstsq.refine),
    stopped by the normal-equations residual the paper's path uses."""
    from .lstsq import qr_factor, refine

    impl = implementation(choose(method, ctx))
    m = A.shape[0]
    D = np.sqrt(d2)
    M = (A * D).T                               # n x m, tall
    y = D * b
    rhs = A @ (d2 * b)
    watch = Stopwatch(ctx)
    info = WLSInfo("iteration limit")

    def stop(x, dx):
        nx = np.linalg.norm(x)
        r = rhs - A @ (d2 * (A.T @ x))
        rel = np.linalg.norm(r) / nx if nx > 0 else np.linalg.norm(r)
        info.residuals.append(float(rel))
        info.rel_error_estimate = float(np.linalg.norm(dx) / nx) if nx > 0 else float("nan")
        return rel <= tol

    with ctx.pool.scope():
        with watch("transfer"):
            M32 = M.astype(np.float32)
        fac, msg = qr_factor(impl, M32, ctx, watch, stacklevel=3)
        if fac is None:
            return np.full(m, np.nan), WLSInfo("rank deficient", times=watch.as_dict(), message=msg)
        try:
            x, _, li = refine(fac, M, y, tol=0.0, max_iter=max_iter, watch=watch, stop=stop)
        finally:
            fac.release()
    info.status = li.status
    info.iterations = li.iterations
    info.x0 = li.x0.astype(np.float32)
    info.times = li.times
    if not info.converged:
        info.message = (f"refinement stopped ({info.status}) after {info.iterations} steps with "
                        f"||r||/||x|| = {info.residuals[-1] if info.residuals else float('nan'):.3g} > tol = {tol:g}")
        warnings.warn(info.message, RuntimeWarning, stacklevel=3)
    return x, info
