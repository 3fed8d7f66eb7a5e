"""Solvers written against the methods' contract (dispatch.py chooses the method):

wls  weighted least squares with mixed-precision refinement (2008, Algorithm 1)
lstsq  least squares by GPU QR with Bjorck's float64 refinement
lp   the primal-dual interior-point LP solver (2006, Mehrotra; MPS / linprog input)
lssvm  LS-SVM training on the GPU's Cholesky (the PLSSVM thesis), LSSVC
"""
from .lp import LPResult, linprog, solve_mps
from .lssvm import LSSVC, LSSVR
from .lstsq import LstsqInfo
from .wls import WLSInfo

__all__ = ["LPResult", "linprog", "solve_mps", "LSSVC", "LSSVR", "WLSInfo", "LstsqInfo"]
