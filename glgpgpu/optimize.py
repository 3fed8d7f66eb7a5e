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
tol, maxiter, presolve (default True: empty and singleton rows checked and removed first, so
infeasibility shows with nit 0, as scipy's tests expect), crossover (default True, as scipy's
highs-ipm: the optimum moved to a vertex by HiGHS's crossover; False keeps the interior point's
x, inside the optimal face where the optimum is not unique), precision, device, gpu_method ("auto" | "paper" | "blocked" |
"compute"); disp is accepted and ignored; an unknown key, or a value out of range,
warns and is ignored, as scipy does.

Dual values as scipy's: `ineqlin.marginals` (<= 0), `eqlin.marginals`,
`lower.marginals` (>= 0) and `upper.marginals` (<= 0) are the derivatives of `fun`
with respect to b_ub, b_eq and the bounds, from the vertex's duals after crossover (else the
interior point's float64 multipliers; None for the paper's all-float32 solver, which has no
crossover either).  `crossover_nit`: the basis made and the pushes to it (0: no crossover).
Differences from HiGHS: `integrality` warns and solves the
relaxation (as scipy's non-HiGHS methods do); `callback` is called once per
interior-point iteration with `fun` and `nit`.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import OptimizeResult, OptimizeWarning

from .solvers.lp import solve_general
from .solvers.lp.problem import from_linprog

STATUS = {"optimal": 0, "iteration limit": 1, "infeasible": 2, "unbounded": 3, "numerical trouble": 4}
MESSAGES = {0: "Optimization terminated successfully.", 1: "The iteration limit was reached.",
            2: "The problem is infeasible.", 3: "The problem is unbounded.",
            4: "Numerical difficulties were encountered."}
METHODS = ("glgpgpu", "highs", "highs-ipm", "interior-point")
OPTIONS = {"tol", "maxiter", "precision", "device", "gpu_method", "disp", "presolve", "crossover"}
# the value each option must have; otherwise scipy's behaviour: warn and use the default
VALID = {"tol": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1,
         "maxiter": lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1,
         "disp": lambda v: isinstance(v, (bool, np.bool_)),
         "presolve": lambda v: isinstance(v, (bool, np.bool_)),
         "crossover": lambda v: isinstance(v, (bool, np.bool_))}


def _options(options) -> dict:
    opts = dict(options or {})
    unknown = set(opts) - OPTIONS
    if unknown:
        warnings.warn(f"Unrecognized options detected: {sorted(unknown)}. These will be ignored", OptimizeWarning,
                      stacklevel=3)
    for key, ok in VALID.items():
        if key in opts and not ok(opts[key]):
            warnings.warn(f"Option {key}={opts[key]!r} is not valid; the default is used", OptimizeWarning,
                          stacklevel=3)
            del opts[key]
    return {k: v for k, v in opts.items() if k in OPTIONS}


def _numbers(v, name):
    """float64 array of v; scipy's TypeError for what is not numbers."""
    try:
        return np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"Invalid input for linprog: {name} must be numbers (an array, a list or a scalar of "
                        f"real values), got {v!r}") from None


def _matrix(A, name):
    if A is None:
        return None
    if hasattr(A, "toarray"):                       # scipy.sparse: kept sparse (from_linprog checks it)
        if A.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got shape {A.shape}")
        return A
    A = _numbers(A, name)
    if A.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {A.shape}")
    return A


def _rhs(b, rows, name):
    if b is None:
        return None
    b = _numbers(b, name)
    if b.ndim == 0:
        return np.full(rows, float(b))
    b = b.reshape(-1) if b.ndim == 2 and 1 in b.shape else b
    if b.ndim != 1 or b.shape[0] != rows:
        raise ValueError(f"{name} must have one entry per row ({rows}), got shape {b.shape}")
    return b


def _bounds(bounds, n):
    """scipy's forms of bounds as a list of (low, high) pairs of floats or None: one pair
    for every variable, a pair per variable, or a one-pair list (broadcast, as scipy does);
    anything else is named (an entry that is not a pair, a ragged array)."""
    if bounds is None or isinstance(bounds, (dict, str)):
        return bounds                                   # from_linprog names the wrong types
    try:
        arr = np.asarray(bounds, dtype=object)
    except ValueError:
        arr = None
    one_pair = arr is not None and arr.ndim == 1 and not any(np.iterable(v) and not isinstance(v, str) for v in arr)
    if not one_pair and (arr is None or arr.ndim != 2 or arr.shape[1] != 2):
        pairs = list(bounds) if np.iterable(bounds) else [bounds]
        for j, pair in enumerate(pairs):
            if not (np.iterable(pair) and len(pair) == 2):
                raise ValueError(f"bounds[{j}] must be a pair (low, high) with None for no bound, got {pair!r}; "
                                 f"bounds is one pair for every variable or one pair per variable")
        raise ValueError(f"bounds must be a (low, high) pair or a sequence of one pair per variable, got {bounds!r}")
    if one_pair:
        return bounds                                   # from_linprog names a pair of the wrong length
    pairs = [tuple(None if v is None else v for v in pair) for pair in arr]
    return pairs * n if len(pairs) == 1 else pairs     # [(lo, hi)] for every variable, as scipy broadcasts


def linprog(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(0, None), method="glgpgpu", callback=None,
            options=None, x0=None, integrality=None):
    """Minimise c^T x s.t. A_ub x <= b_ub, A_eq x == b_eq, bounds -- scipy's signature,
    the GPU's interior-point method (float64 iterates, float32 factorizations on the GPU)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS} (each runs the GPU interior-point method), "
                         f"not {method!r}; simplex methods are scipy's own")
    if integrality is not None and np.size(integrality) not in (1, np.size(c)):
        raise ValueError(f"integrality must have one entry per variable ({np.size(c)}) or be a scalar, "
                         f"got {np.size(integrality)} entries")
    if integrality is not None and np.any(np.asarray(integrality)):
        warnings.warn("glgpgpu solves continuous LPs only: the integrality constraints are ignored and the "
                      "relaxation is solved (use scipy's method='highs' for integer variables)", OptimizeWarning,
                      stacklevel=2)
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"options must be a dict of solver options (e.g. {{'tol': 1e-8, 'maxiter': 200}}), "
                        f"got {type(options).__name__} {options!r}")
    opts = _options(options)
    c = _numbers(c, "c").reshape(-1)
    A_ub, A_eq = _matrix(A_ub, "A_ub"), _matrix(A_eq, "A_eq")
    b_ub = _rhs(b_ub, A_ub.shape[0] if A_ub is not None else np.size(b_ub), "b_ub")
    b_eq = _rhs(b_eq, A_eq.shape[0] if A_eq is not None else np.size(b_eq), "b_eq")
    bounds = _bounds(bounds, c.size)
    cb = None
    if callback is not None:
        if not callable(callback):
            raise TypeError("callback must be callable")

        def cb(entry):
            callback(OptimizeResult(fun=entry["pobj"], nit=entry["iter"], status=0, success=False,
                                    message="", x=None))
    lp = from_linprog(c, A_ub, b_ub, A_eq, b_eq, bounds)
    res = solve_general(lp, tol=opts.get("tol"), max_iter=opts.get("maxiter"), precision=opts.get("precision", "mixed"),
                        device=opts.get("device", "auto"), method=opts.get("gpu_method", "auto"), callback=cb,
                        presolve=bool(opts.get("presolve", True)),
                        crossover=bool(opts.get("crossover", opts.get("precision", "mixed") == "mixed")))
    status = STATUS.get(res.status, 4)
    solved = status in (0, 1, 4)
    x = res.x if solved else None
    if x is None:                   # infeasible or unbounded: scipy's HiGHS result has no point, only Nones
        slack = con = None
    else:
        slack = b_ub - A_ub @ x if A_ub is not None else np.zeros(0)
        con = b_eq - A_eq @ x if A_eq is not None else np.zeros(0)
    message = MESSAGES[status] + (f" ({res.message})" if res.message else "")
    out = OptimizeResult(x=x, fun=float(res.objective) if solved else None, slack=slack, con=con,
                         success=status == 0, status=status, message=message, nit=int(res.iterations),
                         crossover_nit=int(res.crossover_iterations), glgpgpu=res)
    if solved:
        out.update(_marginals(res, lp, x, slack, con))
    else:
        out.update({key: OptimizeResult(residual=None, marginals=None)
                    for key in ("ineqlin", "eqlin", "lower", "upper")})
    return out


def _marginals(res, lp, x, slack, con) -> dict:
    """scipy's ineqlin / eqlin / lower / upper: residuals, and the multipliers split
    from the solver's row duals y (A_ub's rows first) and reduced costs c - A^T y (a
    positive reduced cost is the lower bound's, a negative one the upper bound's)."""
    k, y, d = len(slack), res.y, res.reduced_costs
    have = y is not None
    return dict(ineqlin=OptimizeResult(residual=slack, marginals=y[:k] if have else None),
                eqlin=OptimizeResult(residual=con, marginals=y[k:] if have else None),
                lower=OptimizeResult(residual=x - lp.col_lo,
                                     marginals=np.where((d > 0) & np.isfinite(lp.col_lo), d, 0.0) if have else None),
                upper=OptimizeResult(residual=lp.col_up - x,
                                     marginals=np.where((d < 0) & np.isfinite(lp.col_up), d, 0.0) if have else None))


__all__ = ["linprog"]
