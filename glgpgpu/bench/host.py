"""Host overhead per public call (`glgpgpu bench host`): the seconds a call
spends in Python and numpy -- validation, layout copies, packing, read-back
assembly -- apart from the time inside the GL driver, measured by profiling the
call and subtracting every moderngl (mgl.*) builtin.  Runs on any machine, so a
host-side regression shows on the CPU machine too: host seconds per GB moved.
The profiler's own cost per Python call is included, so the paper path (one
Python-issued draw per pass, thousands of passes) reads high; on llvmpipe the
rasterizer's threads share the CPU with Python, which inflates the host part of
calls with heavy GPU work.  Compare a call with itself across commits."""
from __future__ import annotations

import cProfile
import pstats
import time

import numpy as np

from .. import api
from ..gl import resolve
from ..solvers.wls import wls
from .common import call_inputs, progress


def _split(fn) -> tuple:
    """(total seconds, seconds inside moderngl's C methods) of one call of fn."""
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    fn()
    prof.disable()
    total = time.perf_counter() - t0
    gl = sum(tt for (path, _, name), (_, _, tt, _, _) in pstats.Stats(prof).stats.items()
             if path == "~" and "'mgl." in name)
    return total, gl


def host_overhead(ctx=None, sizes=(128, 256), repeat: int = 2, ceil=None) -> list:
    ctx = resolve(ctx)
    rng = np.random.default_rng(15)
    methods = ["paper", "blocked"] if ctx.caps.image_load_store else ["paper"]
    rows = []
    for m in progress(list(sizes), "host overhead"):
        n = 2 * m
        A, d2, C, L, b, bw = call_inputs(rng, m)
        for method in methods:
            calls = {"adat": (lambda: api.adat(A, d2, method=method, ctx=ctx), 4 * (m * n + n + m * m)),
                     "cholesky": (lambda: api.cholesky(C, method=method, ctx=ctx), 8 * m * m),
                     "cho_solve": (lambda: api.cho_solve(L, b, method=method, ctx=ctx), 4 * (m * m + 2 * m)),
                     "wls": (lambda: wls(A, d2, bw, method=method, ctx=ctx), 4 * (m * n + 2 * n + m))}
            for name, (fn, nbytes) in calls.items():
                fn()                                           # warm-up: programs, vertex stores, pool
                total, gl = min((_split(fn) for _ in range(max(1, repeat))), key=lambda tg: tg[0] - tg[1])
                host = max(0.0, total - gl)
                rows.append({"suite": "host", "device": ctx.caps.renderer, "date": time.strftime("%Y-%m-%d"),
                             "call": name, "method": method, "m": m, "n": n if name in ("adat", "wls") else m,
                             "variant": f"{name}-{method}", "seconds": host, "host_s": host, "gl_s": gl,
                             "total_s": total, "bytes": nbytes, "host_s_per_gb": host / (nbytes / 1e9)})
    return rows
