"""Where a compute-method call's time goes, kernel by kernel: for `qr` (qr_raw of an m x m
matrix), `cholesky` (dense.factor of order m), `kernel` (the LS-SVM's one-buffer factor: the
rbf kernel matrix of m points in 32 features formed in one buffer and factored there) or
`kernel-tiled` (the same on tiles), the wall time of the call alone (numpy to
numpy, best of `repeat`); the host's time to issue the GPU work (the call's dispatches
queued, before the glFinish that waits for them) against the wait after it; then, each
dispatch bracketed by a GL timer query (which serializes them: the GPU's own time per
kernel, no overlap), the dispatches and GPU milliseconds per kernel name (products apart by
their inner dimension k: a tile update's, a TRSM's rank-512 or rank-64 one).  If the issue
time is near the wall time, the host (Python, binding, driver calls) is the limit; if the
kernels' GPU sum is, the kernels are.

    python experiments/kernel_times.py [--op qr|cholesky|kernel|kernel-tiled] [--m 4096] [--repeat 3]
"""
from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np

import glgpgpu
from glgpgpu.bench.common import timings
from glgpgpu.compute import blas, dense, qr, tiled
from glgpgpu.tiled.cholesky import factor as factor_tiles


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", choices=("qr", "cholesky", "kernel", "kernel-tiled"), default="qr")
    ap.add_argument("--m", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    m, rng = a.m, np.random.default_rng(0)
    X = rng.standard_normal((m, m)).astype(np.float32) if not a.op.startswith("kernel") else None
    if a.op == "qr":
        whole = lambda: qr.qr_raw(X, ctx=ctx)                                   # noqa: E731

        def gpu_part():
            F = blas.upload(ctx, X)
            tau, T = qr.factor_buffer(ctx, F, m, m)
            return [F, tau, T]
    elif a.op == "kernel":
        P = rng.standard_normal((m, 32)).astype(np.float32)

        def gpu_part():
            Xb = blas.upload(ctx, P)
            K = dense.kernel_buffer(ctx, Xb, m, 32, kernel="rbf", gamma=1 / 32, degree=3, coef0=0.0, diag=0.1)
            dense.factor(ctx, K, m)
            return [Xb, K]

        def whole():
            give(gpu_part())
            ctx.finish()
    elif a.op == "kernel-tiled":
        P = rng.standard_normal((m, 32)).astype(np.float32)

        def gpu_part():
            T = tiled.kernel_tiles(P, kernel="rbf", gamma=1 / 32, degree=3, coef0=0.0, diag=0.1, ctx=ctx)
            factor_tiles(T)
            return [T]

        def whole():
            for T in gpu_part():
                T.release()
    else:
        C = np.ascontiguousarray(X @ X.T / m + np.eye(m, dtype=np.float32))
        whole = lambda: dense.cholesky(C, ctx=ctx)                              # noqa: E731

        def gpu_part():
            A = blas.upload(ctx, C)
            dense.factor(ctx, A, m)
            return [A]
    whole()
    walls = []
    for _ in range(a.repeat):
        ctx.finish()
        t = time.perf_counter()
        whole()
        walls.append(time.perf_counter() - t)
    issue = wait = np.inf
    for _ in range(a.repeat):
        ctx.finish()
        t0 = time.perf_counter()
        held = gpu_part()
        t1 = time.perf_counter()
        ctx.finish()
        t2 = time.perf_counter()
        if t2 - t0 < issue + wait:
            issue, wait = t1 - t0, t2 - t1
        give(held)
    if a.op == "cholesky":                                                      # the public call's checks too
        public = min(timings(lambda: glgpgpu.cholesky(C, method="compute", ctx=ctx), a.repeat))
        print(f"glgpgpu.cholesky (checks, scaling, result check) {public * 1e3:.1f} ms")
    print(f"{a.op} {m}: the call {min(walls) * 1e3:.1f} ms; upload + GPU work issued in {issue * 1e3:.1f} ms, "
          f"then waited {wait * 1e3:.1f} ms", flush=True)
    gpu_ns, count = defaultdict(int), defaultdict(int)
    query = ctx.gl.query(time=True)
    shipped = ctx.kernels.dispatch

    def timed(kernel, *args, **kw):
        with query:
            shipped(kernel, *args, **kw)
        k = (kw.get("uniforms") or {}).get("u_k")
        name = kernel if k is None else f"{kernel} k={k}"
        gpu_ns[name] += query.elapsed
        count[name] += 1
    ctx.kernels.dispatch = timed
    try:
        held = gpu_part()
        ctx.finish()
        give(held)
    finally:
        del ctx.kernels.dispatch
    total = sum(gpu_ns.values())
    print(f"{sum(count.values())} dispatches, {total * 1e-6:.1f} ms of GPU time when serialized:")
    for k in sorted(gpu_ns, key=gpu_ns.get, reverse=True):
        print(f"  {k:24s} {count[k]:6d} dispatches {gpu_ns[k] * 1e-6:9.2f} ms "
              f"({gpu_ns[k] / count[k] * 1e-3:8.1f} us each)")


def give(held) -> None:
    """Give back buffers (give) and tiled matrices (release)."""
    for b in held:
        (b.release if hasattr(b, "release") and not hasattr(b, "give") else b.give)()


if __name__ == "__main__":
    main()
