"""Solvers written against the methods' contract (dispatch.py chooses the method):

wls  weighted least squares with mixed-precision refinement (2008, Algorithm 1)
lstsq  least squares by GPU QR with Bjorck's float64 refinement
lp   the primal-dual interior-point LP solver (2006, Mehrotra; MPS / linprog input)
lssvm  LS-SVM training on the GPU's Cholesky (the PLSSVM thesis)
estimators  LSSVC, LSSVR: scikit-learn estimators around it
"""
from .lp import LPResult, linprog, solve_mps
from .lstsq import LstsqInfo
from .wls import WLSInfo

__all__ = ["LPResult", "linprog", "solve_mps", "LSSVC", "LSSVR", "WLSInfo", "LstsqInfo"]


def __getattr__(name):
    """LSSVC and LSSVR on first use: their module brings scikit-learn (the [ml] extra) when
    it is installed, which the rest of the library never needs."""
    if name in ("LSSVC", "LSSVR"):
        from . import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
