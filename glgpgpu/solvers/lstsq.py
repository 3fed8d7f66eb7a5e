"""Least squares by Householder QR on the GPU with float64 refinement).

    min_x || b - A x ||_2,   A: m x n, m >= n, full column rank

The 2008 paper's Algorithm 1 refines the normal equations: its corrections
come from L L^T = fl(A D^2 A^T), so they converge at a rate near u kappa(A)^2
and stop converging once kappa(A)^2 u32 approaches 1 (Table 2's problems need
7-15 steps).  Here the float32 factor is A = QR, never A^T A, and refinement is
Bjorck's (1967) on the augmented system

    [ I   A ] [r]   [b]          f = b - r - A x,  g = -A^T r     (float64, host)
    [ A^T 0 ] [x] = [0]          h = R^-T g;  d = Q^T f;  dx = R^-1 (d1 - h);
                                 dr = Q [h; d2];  x += dx, r += dr (GPU, float32)

whose corrections contract at a rate near u32 kappa(A): one squaring of kappa
fewer, so ill-conditioned problems need fewer steps and problems with
kappa^2 u32 > 1 still converge.  Starting from x = 0, r = 0 the first step is
the plain QR solve x0 = R^-1 Q^T b.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..layouts.scaling import pow2_solve

from ..dispatch import METHODS, choose, implementation
from ..gl import Stopwatch, resolve
from .. import validate as check


@dataclass
class LstsqInfo:
    status: str = "iteration limit"     # converged | iteration limit | diverged | rank deficient
    iterations: int = 0                 # refinement steps after x0
    corrections: list = field(default_factory=list)   # ||dx|| / ||x|| per step
    times: dict = field(default_factory=dict)
    x0: np.ndarray | None = None        # the float32-accurate first solution
    message: str = ""
    rank: int | None = None             # A's numerical rank (n unless "rank deficient")

    @property
    def converged(self) -> bool:
        return self.status == "converged"


def rank_deficient(R: np.ndarray) -> str:
    """A message if R's diagonal shows A rank deficient to float32 precision, else ''."""
    d = np.abs(np.diag(R)).astype(np.float64)
    n = d.shape[0]
    if n == 0:
        return ""
    if d.max() == 0 or d.min() <= n * 2.0 ** -24 * d.max():
        return (f"A is rank deficient to float32 precision (|R_ii| from {d.min():.3g} to {d.max():.3g}; "
                f"the smallest is below n u |R|max = {n * 2.0 ** -24 * d.max():.3g}): "
                "drop dependent columns or regularize")
    return ""


def qr_factor(impl, A32: np.ndarray, ctx, watch, stacklevel: int):
    """The QRFactor operation of `impl` for A32, or (None, message) -- with a
    RuntimeWarning and nothing left on the GPU -- when A is rank deficient."""
    fac = impl.qr_factor(A32, ctx=ctx, watch=watch)
    msg = rank_deficient(fac.R)
    if msg:
        fac.release()
        warnings.warn(msg, RuntimeWarning, stacklevel=stacklevel + 1)
        return None, msg
    return fac, ""


def float64_floor(R: np.ndarray) -> float:
    """The relative accuracy float64 refinement can reach on min ||b - A x||: a
    backward-stable float64 solve is accurate to about kappa^2 u64 (nonzero
    residual; Higham, Thm 20.1), kappa estimated from R's diagonal (a lower bound)."""
    d = np.abs(np.diag(R)).astype(np.float64)
    kappa = d.max() / d.min() if d.size and d.min() > 0 else np.inf
    n = max(R.shape[1], 1)
    return float(10 * n * (kappa ** 2 + kappa) * 2.0 ** -53)


def refine(fac, A: np.ndarray, b: np.ndarray, *, tol: float, max_iter: int, watch: Stopwatch | None = None,
           stop=None) -> tuple:
    """Bjorck's refinement on a QR factor `fac` (a method's qr_factor: methods.contract.QRFactor,
    q(y, trans=), solve_r(y, trans=), R).  A, b float64.  `stop(x, dx)`, if
    given, replaces the default test ||dx|| <= tol ||x||.  Without it, refinement
    also ends (converged) when corrections stop contracting below the float64
    floor (`float64_floor`): x is then as accurate as float64 can make it, as
    LAPACK's xGERFS stops.  Returns (x, r, info)."""
    floor = max(tol, float64_floor(fac.R))
    prev = np.inf
    m, n = A.shape
    x, r = np.zeros(n), np.zeros(m)
    info = LstsqInfo()
    t0 = time.perf_counter()
    best = np.inf
    for k in range(max_iter + 1):
        f = b - r - A @ x
        g = -(A.T @ r)
        # each float32 GPU step on a vector scaled to size about 1 (exact powers of two):
        # tiny data or residuals would underflow float32 long before float64
        h = pow2_solve(lambda v: fac.solve_r(v, trans=True), g) if k else np.zeros(n)
        d = pow2_solve(lambda v: fac.q(v, trans=True), f)
        dx = pow2_solve(fac.solve_r, d[:n] - h)
        dr = pow2_solve(fac.q, np.concatenate([h, d[n:]]))
        x, r = x + dx, r + dr
        if k == 0:
            info.x0 = x.copy()
            continue
        nx = np.linalg.norm(x)
        rel = float(np.linalg.norm(dx) / nx) if nx > 0 else float(np.linalg.norm(dx))
        info.corrections.append(rel)
        info.iterations = k
        if not np.isfinite(rel):
            info.status = "diverged"
            break
        if (stop(x, dx) if stop is not None else rel <= tol):
            info.status = "converged"
            break
        if stop is None and k >= 2 and rel > prev / 2 and rel <= floor:
            info.status = "converged"
            info.message = (f"corrections stopped contracting at {rel:.2g} ||x||, within the float64 limit "
                            f"{floor:.2g} of this problem")
            break
        prev = rel
        best = min(best, rel)
        if k >= 5 and rel > 1e3 * best:
            info.status = "diverged"
            break
    info.times = dict(watch.as_dict() if watch is not None else {}, refine_total=time.perf_counter() - t0)
    return x, r, info


def lstsq(A, b, *, tol: float = 1e-12, max_iter: int = 30, method: str = "auto", ctx=None):
    """min_x ||b - A x||_2 for A (m, n), m >= n, of full column rank, by GPU QR
    (float32) and Bjorck's float64 refinement.  Returns (x float64, LstsqInfo).

    Refinement stops when the last correction is below tol * ||x||.  Never a
    wrong x in silence: a rank-deficient A gives status "rank deficient", its rank
    (info.rank) and the minimum-norm solution (numpy.linalg.lstsq's, on the host),
    refinement that stalls or diverges says so in info.status; both warn.
    method: "paper" (the unblocked kernels), "blocked" (Yeralan et al.'s tile kernels)
    or "auto".
    """
    A = check.array(A, "A", 2, np.float64, any_range=True)
    b = check.array(b, "b", 1, np.float64, any_range=True)
    m, n = A.shape
    if m < n:
        raise ValueError(f"A is {m} x {n} with fewer rows than columns: the least-squares solution is not "
                         "unique; lstsq needs m >= n (full column rank)")
    if b.shape[0] != m:
        raise ValueError(f"b has length {b.shape[0]} but A has {m} rows")
    tol = check.real(tol, "tol", 0.0, 1.0)
    max_iter = check.integer(max_iter, "max_iter", 0)
    check.choice(method, "method", METHODS)
    ctx = resolve(check.context(ctx))
    impl = implementation(choose(method, ctx))
    watch = Stopwatch(ctx)
    # A 2^-ea x' = b 2^-eb, x = x' 2^(eb - ea): exact, and float32 holds A's and the residuals' sizes
    ea, eb = _exponent(A), _exponent(b)
    x, info = _lstsq_scaled(impl, np.ldexp(A, -ea), np.ldexp(b, -eb), tol, max_iter, ctx, watch)
    x = np.ldexp(x, eb - ea)
    if not np.isfinite(x).all():
        raise OverflowError(f"the least-squares solution's entries pass float64's range (the scaled solution "
                            f"times 2^{eb - ea}): scale A up or b down")
    if not info.converged and max_iter > 0 and info.status != "rank deficient":
        warnings.warn(info.message, RuntimeWarning, stacklevel=2)
    return x, info


def _exponent(X: np.ndarray) -> int:
    """e with max |X| 2^-e in [0.5, 1) (0 for a zero X)."""
    top = float(np.abs(X).max(initial=0.0))
    return int(np.frexp(top)[1]) if top > 0 else 0


def _lstsq_scaled(impl, A, b, tol, max_iter, ctx, watch):
    m, n = A.shape
    with ctx.pool.scope():
        fac, msg = qr_factor(impl, A.astype(np.float32), ctx, watch, stacklevel=3)
        if fac is None:
            # the GPU's QR has no column pivoting to find a basis: the minimum-norm solution
            # comes from the host's float64 SVD, as numpy.linalg.lstsq gives it, with the rank
            x, _, rank, _ = np.linalg.lstsq(A, b, rcond=None)
            return x, LstsqInfo("rank deficient", times=watch.as_dict(), rank=int(rank),
                                message=msg + f"; x is the minimum-norm solution (rank {rank}), computed on the "
                                              "host by numpy.linalg.lstsq's SVD")
        try:
            x, _, info = refine(fac, A, b, tol=tol, max_iter=max_iter, watch=watch)
            info.rank = n
        finally:
            fac.release()
    if max_iter == 0:
        info.status = "not refined"
        info.message = "max_iter=0: the float32 QR's solution, not refined (float32 accuracy)"
    elif not info.converged:
        info.message = (f"refinement stopped ({info.status}) after {info.iterations} steps with a last "
                        f"correction of {info.corrections[-1] if info.corrections else float('nan'):.3g} ||x|| "
                        f"> tol = {tol:g}")
    return x, info
