"""What an LP solve returns, for both solvers."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


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
    y: np.ndarray = None         # one multiplier per row (d objective / d row bound); None where not computed
    reduced_costs: np.ndarray = None   # c - A^T y: per variable, d objective / d its active bound
    crossover_iterations: int = 0      # crossover=True: the basis made and its pushes (0: no crossover)

    @property
    def success(self) -> bool:
        return self.status == "optimal"

    def __repr__(self):
        return (f"LPResult(status={self.status!r}, objective={self.objective:.10g}, iterations={self.iterations}, "
                f"size={self.size})")


def verdict(status, n, message, times=None, size=()):
    """The result for an infeasible (+inf) or unbounded (-inf) problem: no x."""
    value = math.inf if status == "infeasible" else -math.inf
    return LPResult(status, value, np.full(n, np.nan), 0, message=message, times=times or {}, size=size)
