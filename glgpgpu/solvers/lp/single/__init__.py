"""precision="single": the 2006 paper's all-float32 solver (Jung 2006, section 4),
every vector in a texture; Table 3 uses it.

ipm       Mehrotra's predictor-corrector on the standard form, vectors behind a backend
backends  GPUBackend (textures, the level-1/2 kernels, the methods' resident_normal)
          and NumpyBackend (the same in numpy: cpu64 / cpu32)
"""
from __future__ import annotations

import numpy as np

from ....gl import Stopwatch
from .. import presolve
from ..problem import max_violation, objective, to_standard_form
from ..result import LPResult, verdict
from . import ipm
from .backends import GPUBackend, NumpyBackend


def solve(lp, *, tol, cholesky, max_iter, device, packed, method, ctx, callback) -> LPResult:
    """The 2006 paper's float32 solver (standard form, every vector in a texture)."""
    watch = Stopwatch(None)              # seconds per phase (the GPU work is inside "iterations")
    n_orig = lp.shape[1]
    with watch("presolve"):
        sf = to_standard_form(lp)
        red = None if sf.infeasible else presolve.reduce(sf.A, sf.b, sf.c)
    if sf.infeasible:
        return verdict("infeasible", n_orig, sf.infeasible)
    times = watch.as_dict()
    if red.status:
        return verdict(red.status, n_orig, red.message, times, sf.A.shape)
    if red.A.shape[0] == 0 or red.A.shape[1] == 0:
        # nothing left to iterate on: every remaining variable sits at 0 (presolve
        # already reported a negative cost on a free-growing variable as unbounded)
        x = sf.recover(np.zeros(sf.A.shape[1]))
        return LPResult("optimal", objective(lp, x), x, 0, times=times, size=red.A.shape,
                        message="solved by presolve", violation=max_violation(lp, x), precision="single")
    with watch("iterations"):
        if device in ("gpu", "auto"):          # the 2006 solver: the paper's GPU work, whatever the size
            be = GPUBackend(red.A, ctx=ctx, cholesky=cholesky, packed=packed, method=method)
        else:
            be = NumpyBackend(red.A, np.float64 if device == "cpu64" else np.float32)
        try:
            res = ipm.solve(be, red.b, red.c, tol=tol, max_iter=max_iter, callback=callback)
        finally:
            be.release()
    times = watch.as_dict()
    z = red.unscale_x(res.x, sf.A.shape[1])
    x = sf.recover(z)
    if res.status in ("infeasible", "unbounded"):
        out = verdict(res.status, n_orig, res.message, times, red.A.shape)
        out.iterations, out.log, out.precision = res.iterations, res.log, "single"
        return out
    # iteration limit / numerical trouble: the best iterate, with its objective (never NaN)
    return LPResult(res.status, objective(lp, x), x, res.iterations, res.log, times, res.message, red.A.shape,
                    max_violation(lp, x) if np.all(np.isfinite(x)) else float("nan"), precision="single")
