"""The public LP entry points: input -> formulation -> presolve -> interior point
-> the answer in the original variables.

precision="mixed" (default, tol 1e-8): mixed/ -- float64 Mehrotra with implicit
  bounds, normal equations formed and factored on the GPU in float32 and solved to
  float64 accuracy.
precision="single": single/ -- the 2006 paper's solver, every vector in a float32
  texture (standard form with bound rows); Table 3 uses it.
"""
from __future__ import annotations

import numpy as np

from ... import validate as check
from ...dispatch import METHODS
from . import mixed, single
from .problem import GeneralLP, from_linprog, from_mps
from .result import LPResult, verdict

CHOLESKY = ("outer", "inner", "triad")
DEVICES = ("gpu", "cpu64", "cpu32")
PRECISIONS = ("mixed", "single")
DEFAULT_TOL = {"mixed": 1e-8, "single": 1e-5}
DEFAULT_ITER = {"mixed": 200, "single": 100}


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
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable (it gets one dict per iteration), got {type(callback).__name__}")
    empty = (lp.col_lo > lp.col_up) | (lp.col_lo == np.inf) | (lp.col_up == -np.inf)
    if empty.any():                   # a variable no value satisfies: infeasible before any iteration
        j = int(np.flatnonzero(empty)[0])
        return verdict("infeasible", lp.shape[1],
                       f"the bounds of variable {j}, ({lp.col_lo[j]:g}, {lp.col_up[j]:g}), admit no value")
    run = mixed.solve if precision == "mixed" else single.solve
    return run(lp, tol=tol, cholesky=cholesky, max_iter=max_iter, device=device, packed=packed, method=method,
               ctx=ctx, callback=callback)


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
    if not isinstance(path, (str, bytes)) and not hasattr(path, "__fspath__"):
        raise TypeError(f"path must be a file name, got {type(path).__name__} {path!r}")
    return solve_general(from_mps(str(path)), tol=tol, precision=precision, cholesky=cholesky, max_iter=max_iter,
                         device=device, packed=packed, method=method, ctx=ctx, callback=callback)
