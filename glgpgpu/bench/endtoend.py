"""The user's call as the benchmark (`glgpgpu bench e2e`): the public functions,
numpy in and numpy out, best of `repeat` after a warm-up, beside the host's best
in the same run.  (Issue 14 asks more: kernel-only seconds and the transfer floor
in every suite; this is the end-to-end column it starts from.)"""
from __future__ import annotations

import time

import numpy as np

from .. import api
from ..gl import resolve
from .common import best_of, progress


def _host_chol(C):
    import scipy.linalg.lapack as lapack

    return lapack.spotrf(C, lower=1)


def end_to_end(ctx=None, sizes=(256, 512), repeat: int = 3, ceil=None) -> list:
    ctx = resolve(ctx)
    rng = np.random.default_rng(14)
    rows = []
    methods = ["paper", "blocked"] if ctx.caps.image_load_store else ["paper"]
    for m in progress(list(sizes), "end to end"):
        n = 2 * m
        A = rng.random((m, n), dtype=np.float32)
        d2 = rng.random(n, dtype=np.float32)
        X = rng.random((m, m), dtype=np.float32)
        C = (X @ X.T + m * np.eye(m, dtype=np.float32)).astype(np.float32)
        host_adat = best_of(lambda: (A * d2) @ A.T, repeat)
        host_chol = best_of(lambda: _host_chol(C), repeat)
        calls = []
        for method in methods:
            for packed in (False, True):
                calls.append(("adat", method, packed, lambda: api.adat(A, d2, packed=packed, method=method, ctx=ctx),
                              host_adat))
                if method == "paper" or not packed:
                    calls.append(("cholesky", method, packed,
                                  lambda: api.cholesky(C, packed=packed, method=method, ctx=ctx), host_chol))
        for name, method, packed, fn, host in calls:
            fn()                                          # warm-up: programs, vertex stores, pool
            t = best_of(lambda: (fn(), ctx.finish()), repeat)
            rows.append({"suite": "e2e", "device": ctx.caps.renderer, "date": time.strftime("%Y-%m-%d"),
                         "call": name, "method": method, "layout": "packed" if packed else "full", "m": m,
                         "n": n if name == "adat" else m, "variant": f"{name}-{method}-{'packed' if packed else 'full'}",
                         "seconds": t, "end_to_end_s": t, "host_seconds": host, "host_over_gpu": host / t})
    return rows
