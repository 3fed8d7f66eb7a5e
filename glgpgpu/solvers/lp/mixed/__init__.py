"""precision="mixed": the mixed-precision interior-point solver (default, tol 1e-8).

bounded   the formulation with implicit bounds, presolve, geometric scaling
mehrotra  Mehrotra's predictor-corrector with Gondzio's correctors, in float64
device    device="auto": the host's float64 factor or the GPU's, by the factor's flops (the
          host's always where the GL renderer is software or there is no GL: stats["device_reason"])
normal    the normal equations: formed and factored on the GPU in float32 (the methods'
          normal_system), each solve refined to float64 (refinement, then PCG)
normal_pattern, host_factor   M's pattern made once, and the host's float64 factors on it
product_form  M = K11 + K12 K12^T with the long columns as stable rank-one updates (after the
          border's solves lost their accuracy)
rows      A by rows, its products with a vector straight to scipy's compiled kernel
"""
from __future__ import annotations

import time
import warnings
from contextlib import nullcontext

import numpy as np

from ....dispatch import IMPLEMENTATIONS, choose, implementation
from ....errors import GLUnavailableError
from ....gl import Stopwatch, resolve
from ....parallel import blas_solve
from ..problem import max_violation, objective
from ..result import LPResult, verdict
from . import bounded, mehrotra
from .device import choose as choose_device
from .normal import MixedNormal


#: the BLAS threads of one solve's host factorizations, at most: many small BLAS calls (a multifrontal
#: factor's fronts), which a wide host's every thread slows (benchmarks/RESULTS.md, round 24); the
#: rest of the solve (its vector operations) runs BLAS on one thread (parallel.blas_solve)
BLAS_THREADS = 4


def _again(again, before, how: str):
    """The outcome of a second solve, counting the first's iterations and saying why it ran."""
    again.iterations += before.iterations
    again.message = (again.message + "; " if again.message else "") + f"solved again {how} after: {before.message}"
    return again


def solve(lp, *, tol, cholesky, max_iter, device, packed, method, ctx, callback, merge_split=False) -> LPResult:
    """Float64 Mehrotra with implicit bounds on the GPU's float32 normal equations.
    merge_split: presolve makes free variables written as x+ - x- at no cost one column again
    (the last resort of a solve that ends in numerical trouble with such pairs)."""
    t_all = time.perf_counter()
    n_orig = lp.shape[1]
    p = bounded.presolve(bounded.from_general(lp), merge_split=merge_split)
    # free variables split as x+ - x- left whole: a run in numerical trouble is solved again with
    # them merged (below), before the border's retry
    merge_next = bool(p.split_found) and not merge_split
    if p.status:
        return verdict(p.status, n_orig, p.message, {"presolve": time.perf_counter() - t_all}, p.A.shape)
    if p.A.shape[0] == 0 or p.A.shape[1] == 0:
        x = p.recover(np.where(p.c < 0, p.u, 0.0) if p.A.shape[1] else np.zeros(0))
        return LPResult("optimal", objective(lp, x), x, 0, size=p.A.shape, message="solved by presolve",
                        violation=max_violation(lp, x), primal_infeasibility=0.0, dual_infeasibility=0.0, gap=0.0,
                        y=np.zeros(lp.shape[0]))
    p = bounded.scale(p)
    sigma_b, sigma_c = bounded.normalize(p)
    t_pre = time.perf_counter() - t_all
    asked, auto, reason = device, None, ""
    if device == "auto":                 # the host's float64 factor where it is the quicker (device.py)
        gpu_float64 = method in IMPLEMENTATIONS and implementation(method).float64_normal
        auto = choose_device(p.A, p.normal_flops, gpu_float64, p.normal_order)
        device, reason = auto.device, auto.reason
    impl = None
    if device == "gpu":
        try:
            ctx = resolve(ctx)
        except GLUnavailableError as exc:
            if asked != "auto":
                raise
            # auto may choose: the host's float64 factor solves the same problem, and says why
            warnings.warn(f"device='auto': no OpenGL context ({exc}); the host's float64 factor instead",
                          RuntimeWarning, stacklevel=3)
            device, reason = "cpu64", "no GL"
    if device == "gpu" and asked == "auto" and ctx.caps.software:
        # a software renderer draws on this same CPU, in float32 and through the pipeline: the
        # host's own float64 factor is the quicker (dfl001 on the CPU machine: 151 s by llvmpipe,
        # 12 s by the host's factor)
        device, reason = "cpu64", "software renderer"
    if device == "gpu":
        impl = implementation(choose(method, ctx, packed=packed, variant=cholesky))
    watch = Stopwatch(ctx if device == "gpu" else None)
    normal = None
    try:
        with (ctx.pool.scope() if device == "gpu" else nullcontext()), blas_solve(BLAS_THREADS):
            normal = MixedNormal(p.A, impl=impl, packed=packed, variant=cholesky, ctx=ctx, watch=watch,
                                 device=device, pattern=auto.pattern if auto else None,
                                 counted=auto.flops if auto else float("nan"), ldl=auto.ldl if auto else None)
            # a bordered step thrown off course is refused and M factored whole from there -- unless
            # split pairs wait for their merge, the better retry for them (an iterate off along both
            # parts of each pair, where the merged run gives each coefficient once)
            jumps = not merge_next
            out = mehrotra.solve(p, normal, tol=tol, max_iter=max_iter, callback=callback, unborder_on_jump=jumps)
            if out.status == "numerical trouble" and p.free.any():
                # free columns that must travel far or nearly depend on each other: again with
                # their proximal term relative to their size
                out = _again(mehrotra.solve(p, normal, tol=tol, max_iter=max_iter, callback=callback,
                                            free_rho="relative", unborder_on_jump=jumps), out,
                             "with the free columns' regularization relative to their size")
            if out.status == "numerical trouble" and normal.bordered and not merge_next:
                # the long columns' border cost the float64 solves their accuracy (quantile
                # regression's split coefficients, weights spanning many orders): again, M whole
                normal.unborder()
                out = _again(mehrotra.solve(p, normal, tol=tol, max_iter=max_iter, callback=callback), out,
                             "with the normal matrix factored whole (no border of long columns)")
    finally:
        if normal is not None:
            normal.release()
    if out.status == "numerical trouble" and merge_next:
        # free variables written as x+ - x- at no cost, whose optimal face runs off along both
        # parts (scikit-learn's QuantileRegressor with alpha = 0): again with each made one column
        again = solve(lp, tol=tol, cholesky=cholesky, max_iter=max_iter, device=asked, packed=packed,
                      method=method, ctx=ctx, callback=callback, merge_split=True)
        again.iterations += out.iterations
        again.message = ((again.message + "; ") if again.message else "") + (
            f"solved again with {p.split_found} free variables split as x+ - x- made one column each "
            f"after: {out.message}")
        again.stats["split_merged"] = p.split_found
        again.times["total"] = time.perf_counter() - t_all
        return again
    out.x, out.y = out.x * sigma_b, out.y * sigma_c
    x = p.recover(out.x)
    times = {"presolve": t_pre, **watch.as_dict()}
    total = time.perf_counter() - t_all
    times["other"] = max(0.0, total - sum(times.values()))
    times["total"] = total
    stats = dict(normal.stats, device=device, device_asked=asked, device_reason=reason,
                 factor_flops=auto.flops if auto else float("nan"))
    if out.status in ("infeasible", "unbounded"):
        res = verdict(out.status, n_orig, out.message, times, p.A.shape)
        res.iterations, res.log, res.stats = out.iterations, out.log, stats
        return res
    y = np.zeros(lp.shape[0])
    y[p.rows] = out.y
    return LPResult(out.status, objective(lp, x), x, out.iterations, out.log, times, out.message, p.A.shape,
                    max_violation(lp, x), out.primal_infeasibility, out.dual_infeasibility, out.gap, "mixed", stats,
                    y=y)
