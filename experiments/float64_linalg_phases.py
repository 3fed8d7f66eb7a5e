"""Where does a glgpgpu.linalg float64 call's time go?  The float64 Cholesky and QR
(the compute kernels in double) phase by phase at one order, each phase ended by
glFinish: the upload, the factorization's dispatches, the pivots' check, the read-back,
and the numpy around them in linalg.py -- beside scipy's call on the same host.

    python experiments/float64_linalg_phases.py [--n 4096] [--repeat 2]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.linalg as sla

import glgpgpu
from glgpgpu import linalg
from glgpgpu.compute import dense, qr
from glgpgpu.compute.float64 import Float64Cholesky, Float64Matrix


def clock(ctx, fn, repeat):
    fn()
    ctx.finish()
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        ctx.finish()
        best = min(best, time.perf_counter() - t)
    return best, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    n = a.n
    print(ctx.caps.renderer, "n =", n)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, n)) / np.sqrt(n)
    A = X @ X.T + np.eye(n)
    G = rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n)

    def ms(name, seconds):
        print(f"{name:<44} {1e3 * seconds:9.1f} ms", flush=True)

    ms("scipy cholesky", clock(ctx, lambda: sla.cholesky(A), a.repeat)[0])
    ms("linalg.cholesky (float64)", clock(ctx, lambda: linalg.cholesky(A), a.repeat)[0])
    ms("api.cholesky64", clock(ctx, lambda: glgpgpu.api.cholesky64(A), a.repeat)[0])
    M = Float64Matrix(ctx, n, n, "probe")
    ms("  Float64Matrix.put", clock(ctx, lambda: M.put(ctx, A), a.repeat)[0])
    ms("  factor (dispatches)", clock(ctx, lambda: (M.put(ctx, A), dense.factor(ctx, M, n, pivot_floor=0.0,
                                                                                   fp64=True)), a.repeat)[0]
       - clock(ctx, lambda: M.put(ctx, A), a.repeat)[0])
    ms("  Float64Matrix.get", clock(ctx, lambda: M.get(ctx), a.repeat)[0])
    M.give()
    ms("  Float64Cholesky (put, factor, pivots)", clock(ctx, lambda: Float64Cholesky(ctx, A).release(), a.repeat)[0])
    ms("scipy qr (economic)", clock(ctx, lambda: sla.qr(G, mode="economic"), a.repeat)[0])
    ms("linalg.qr (economic, float64)", clock(ctx, lambda: linalg.qr(G, mode="economic"), a.repeat)[0])
    ms("  qr_raw64", clock(ctx, lambda: qr.qr_raw64(G, ctx=ctx), a.repeat)[0])
    F, tau = qr.qr_raw64(G, ctx=ctx)
    ms("  apply_q64 (Q from the identity)", clock(ctx, lambda: qr.apply_q64(F, tau, np.eye(n), ctx=ctx), a.repeat)[0])
    ms("  apply_q64 (one vector)", clock(ctx, lambda: qr.apply_q64(F, tau, np.ones((n, 1)), trans=True, ctx=ctx),
                                       a.repeat)[0])
    ms("scipy solve", clock(ctx, lambda: sla.solve(G, G[:, 0]), a.repeat)[0])
    ms("linalg.solve (float64)", clock(ctx, lambda: linalg.solve(G, G[:, 0]), a.repeat)[0])


if __name__ == "__main__":
    main()
