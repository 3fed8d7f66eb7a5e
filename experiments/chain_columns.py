"""Do the LS-SVM's float32 solves gain from taking their k right-hand sides in one chained
dispatch each way (trsv_chain.comp with KCOLS = k, compute/chain.py as shipped) instead of a
dispatch pair a column (the same solve with compute.chain.MOST_COLUMNS = 1)?  The factor of
K + I/C for N random points (rbf), then for k = 1, 2, 4, 8: both solves of L L^T X = R, best
of `repeat`, numpy to numpy; whether the answers are the same bits (every column's sums in
the same order).  H100, round 31: k = 8 went from 69.9 to 17.9 ms, the same bits.

    python experiments/chain_columns.py [--n 16384] [--columns 1,2,4,8] [--repeat 5]
"""
from __future__ import annotations

import argparse

import numpy as np

import glgpgpu
from glgpgpu import limits
from glgpgpu.bench.common import timings
from glgpgpu.compute.normal import OneBufferKernelFactor


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=16384)
    ap.add_argument("--columns", default="1,2,4,8")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((a.n, 32)).astype(np.float32)
    F = OneBufferKernelFactor(X, kernel="rbf", gamma=1 / 32, degree=3, coef0=0.0, diag=0.1, ctx=ctx)
    try:
        for k in (int(v) for v in a.columns.split(",")):
            R = rng.standard_normal((a.n, k)).astype(np.float32)
            with limits.override({"compute.chain.MOST_COLUMNS": 1}):
                t0 = min(timings(lambda: F.solves.solve_columns(R), a.repeat))
                X0 = F.solves.solve_columns(R)
            t1 = min(timings(lambda: F.solves.solve_columns(R), a.repeat))
            X1 = F.solves.solve_columns(R)
            print(f"N = {a.n}, k = {k}: a dispatch pair a column {t0 * 1e3:8.2f} ms, all columns together "
                  f"{t1 * 1e3:8.2f} ms; same bits {np.array_equal(X0, X1)}", flush=True)
    finally:
        F.release()


if __name__ == "__main__":
    main()
