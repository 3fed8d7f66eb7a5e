"""The public LP entry points: input -> formulation -> presolve -> interior point
-> the answer in the original variables.

precision="mixed" (default, tol 1e-8): float64 Mehrotra with implicit bounds
  (mehrotra.py), normal equations formed and factored on the GPU in float32 and
  solved to float64 accuracy (normal.py).
precision="single": the 2006 paper's solver, every vector in a float32 texture
  (ipm.py + backends.py, standard form with bound rows); Table 3 uses it.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ... import validate as check
from ...dispatch import METHODS, choose, implementation
from ...gl import Stopwatch, resolve
from . import bounded, ipm, mehrotra, presolve
from .normal import MixedNormal
from .problem import GeneralLP, from_linprog, from_mps, max_violation, objective, to_standard_form

CHOLESKY = ("outer", "inner", "triad")
DEVICES = ("gpu", "cpu64", "cpu32")
PRECISIONS = ("mixed", "single")
DEFAULT_TOL = {"mixed": 1e-8, "single": 1e-5}
DEFAULT_ITER = {"mixed": 200, "single": 100}


@dataclass
class LPResult:
    status: str                  # optimal | iteration limit | infeasible | unbounded | numerical trouble
    objective: float             # +inf infeasible, -inf unbounded; else c^T x of the x returned
    x: np.ndarray
    iterations: int
    log: list = field(default_factory=list)
    times: dict = field(default_factory=dict)
    message: str = ""
    size: tuple = ()             # (rows, cols) the interior-point method iterated on
    violation: float = float("nan")   # largest bound / constraint violation of x (absolute)
    primal_infeasibility: float = float("nan")   # relative, as the termination test measures it
    dual_infeasibility: float = float("nan")
    gap: float = float("nan")
    precision: str = "mixed"
    stats: dict = field(default_factory=dict)    # factorizations, refinement steps, PCG iterations, ...

    @property
    def success(self) -> bool:
        return self.status == "optimal"

    def __repr__(self):
        return (f"LPResult(status={self.status!r}, objective={self.objective:.10g}, iterations={self.iterations}, "
                f"size={self.size})")


def _verdict(status, n, message, times=None, size=()):
    value = math.inf if status == "infeasible" else -math.inf
    return LPResult(status, value, np.full(n, np.nan), 0, message=message, times=times or {}, size=size)


def solve_general(lp: GeneralLP, *, tol: float | None = None, precision: str = "mixed", cholesky: str = "outer",
                  max_iter: int | None = None, device: str = "gpu", packed: bool = False, method: str = "auto",
                  ctx=None, callback=None) -> LPResult:
    check.choice(precision, "precision", PRECISIONS)
    check.choice(cholesky, "cholesky", CHOLESKY)
    check.choice(device, "device", DEVICES)
    check.choice(method, "method", METHODS)
    tol = check.real(DEFAULT_TOL[precision] if tol is None else tol, "tol", 0.0, 1.0)
    max_iter = check.integer(DEFAULT_ITER[precision] if max_iter is None else max_iter, "max_iter", 1)
    check.flag(packed, "packed")
    check.context(ctx)
    run = _solve_mixed if precision == "mixed" else _solve_single
    return run(lp, tol=tol, cholesky=cholesky, max_iter=max_iter, device=device, packed=packed, method=method,
               ctx=ctx, callback=callback)


def _solve_mixed(lp, *, tol, cholesky, max_iter, device, packed, method, ctx, callback) -> LPResult:
    t_all = time.perf_counter()
    n_orig = lp.shape[1]
    p = bounded.presolve(bounded.from_general(lp))
    if p.status:
        return _verdict(p.status, n_orig, p.message, {"presolve": time.perf_counter() - t_all}, p.A.shape)
    if p.A.shape[0] == 0 or p.A.shape[1] == 0:
        x = p.recover(np.where(p.c < 0, p.u, 0.0) if p.A.shape[1] else np.zeros(0))
        return LPResult("optimal", objective(lp, x), x, 0, size=p.A.shape, message="solved by presolve",
                        violation=max_violation(lp, x), primal_infeasibility=0.0, dual_infeasibility=0.0, gap=0.0)
    p = bounded.scale(p)
    t_pre = time.perf_counter() - t_all
    impl = None
    if device == "gpu":
        ctx = resolve(ctx)
        impl = implementation(choose(method, ctx, packed=packed, variant=cholesky))
    watch = Stopwatch(ctx if device == "gpu" else None)
    normal = None
    try:
        with (ctx.pool.scope() if device == "gpu" else _nothing()):
            normal = MixedNormal(p.A, impl=impl, packed=packed, variant=cholesky, ctx=ctx, watch=watch,
                                 device=device)
            out = mehrotra.solve(p, normal, tol=tol, max_iter=max_iter, callback=callback)
    finally:
        if normal is not None:
            normal.release()
    x = p.recover(out.x)
    times = {"presolve": t_pre, **watch.as_dict()}
    total = time.perf_counter() - t_all
    times["other"] = max(0.0, total - sum(times.values()))
    times["total"] = total
    stats = dict(normal.stats)
    if out.status in ("infeasible", "unbounded"):
        res = _verdict(out.status, n_orig, out.message, times, p.A.shape)
        res.iterations, res.log, res.stats = out.iterations, out.log, stats
        return res
    return LPResult(out.status, objective(lp, x), x, out.iterations, out.log, times, out.message, p.A.shape,
                    max_violation(lp, x), out.primal_infeasibility, out.dual_infeasibility, out.gap, "mixed", stats)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _solve_single(lp, *, tol, cholesky, max_iter, device, packed, method, ctx, callback) -> LPResult:
    """The 2006 paper's float32 solver (standard form, every vector in a texture)."""
    times = {}
    t0 = time.perf_counter()
    sf = to_standard_form(lp)
    n_orig = lp.shape[1]
    if sf.infeasible:
        return _verdict("infeasible", n_orig, sf.infeasible)
    red = presolve.reduce(sf.A, sf.b, sf.c)
    times["presolve"] = time.perf_counter() - t0
    if red.status:
        return _verdict(red.status, n_orig, red.message, times, sf.A.shape)
    if red.A.shape[0] == 0 or red.A.shape[1] == 0:
        # nothing left to iterate on: every remaining variable sits at 0 (presolve
        # already reported a negative cost on a free-growing variable as unbounded)
        x = sf.recover(np.zeros(sf.A.shape[1]))
        return LPResult("optimal", objective(lp, x), x, 0, times=times, size=red.A.shape,
                        message="solved by presolve", violation=max_violation(lp, x), precision="single")
    t0 = time.perf_counter()
    if device == "gpu":
        from .backends import GPUBackend

        be = GPUBackend(red.A, ctx=ctx, cholesky=cholesky, packed=packed, method=method)
    else:
        from .backends import NumpyBackend

        be = NumpyBackend(red.A, np.float64 if device == "cpu64" else np.float32)
    try:
        res = ipm.solve(be, red.b, red.c, tol=tol, max_iter=max_iter, callback=callback)
    finally:
        be.release()
    times["iterations"] = time.perf_counter() - t0
    z = red.unscale_x(res.x, sf.A.shape[1])
    x = sf.recover(z)
    if res.status in ("infeasible", "unbounded"):
        out = _verdict(res.status, n_orig, res.message, times, red.A.shape)
        out.iterations, out.log, out.precision = res.iterations, res.log, "single"
        return out
    # iteration limit / numerical trouble: the best iterate, with its objective (never NaN)
    return LPResult(res.status, objective(lp, x), x, res.iterations, res.log, times, res.message, red.A.shape,
                    max_violation(lp, x) if np.all(np.isfinite(x)) else float("nan"), precision="single")


def linprog(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=None, *, tol: float | None = None,
            precision: str = "mixed", cholesky: str = "outer", max_iter: int | None = None, device: str = "gpu",
            packed: bool = False, method: str = "auto", ctx=None, callback=None) -> LPResult:
    """Minimise c^T x s.t. A_ub x <= b_ub, A_eq x = b_eq, bounds (default x >= 0),
    like scipy.optimize.linprog, by an interior-point method on the GPU.

    precision="mixed" (default): float64 iterates, float32 GPU factorizations,
    tol 1e-8 (relative primal/dual infeasibility and gap).  precision="single":
    the 2006 paper's all-float32 solver, tol 1e-5 (float32 rarely reaches 1e-6).
    method: "paper" (Algorithms 3 and 5 with `cholesky` inner/outer/triad),
    "blocked", or "auto" (blocked unless a paper-only option is asked for)."""
    lp = from_linprog(c, A_ub, b_ub, A_eq, b_eq, bounds)
    return solve_general(lp, tol=tol, precision=precision, cholesky=cholesky, max_iter=max_iter, device=device,
                         packed=packed, method=method, ctx=ctx, callback=callback)


def solve_mps(path, *, tol: float | None = None, precision: str = "mixed", cholesky: str = "outer",
              max_iter: int | None = None, device: str = "gpu", packed: bool = False, method: str = "auto",
              ctx=None, callback=None) -> LPResult:
    """Solve an MPS file (plain or .gz, read by HiGHS) by the interior-point method."""
    return solve_general(from_mps(str(path)), tol=tol, precision=precision, cholesky=cholesky, max_iter=max_iter,
                         device=device, packed=packed, method=method, ctx=ctx, callback=callback)
