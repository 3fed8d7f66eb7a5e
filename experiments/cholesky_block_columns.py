"""The compute float32 Cholesky by block columns (compute/dense.py's UPDATE_COLUMNS: each
NB-wide panel updates only its block column, the rest one product of that rank) against
every panel updating all of the matrix right of it (UPDATE_COLUMNS = NB = 64, the factor
before), end to end from numpy (best of 3, ||L L^T - A|| / ||A|| beside each time), and
the LS-SVM fit whose float32 factor it is; then, for the first and last setting, each
kernel's share of the factor alone (every dispatch timed alone between two glFinish:
launch costs included, so the sum runs above the factor's time).

    python experiments/cholesky_block_columns.py [--sizes 4096,8192,16384] [--columns 64,256,512,1024]
"""
from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np

import glgpgpu
from glgpgpu.bench.common import timings
from glgpgpu.compute import blas, dense


def best(fn, k=3):
    """Fastest of k calls after a warm-up call (kernels built)."""
    return min(timings(fn, k))


def profile(ctx, C):
    """Seconds per kernel name of one factor of C already on the GPU."""
    spent, count = defaultdict(float), defaultdict(int)
    real = ctx.kernels.dispatch

    def timed(kernel, *a, **k):
        ctx.finish()
        t = time.perf_counter()
        real(kernel, *a, **k)
        ctx.finish()
        spent[kernel] += time.perf_counter() - t
        count[kernel] += 1
    m = C.shape[0]
    A = blas.upload(ctx, C)
    ctx.kernels.dispatch = timed
    try:
        t = time.perf_counter()
        dense.factor(ctx, A, m)
        total = time.perf_counter() - t
    finally:
        ctx.kernels.dispatch = real
        A.give()
    return total, {k: (round(v * 1e3, 1), count[k]) for k, v in sorted(spent.items(), key=lambda kv: -kv[1])}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4096,8192,16384")
    ap.add_argument("--columns", default="64,256,512,1024")
    ap.add_argument("--lssvm", type=int, default=16384)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    rng = np.random.default_rng(0)
    cols = [int(c) for c in a.columns.split(",")]
    for m in [int(s) for s in a.sizes.split(",")]:
        X = rng.standard_normal((m, 64)).astype(np.float32)
        C = X @ X.T / 64 + np.eye(m, dtype=np.float32)          # SPD, kappa ~ 10
        for c in cols:
            dense.UPDATE_COLUMNS = c
            t = best(lambda: glgpgpu.cholesky(C, method="compute"))
            L = glgpgpu.cholesky(C, method="compute").astype(np.float64)
            rows = rng.choice(m, min(m, 256), replace=False)
            err = np.linalg.norm(L[rows] @ L.T - C[rows]) / np.linalg.norm(C[rows])
            print(f"cholesky m={m:<6} UPDATE_COLUMNS={c:<5} {t * 1e3:9.1f} ms  "
                  f"{m ** 3 / 3 / t / 1e12:5.2f} TFLOP/s  ||LL^T - A||/||A|| (256 rows) {err:.2g}", flush=True)
        for c in (cols[0], cols[-1]):
            dense.UPDATE_COLUMNS = c
            total, parts = profile(ctx, C)
            print(f"  profile UPDATE_COLUMNS={c}: {total * 1e3:.1f} ms synced; ms, dispatches: {parts}", flush=True)
    if a.lssvm:
        from glgpgpu.solvers.estimators import LSSVC
        N, d = a.lssvm, 32
        X = rng.standard_normal((N, d))
        y = (X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.5).astype(int)
        for c in cols:
            dense.UPDATE_COLUMNS = c
            est = LSSVC(method="compute", C=10.0, gamma=1.0 / d)
            t = best(lambda: est.fit(X, y), 2)
            print(f"LSSVC fit N={N} UPDATE_COLUMNS={c:<5} {t:.3f} s converged {est.info_['converged']} "
                  f"phases {({k: round(v, 3) for k, v in est.info_['times'].items()})}", flush=True)


if __name__ == "__main__":
    main()
