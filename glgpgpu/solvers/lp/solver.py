"""The public LP entry points: input -> formulation -> presolve -> interior point
-> the answer in the original variables.

precision="mixed" (default, tol 1e-8): mixed/ -- float64 Mehrotra with implicit
  bounds, normal equations formed and factored on the GPU in float32 and solved to
  float64 accuracy.
precision="single": single/ -- the 2006 paper's solver, every vector in a float32
  texture (standard form with bound rows); Table 3 uses it.
"""
from __future__ import annotations

import os

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ... import validate as check
from ...dispatch import METHODS
from . import mixed, single
from . import presolve as rows_presolve
from .crossover import crossover as to_vertex
from .problem import GeneralLP, from_linprog, from_mps, max_violation, objective, row_magnitudes
from .result import LPResult, verdict

CHOLESKY = ("outer", "inner", "triad")
DEVICES = ("auto", "gpu", "cpu64", "cpu32")
PRECISIONS = ("mixed", "single")
DEFAULT_TOL = {"mixed": 1e-8, "single": 1e-5}
DEFAULT_ITER = {"mixed": 200, "single": 100}


def solve_general(lp: GeneralLP, *, tol: float | None = None, precision: str = "mixed", cholesky: str = "outer",
                  max_iter: int | None = None, device: str = "auto", packed: bool = False, method: str = "auto",
                  ctx=None, callback=None, presolve: bool = False, crossover: bool = False) -> LPResult:
    check.choice(precision, "precision", PRECISIONS)
    check.choice(cholesky, "cholesky", CHOLESKY)
    check.choice(device, "device", DEVICES)
    check.choice(method, "method", METHODS)
    tol = check.real(DEFAULT_TOL[precision] if tol is None else tol, "tol", 0.0, 1.0)
    max_iter = check.integer(DEFAULT_ITER[precision] if max_iter is None else max_iter, "max_iter", 1)
    check.flag(packed, "packed")
    check.flag(presolve, "presolve")
    check.flag(crossover, "crossover")
    check.context(ctx)
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable (it gets one dict per iteration), got {type(callback).__name__}")
    empty = (lp.col_lo > lp.col_up) | (lp.col_lo == np.inf) | (lp.col_up == -np.inf)
    if empty.any():                   # a variable no value satisfies: infeasible before any iteration
        j = int(np.flatnonzero(empty)[0])
        return verdict("infeasible", lp.shape[1],
                       f"the bounds of variable {j}, ({lp.col_lo[j]:g}, {lp.col_up[j]:g}), admit no value")
    no_row = (lp.row_lo > lp.row_up) | (lp.row_lo == np.inf) | (lp.row_up == -np.inf)
    if no_row.any():                  # e.g. A_ub x <= -1e300 (a bound beyond 1e20 is infinite)
        i = int(np.flatnonzero(no_row)[0])
        return verdict("infeasible", lp.shape[1],
                       f"the bounds of row {i}, ({lp.row_lo[i]:g}, {lp.row_up[i]:g}), admit no value")
    opts = dict(tol=tol, cholesky=cholesky, max_iter=max_iter, device=device, packed=packed, method=method, ctx=ctx)
    if precision == "single":                       # the 2006 paper's solver, as it was: no row presolve, no duals
        if crossover:
            raise ValueError("crossover starts from the interior point's duals, which precision='single' (the 2006 "
                             "solver) does not compute: use precision='mixed'")
        _within_float32(lp)
        return single.solve(lp, callback=callback, **opts)
    given = lp
    lp, rows = _rows_near_one(lp)
    t = rows_presolve.tighten(lp) if presolve else None
    if t is not None and t.status:
        return verdict(t.status, lp.shape[1], t.message)
    res = mixed.solve(t.lp if t else lp, callback=callback, **opts)
    if res.status in ("unbounded", "numerical trouble"):
        res = _unbounded_or_infeasible(t.lp if t else lp, res, opts)
    if res.y is not None:
        y = (rows_presolve.row_duals(t, lp, res.y) if t else res.y) * rows       # the given rows' multipliers
        res.y, res.reduced_costs = (_held_by_bounds(given, y) if res.status == "optimal"
                                    else (y, given.c - given.A.T @ y))
    if crossover and res.status == "optimal":
        _to_vertex(given, res)
    return res


def _to_vertex(lp: GeneralLP, res: LPResult) -> None:
    """res moved to the basic optimal solution HiGHS's crossover reaches from it (crossover.py):
    x, y, the reduced costs, the objective and the violation; where crossover does not end
    optimal, res keeps the interior point's answer and its message says so."""
    vertex = to_vertex(lp, res.x, res.y)
    if vertex is None:
        res.message = (res.message + "; " if res.message else "") + \
            "crossover did not reach a basic optimal solution: the interior point's x and duals"
        return
    res.x, res.y, res.reduced_costs = vertex.x, vertex.y, vertex.reduced_costs
    res.objective, res.violation = objective(lp, vertex.x), max_violation(lp, vertex.x)
    res.crossover_iterations = vertex.iterations


#: rows whose largest coefficient lies outside this range are brought to [1, 2) first
ROW_RANGE = (2.0 ** -10, 2.0 ** 10)


def _rows_near_one(lp: GeneralLP):
    """(lp with each row far from 1 (ROW_RANGE) and its bounds scaled by the power of two
    that brings its largest coefficient to [1, 2), those factors): exact.  The slacks'
    unit coefficients otherwise meet rows of 1e-15, and the geometric scaling settles
    where the interior point stalls; rows near 1 are left as given (NETLIB's iterations
    are the geometric scaling's).  Multipliers come back as y = D y'."""
    top = row_magnitudes(lp.A)
    far = (top > 0) & ((top < ROW_RANGE[0]) | (top > ROW_RANGE[1]))
    d = np.where(far, np.exp2(-np.floor(np.log2(np.where(far, top, 1.0)))), 1.0)
    if np.all(d == 1.0):
        return lp, d
    scaled = sp.diags(d) @ lp.A if sp.issparse(lp.A) else lp.A * d[:, None]
    return GeneralLP(lp.c, scaled, lp.row_lo * d, lp.row_up * d, lp.col_lo, lp.col_up, lp.offset, lp.name), d


def _within_float32(lp: GeneralLP):
    """The 2006 solver keeps A, b and c in float32 textures unscaled: refuse what float32 cannot hold."""
    F32_MAX = float(np.finfo(np.float32).max)
    for name, v in (("A", lp.A.data if sp.issparse(lp.A) else lp.A), ("c", lp.c),
                    ("the row bounds", np.concatenate([lp.row_lo, lp.row_up]))):
        v = np.abs(np.asarray(v, dtype=np.float64))
        if v[np.isfinite(v)].max(initial=0.0) > F32_MAX:
            raise ValueError(f"{name} holds values beyond float32's range (|x| > {F32_MAX:.3g}); precision='single' "
                             f"solves unscaled in float32: use precision='mixed' (it scales in float64) or scale "
                             f"the problem")


def _held_by_bounds(lp: GeneralLP, y: np.ndarray, rounds: int = 3):
    """(y, c - A^T y) with every reduced cost held by a bound that exists: the
    interior point leaves reduced costs of about tol on free variables (and of the
    wrong sign at a missing bound); the least change of y (minimum norm, float64) that
    zeroes them makes c - A^T y equal the bound multipliers exactly."""
    A = lp.A
    if min(A.shape) == 0:
        return y, lp.c.copy()
    rows = np.flatnonzero(np.isfinite(lp.row_lo) | np.isfinite(lp.row_up))
    R = sp.csr_matrix(A)[rows]                        # the bounded rows, sparse (A dense or not)
    for _ in range(rounds):
        d = lp.c - A.T @ y
        loose = ((d > 0) & ~np.isfinite(lp.col_lo)) | ((d < 0) & ~np.isfinite(lp.col_up))
        if not loose.any() or rows.size == 0:
            break
        # only the rows the loose columns touch: the minimum-norm change is zero on the others
        # (it lies in the range of the block), and dfl001's dense block of all rows cost 1.8 s
        block = R[:, np.flatnonzero(loose)]
        touched = np.flatnonzero(np.diff(block.indptr))
        dy = _least_change(block[touched], d[loose])
        y = y.copy()
        y[rows[touched]] += dy
    return y, lp.c - A.T @ y


def _least_change(B, r: np.ndarray, steps: int = 6) -> np.ndarray:
    """The minimum-norm dy with B^T dy = r (B sparse, rows x loose columns; least squares if
    there is none).  Any dy = B w that meets r is the minimum-norm one: w from the Cholesky
    factor of G = B^T B, refined while B^T dy misses r by more than 1e-12 of it (G squares B's
    condition: pilot87's 5e6 takes three steps).  LAPACK's dense least squares where G is not
    positive definite or the steps do not get there (pilot87: three of those took 0.56 s on
    the H100's host)."""
    if B.shape[1] <= B.shape[0]:
        try:
            c = sla.cho_factor((B.T @ B).toarray(), lower=True, check_finite=False)
            dy, goal = np.zeros(B.shape[0]), 1e-12 * np.linalg.norm(r)
            e = r
            for _ in range(steps):
                dy = dy + B @ sla.cho_solve(c, e, check_finite=False)
                e = r - B.T @ dy
                if np.linalg.norm(e) <= goal:
                    return dy
        except np.linalg.LinAlgError:
            pass
    return np.linalg.lstsq(B.toarray().T, r, rcond=None)[0]


def _unbounded_or_infeasible(lp: GeneralLP, res: LPResult, opts) -> LPResult:
    """A ray along which c^T x falls proves unboundedness only if some x is feasible,
    and an interior point that stalls ("numerical trouble") may be facing an empty set.
    The phase-1 problem decides: the least total violation of the rows, which is always
    feasible and bounded (the iterates of an infeasible problem can diverge along a ray
    before the Farkas ray of infeasibility shows, and with c = 0 they may not settle)."""
    violation, iterations = _least_violation(lp, opts)
    scale = 1.0 + max((float(np.max(np.abs(v[np.isfinite(v)]), initial=0.0)) for v in (lp.row_lo, lp.row_up)))
    if violation is not None and violation > INFEASIBLE_VIOLATION * scale:
        out = verdict("infeasible", lp.shape[1],
                      f"no point meets the rows: their least total violation is {violation:.3g} "
                      f"({res.status}: {res.message})")
        out.iterations = res.iterations + iterations
        return out
    res.stats["feasibility check iterations"] = iterations
    return res


INFEASIBLE_VIOLATION = 1e-6      # phase 1's optimum, relative to the rows' bounds, that proves no feasible point


def _least_violation(lp: GeneralLP, opts):
    """(min sum s, iterations) over row_lo - s <= A x <= row_up + s, s >= 0, the column bounds
    kept; (None, iterations) where that interior point does not finish either."""
    A = sp.csr_matrix(lp.A)
    m, n = A.shape
    up, lo = np.flatnonzero(np.isfinite(lp.row_up)), np.flatnonzero(np.isfinite(lp.row_lo))
    eye = sp.identity(m, format="csr")
    rows = sp.vstack([sp.hstack([A[up], -eye[up]]), sp.hstack([A[lo], eye[lo]])], format="csr")
    inf = np.full(len(up) + len(lo), np.inf)
    phase1 = GeneralLP(np.concatenate([np.zeros(n), np.ones(m)]), rows,
                       np.concatenate([-inf[:len(up)], lp.row_lo[lo]]), np.concatenate([lp.row_up[up], inf[len(up):]]),
                       np.concatenate([lp.col_lo, np.zeros(m)]), np.concatenate([lp.col_up, np.full(m, np.inf)]),
                       0.0, f"{lp.name} phase 1")
    out = mixed.solve(phase1, callback=None, **opts)
    return (float(out.objective) if out.status == "optimal" else None), out.iterations


def linprog(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=None, *, tol: float | None = None,
            precision: str = "mixed", cholesky: str = "outer", max_iter: int | None = None, device: str = "auto",
            packed: bool = False, method: str = "auto", ctx=None, callback=None, presolve: bool = False,
            crossover: bool = False) -> LPResult:
    """Minimise c^T x s.t. A_ub x <= b_ub, A_eq x = b_eq, bounds (default x >= 0),
    like scipy.optimize.linprog, by an interior-point method on the GPU.

    precision="mixed" (default): float64 iterates, float32 GPU factorizations,
    tol 1e-8 (relative primal/dual infeasibility and gap).  precision="single":
    the 2006 paper's all-float32 solver, tol 1e-5 (float32 rarely reaches 1e-6).
    device: "auto" (default) factors on the GPU, except problems whose float64 factor
    takes at most mixed.device.HOST_FLOPS flops: the host's float64 factorization is
    quicker there than a GPU iteration's fixed cost (res.stats["device"] says which,
    "factor_flops" the count); "gpu" always, "cpu64" / "cpu32" the host's float64 /
    float32 reference factors.
    method: "paper" (Algorithms 3 and 5 with `cholesky` inner/outer/triad),
    "blocked", or "auto" (blocked unless a paper-only option is asked for).
    presolve (off by default here, on in glgpgpu.optimize.linprog as in scipy): rows with
    no variable left are checked and dropped, equality rows with one fix it, inequality
    rows with one are checked against its bounds -- infeasibility found before any
    iteration (precision="mixed").  Off, pilot87 meets tol 1e-8 against HiGHS's optimum;
    on, its stopping test passes 1.9e-8 away.  The result's `y` holds one multiplier per row (A_ub's rows,
    then A_eq's) and `reduced_costs` c - A^T y (precision="mixed").
    crossover (off here, on in glgpgpu.optimize.linprog as in scipy's highs-ipm): the optimum
    moved to a vertex -- a basic optimal solution and its duals, exact to rounding -- by
    HiGHS's crossover from the interior point (crossover.py; `crossover_iterations`)."""
    lp = from_linprog(c, A_ub, b_ub, A_eq, b_eq, bounds)
    return solve_general(lp, tol=tol, precision=precision, cholesky=cholesky, max_iter=max_iter, device=device,
                         packed=packed, method=method, ctx=ctx, callback=callback, presolve=presolve,
                         crossover=crossover)


def solve_mps(path, *, tol: float | None = None, precision: str = "mixed", cholesky: str = "outer",
              max_iter: int | None = None, device: str = "auto", packed: bool = False, method: str = "auto",
              ctx=None, callback=None, presolve: bool = False) -> LPResult:
    """Solve an MPS file (plain or .gz, read by HiGHS) by the interior-point method."""
    if not isinstance(path, (str, bytes)) and not hasattr(path, "__fspath__"):
        raise TypeError(f"path must be a file name, got {type(path).__name__} {path!r}")
    path = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    return solve_general(from_mps(path), tol=tol, precision=precision, cholesky=cholesky, max_iter=max_iter,
                         device=device, packed=packed, method=method, ctx=ctx, callback=callback, presolve=presolve)
