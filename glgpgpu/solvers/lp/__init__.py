"""A GPU-resident primal-dual interior-point LP solver (Jung 2006, section 4).

    linprog(c, A_ub, b_ub, A_eq, b_eq, bounds)      like scipy.optimize.linprog
    solve_mps(path)                                   NETLIB-style MPS (plain or .gz), read by HiGHS
"""
from .solver import LPResult, linprog, solve_mps, solve_general

__all__ = ["LPResult", "linprog", "solve_mps", "solve_general"]
