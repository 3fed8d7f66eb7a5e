"""The public LP entry points: input -> standard form -> presolve -> Mehrotra on
the chosen backend -> the answer in the original variables."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ... import validate as check
from ...dispatch import METHODS
from . import ipm, presolve
from .problem import GeneralLP, from_linprog, from_mps, max_violation, objective, to_standard_form

CHOLESKY = ("outer", "inner", "triad")
DEVICES = ("gpu", "cpu64", "cpu32")


@dataclass
class LPResult:
    status: str                  # optimal | iteration limit | infeasible | unbounded | numerical trouble
    objective: float
    x: np.ndarray
    iterations: int
    log: list = field(default_factory=list)
    times: dict = field(default_factory=dict)
    message: str = ""
    size: tuple = ()             # (rows, cols) of the standard form the GPU solved
    violation: float = float("nan")   # largest bound / constraint violation of x

    @property
    def success(self) -> bool:
        return self.status == "optimal"

    def __repr__(self):
        return (f"LPResult(status={self.status!r}, objective={self.objective:.10g}, iterations={self.iterations}, "
                f"size={self.size})")


def solve_general(lp: GeneralLP, *, tol: float = 1e-5, cholesky: str = "outer", max_iter: int = 100,
                  device: str = "gpu", packed: bool = False, method: str = "auto", ctx=None,
                  callback=None) -> LPResult:
    check.choice(cholesky, "cholesky", CHOLESKY)
    check.choice(device, "device", DEVICES)
    check.choice(method, "method", METHODS)
    tol = check.real(tol, "tol", 0.0, 1.0)
    max_iter = check.integer(max_iter, "max_iter", 1)
    check.flag(packed, "packed")
    check.context(ctx)
    times = {}
    t0 = time.perf_counter()
    sf = to_standard_form(lp)
    n_orig = lp.shape[1]
    if sf.infeasible:
        return LPResult("infeasible", float("nan"), np.full(n_orig, np.nan), 0, message=sf.infeasible)
    red = presolve.reduce(sf.A, sf.b, sf.c)
    times["presolve"] = time.perf_counter() - t0
    if red.status:
        return LPResult(red.status, float("nan"), np.full(n_orig, np.nan), 0, message=red.message,
                        size=sf.A.shape, times=times)
    if red.A.shape[0] == 0 or red.A.shape[1] == 0:
        # nothing left to iterate on: every remaining variable sits at 0 (presolve
        # already reported a negative cost on a free-growing variable as unbounded)
        x = sf.recover(np.zeros(sf.A.shape[1]))
        return LPResult("optimal", objective(lp, x), x, 0, times=times, size=red.A.shape,
                        message="solved by presolve", violation=max_violation(lp, x))
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
    obj = objective(lp, x) if res.status == "optimal" or res.status == "iteration limit" else float("nan")
    if res.status in ("infeasible", "unbounded", "numerical trouble"):
        x = np.full(n_orig, np.nan) if res.status != "numerical trouble" else x
    return LPResult(res.status, obj, x, res.iterations, res.log, times, res.message, red.A.shape,
                    max_violation(lp, x) if np.all(np.isfinite(x)) else float("nan"))


def linprog(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=None, *, tol: float = 1e-5,
            cholesky: str = "outer", max_iter: int = 100, device: str = "gpu", packed: bool = False,
            method: str = "auto", ctx=None, callback=None) -> LPResult:
    """Minimise c^T x s.t. A_ub x <= b_ub, A_eq x = b_eq, bounds (default x >= 0),
    like scipy.optimize.linprog, with the GPU interior-point method.
    tol is eps of (6.1)-(6.3): float32 reaches about 1e-5 on well-scaled problems.
    method: "paper" (Algorithms 3 and 5 with `cholesky` inner/outer/triad),
    "blocked", or "auto" (blocked unless a paper-only option is asked for)."""
    lp = from_linprog(c, A_ub, b_ub, A_eq, b_eq, bounds)
    return solve_general(lp, tol=tol, cholesky=cholesky, max_iter=max_iter, device=device, packed=packed,
                         method=method, ctx=ctx, callback=callback)


def solve_mps(path, *, tol: float = 1e-5, cholesky: str = "outer", max_iter: int = 100, device: str = "gpu",
              packed: bool = False, method: str = "auto", ctx=None, callback=None) -> LPResult:
    """Solve an MPS file (plain or .gz, read by HiGHS) with the GPU interior-point method."""
    return solve_general(from_mps(str(path)), tol=tol, cholesky=cholesky, max_iter=max_iter, device=device,
                         packed=packed, method=method, ctx=ctx, callback=callback)
