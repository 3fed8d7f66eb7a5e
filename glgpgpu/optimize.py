"""scipy.optimize.linprog's call and result for the GPU interior-point solver.

    from glgpgpu import optimize
    res = optimize.linprog(c, A_ub=A, b_ub=b, bounds=(0, None))
    res.x, res.fun, res.status, res.slack, res.nit

The arguments take scipy's forms (dense or sparse matrices, scalar or column
right-hand sides, bounds as a pair or a pair per variable with None or +-inf for no
bound); the result is a scipy `OptimizeResult` with scipy's integer statuses (0 optimal,
1 iteration limit, 2 infeasible, 3 unbounded, 4 numerical trouble).  `method` accepts
scipy's interior-point names ("highs", "highs-ipm", "interior-point") and "glgpgpu" --
all run the GPU interior-point method; simplex methods are refused by name.  `options`:
tol, maxiter, precision, device, gpu_method ("auto" | "paper" | "blocked" | "compute");
disp / presolve are accepted and ignored; anything else warns, as scipy does.
Not provided: dual values (`ineqlin.marginals` etc. are None) and integrality.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import OptimizeResult, OptimizeWarning

from .solvers.lp import linprog as _linprog

STATUS = {"optimal": 0, "iteration limit": 1, "infeasible": 2, "unbounded": 3, "numerical trouble": 4}
MESSAGES = {0: "Optimization terminated successfully.", 1: "The iteration limit was reached.",
            2: "The problem is infeasible.", 3: "The problem is unbounded.",
            4: "Numerical difficulties were encountered."}
METHODS = ("glgpgpu", "highs", "highs-ipm", "interior-point")
OPTIONS = {"tol", "maxiter", "precision", "device", "gpu_method", "disp", "presolve"}


def _dense(A, name):
    if A is None:
        return None
    if hasattr(A, "toarray"):                       # scipy.sparse: densified (the GPU forms A D A^T dense)
        A = A.toarray()
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {A.shape}")
    return A


def _rhs(b, rows, name):
    if b is None:
        return None
    b = np.asarray(b, dtype=np.float64)
    if b.ndim == 0:
        return np.full(rows, float(b))
    b = b.reshape(-1) if b.ndim == 2 and 1 in b.shape else b
    if b.ndim != 1 or b.shape[0] != rows:
        raise ValueError(f"{name} must have one entry per row ({rows}), got shape {b.shape}")
    return b


def linprog(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(0, None), method="glgpgpu", callback=None,
            options=None, x0=None, integrality=None):
    """Minimise c^T x s.t. A_ub x <= b_ub, A_eq x == b_eq, bounds -- scipy's signature,
    the GPU's interior-point method (float64 iterates, float32 factorizations on the GPU)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS} (each runs the GPU interior-point method), "
                         f"not {method!r}; simplex methods are scipy's own")
    if integrality is not None and np.any(np.asarray(integrality)):
        raise NotImplementedError("integrality: glgpgpu solves continuous LPs only (use scipy's HiGHS)")
    opts = dict(options or {})
    unknown = set(opts) - OPTIONS
    if unknown:
        warnings.warn(f"Unrecognized options detected: {sorted(unknown)}. These will be ignored", OptimizeWarning,
                      stacklevel=2)
    c = np.asarray(c, dtype=np.float64).reshape(-1)
    A_ub, A_eq = _dense(A_ub, "A_ub"), _dense(A_eq, "A_eq")
    b_ub = _rhs(b_ub, A_ub.shape[0] if A_ub is not None else np.size(b_ub), "b_ub")
    b_eq = _rhs(b_eq, A_eq.shape[0] if A_eq is not None else np.size(b_eq), "b_eq")
    if bounds is not None and np.ndim(bounds) == 2:
        bounds = [tuple(None if v is None else float(v) for v in pair) for pair in np.asarray(bounds, dtype=object)]
    cb = None
    if callback is not None:
        if not callable(callback):
            raise TypeError("callback must be callable")

        def cb(entry):
            callback(OptimizeResult(fun=entry["pobj"], nit=entry["iter"], status=0, success=False,
                                    message="", x=None))
    res = _linprog(c, A_ub, b_ub, A_eq, b_eq, bounds, tol=opts.get("tol"), max_iter=opts.get("maxiter"),
                   precision=opts.get("precision", "mixed"), device=opts.get("device", "gpu"),
                   method=opts.get("gpu_method", "auto"), callback=cb)
    status = STATUS.get(res.status, 4)
    solved = status in (0, 1, 4)
    x = res.x if solved else None
    slack = b_ub - A_ub @ x if (x is not None and A_ub is not None) else np.zeros(0)
    con = b_eq - A_eq @ x if (x is not None and A_eq is not None) else np.zeros(0)
    message = MESSAGES[status] + (f" ({res.message})" if res.message else "")
    return OptimizeResult(
        x=x, fun=float(res.objective) if solved else None, slack=slack, con=con, success=status == 0,
        status=status, message=message, nit=int(res.iterations),
        ineqlin=OptimizeResult(residual=slack, marginals=None), eqlin=OptimizeResult(residual=con, marginals=None),
        lower=OptimizeResult(residual=None, marginals=None), upper=OptimizeResult(residual=None, marginals=None),
        glgpgpu=res)


__all__ = ["linprog"]
