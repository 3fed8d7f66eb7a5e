"""Crossover: from the interior point's optimum to a basic optimal solution (a vertex) and
its duals, as scipy's `highs-ipm` does after its interior point by default.

An interior-point method ends inside the optimal face (where the optimum is not unique, the
face's analytic centre) and to its tolerance (1e-8); a vertex is exact to rounding, unique
where the face is a point, and what a caller who differentiates `fun` or reads a basis needs.
The work is HiGHS's (IPX's crossover, `Highs.crossover`): the model and the interior point's
primal and dual values are handed over, its primal and dual pushes and simplex clean-up end
at a basic solution -- the maintained implementation, not a copy of it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ...errors import optional_import
from .problem import GeneralLP, highs_model, max_violation


@dataclass
class Vertex:
    """A basic optimal solution: x, the rows' multipliers y (d objective / d row bound, the
    sign of the solver's own `y`), the reduced costs c - A^T y, and the crossover's iterations
    (`crossover`)."""

    x: np.ndarray
    y: np.ndarray
    reduced_costs: np.ndarray
    iterations: int


#: how far inside its bounds (relative to 1 + |value|) a value counts as between them
INSIDE = 1e-9


def _inside(v, lo, up):
    """Which entries of v lie strictly between their bounds (by INSIDE; an infinite bound is
    never reached)."""
    tol = INSIDE * (1.0 + np.abs(v))
    return (v - lo > tol) & (up - v > tol)


def _pow2(values) -> float:
    """The power of two that brings the median nonzero finite |value| into [0.5, 1) (1 where
    none): the typical entry near 1, so HiGHS's absolute tolerances fit most of the problem (by
    the largest, the rows of small bounds got tolerances far too coarse: ganges's vertex 3e-3
    infeasible)."""
    v = np.abs(np.asarray(values, np.float64))
    v = v[np.isfinite(v) & (v > 0)]
    return float(np.ldexp(1.0, -int(np.frexp(np.median(v))[1]))) if v.size else 1.0


#: a vertex is taken where its objective is within this share of the interior point's (relative
#: to the larger of the two and to the products' size) and it is as feasible: else HiGHS's
#: tolerances, absolute, did not fit the problem's scale, and the interior point's answer stands
AGREE = 1e-6
#: HiGHS's primal feasibility tolerance (absolute, in the scaled units its model is given)
FEASIBLE = 1e-7


def crossover(lp: GeneralLP, x: np.ndarray, y: np.ndarray) -> Vertex | None:
    """The basic optimal solution HiGHS's crossover reaches from (x, y) -- the interior point's
    optimum of lp and its row multipliers -- or None where it does not end optimal or does not
    agree with the interior point (AGREE; the interior point's answer then stands).  HiGHS works
    on lp scaled by two powers of two -- its bounds and x by one, its costs and duals by the
    other, each's median brought near 1 (exact) -- as its feasibility and optimality tolerances are
    absolute.  `iterations`: one for the basis made, one per push (a column or row that lay
    inside its bounds at the interior point and lies on one at the vertex), as IPX counts a
    crossover -- HiGHS reports no count for a crossover it is handed --, and the clean-up's
    simplex iterations."""
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    A = sp.csc_matrix(lp.A, dtype=np.float64)
    ax = A @ x
    sb = _pow2(np.concatenate([lp.row_lo, lp.row_up, lp.col_lo, lp.col_up]))
    sc = _pow2(lp.c)
    scaled = GeneralLP(np.asarray(lp.c, np.float64) * sc, A, lp.row_lo * sb, lp.row_up * sb, lp.col_lo * sb,
                       lp.col_up * sb, 0.0, lp.name)
    got = _highs_crossover(scaled, x * sb, y * sc, A)
    if got is None:
        return None
    xv, yv, dv = got[0] / sb, got[1] / sc, got[2] / sc
    fi, fv = float(lp.c @ x), float(lp.c @ xv)
    size = float(np.abs(lp.c) @ np.abs(xv))
    if not abs(fv - fi) <= AGREE * max(abs(fi), abs(fv), 1e-6 * size) or \
            max_violation(lp, xv) > max(10.0 * max_violation(lp, x), FEASIBLE / sb):
        return None
    pushed = int(np.count_nonzero(_inside(x, lp.col_lo, lp.col_up) & ~_inside(xv, lp.col_lo, lp.col_up))
                 + np.count_nonzero(_inside(ax, lp.row_lo, lp.row_up) & ~_inside(A @ xv, lp.row_lo, lp.row_up)))
    return Vertex(xv, yv, dv, 1 + pushed + got[3])


def _highs_crossover(lp: GeneralLP, x, y, A):
    """(x, row duals, column duals, simplex iterations) of HiGHS's crossover on lp from (x, y),
    or None.  As HiGHS does after its own interior point: IPX's crossover, then the simplex
    from the basis it leaves wherever that basis is not yet optimal (IPX reports "imprecise" on
    pilot4, fit2d, dfl001, greenbea ...; the clean-up takes 2 to 342 iterations there)."""
    highspy = optional_import("highspy", "lp", "crossover to a vertex")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    ok = (highspy.HighsStatus.kOk, highspy.HighsStatus.kWarning)
    if h.passModel(highs_model(lp)) not in ok:
        return None
    # a run of no iteration first: HiGHS's crossover of a handed solution needs the solver's
    # data set up (without it, highspy crashes in crossover)
    h.setOptionValue("presolve", "off")
    h.setOptionValue("simplex_iteration_limit", 0)
    h.run()
    h.clearSolver()
    h.setOptionValue("simplex_iteration_limit", np.iinfo(np.int32).max)
    start = highspy.HighsSolution()
    start.col_value, start.row_value = x, A @ x
    start.row_dual, start.col_dual = y, np.asarray(lp.c, np.float64) - A.T @ y
    start.value_valid = start.dual_valid = True
    if h.crossover(start) not in ok:
        return None
    simplex = 0
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        if not h.getBasis().valid or h.run() not in ok:
            return None
        simplex = max(0, int(h.getInfo().simplex_iteration_count))
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    got = h.getSolution()
    xv, yv, dv = (np.asarray(v, np.float64) for v in (got.col_value, got.row_dual, got.col_dual))
    if xv.shape != x.shape or yv.shape != y.shape or not (np.isfinite(xv).all() and np.isfinite(yv).all()):
        return None
    return xv, yv, dv, simplex
