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
from .problem import GeneralLP, highs_model


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


def crossover(lp: GeneralLP, x: np.ndarray, y: np.ndarray) -> Vertex | None:
    """The basic optimal solution HiGHS's crossover reaches from (x, y) -- the interior point's
    optimum of lp and its row multipliers -- or None where it does not end optimal (the interior
    point's answer then stands).  Its `iterations`: one for the basis made, one per push (a
    column or row that lay inside its bounds at the interior point and lies on one at the
    vertex), as IPX counts a crossover -- HiGHS reports no count for a crossover it is handed."""
    highspy = optional_import("highspy", "lp", "crossover to a vertex")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    ok = (highspy.HighsStatus.kOk, highspy.HighsStatus.kWarning)
    if h.passModel(highs_model(lp)) not in ok:
        return None
    # a run of no iteration first: HiGHS's crossover of a handed solution needs the solver's
    # data set up (without it, highspy 1.7-1.16 crash in crossover)
    h.setOptionValue("presolve", "off")
    h.setOptionValue("simplex_iteration_limit", 0)
    h.run()
    h.clearSolver()
    h.setOptionValue("simplex_iteration_limit", np.iinfo(np.int32).max)
    A = sp.csc_matrix(lp.A, dtype=np.float64)
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    ax = A @ x
    start = highspy.HighsSolution()
    start.col_value, start.row_value = x, ax
    start.row_dual, start.col_dual = y, np.asarray(lp.c, np.float64) - A.T @ y
    start.value_valid = start.dual_valid = True
    if h.crossover(start) not in ok or h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    got = h.getSolution()
    xv = np.asarray(got.col_value, np.float64)
    yv = np.asarray(got.row_dual, np.float64)
    if xv.shape != x.shape or yv.shape != y.shape or not (np.isfinite(xv).all() and np.isfinite(yv).all()):
        return None
    pushed = int(np.count_nonzero(_inside(x, lp.col_lo, lp.col_up) & ~_inside(xv, lp.col_lo, lp.col_up))
                 + np.count_nonzero(_inside(ax, lp.row_lo, lp.row_up) & ~_inside(A @ xv, lp.row_lo, lp.row_up)))
    return Vertex(xv, yv, np.asarray(got.col_dual, np.float64), 1 + pushed)
