"""The product kernel's rate against its inner dimension k: C (m x m) += A B^T with A, B
m x k, the whole block and the lower triangle's tiles only (the factor's trailing update),
beta 1 (C read and written) and 0 -- each dispatch timed by a GL timer query, best of
`repeat`, in TFLOP/s counting the multiply-adds of the tiles computed (the lower product
computes its diagonal tiles whole).  A Cholesky's trailing updates are rank 64 and 512;
the tiled factor's are rank 8192: if the rate falls with k, a per-tile cost (the C tile's
read and write, the prologue) is what the low-rank updates pay.

--in-place: A, B and C in one buffer of order m + max(ks), as a factor's trailing update
has them (C at (k, k), A = B its first k columns below row k); --passes: the whole table
this many times (the first pass of a process can run on a GPU still raising its clocks).

    python experiments/product_rank.py [--m 8192] [--ks 64,512,2048,8192] [--repeat 5] [--in-place] [--passes 2]
"""
from __future__ import annotations

import argparse

import numpy as np

import glgpgpu
from glgpgpu.compute import blas


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--m", type=int, default=8192)
    ap.add_argument("--ks", default="64,512,2048,8192")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--in-place", action="store_true")
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--lower-only", action="store_true")
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    m, ks = a.m, [int(k) for k in a.ks.split(",")]
    rng = np.random.default_rng(0)
    if a.in_place:
        K = max(ks)
        A = C = blas.upload(ctx, rng.standard_normal((m + K, m + K)).astype(np.float32) * 1e-3)
        at = dict(a_at=(K, 0), b_at=(K, 0), c_at=(K, K))
    else:
        A = blas.upload(ctx, rng.standard_normal((m, max(ks))).astype(np.float32))
        C = blas.upload(ctx, np.zeros((m, m), np.float32))
        at = {}
    query = ctx.gl.query(time=True)
    T = -(-m // blas.BM)
    for p, k, lower, beta in ((p, k, lower, beta) for p in range(a.passes) for k in ks
                              for lower in ((True,) if a.lower_only else (False, True)) for beta in (1.0, 0.0)):
        best = np.inf
        for _ in range(a.repeat + 1):
            ctx.finish()
            with query:
                blas.gemm(ctx, C, A, A, m=m, n=m, k=k, alpha=-1.0, beta=beta, lower=lower, **at)
            ctx.finish()
            best = min(best, query.elapsed * 1e-9)
        tiles = T * (T + 1) // 2 if lower else T * T
        flops = 2.0 * tiles * blas.BM * blas.BN * k
        print(f"pass {p} m {m} ld {C.ld} k {k:5d} {'lower' if lower else 'whole'} beta {beta:g}: "
              f"{best * 1e3:8.3f} ms {flops / best * 1e-12:6.1f} TFLOP/s", flush=True)
    A.give()
    if C is not A:
        C.give()


if __name__ == "__main__":
    main()
