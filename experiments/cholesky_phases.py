"""Where `cholesky(C, method="compute")` spends an order-m call on this GPU: the public call end
to end, the compute method's own call (no input or result checks), and its parts alone -- the
upload, the factor (with an upload before it), the upper triangle's zeroing, the read-back (whole, and the lower triangle's bands) --
each between glFinish calls, best of `repeat`; and the dispatches one factor makes.

    python experiments/cholesky_phases.py [--m 4096] [--repeat 5]
"""
from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

import glgpgpu
from glgpgpu.compute import blas, dense


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--m", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    m = a.m
    X = np.random.default_rng(0).standard_normal((m, m)).astype(np.float32)
    C = np.ascontiguousarray(X @ X.T / m + np.eye(m, dtype=np.float32))

    def best(fn):
        fn()
        ts = []
        for _ in range(a.repeat):
            ctx.finish()
            t = time.perf_counter()
            fn()
            ctx.finish()
            ts.append(time.perf_counter() - t)
        return f"{min(ts) * 1e3:.2f} ms"

    A = blas.upload(ctx, C)

    def upload_and_factor():
        blas.write(ctx, A, C)
        dense.factor(ctx, A, m)
    try:
        print("glgpgpu.cholesky (end to end)", best(lambda: glgpgpu.cholesky(C, method="compute", ctx=ctx)))
        print("compute's cholesky (no checks)", best(lambda: dense.cholesky(C, ctx=ctx)))
        print("upload", best(lambda: blas.write(ctx, A, C)))
        print("upload + factor", best(upload_and_factor))
        print("zero the upper triangle", best(lambda: blas.zero_upper(ctx, A, m)))
        print("read back", best(lambda: blas.download(ctx, A)))
        Z = np.zeros((m, m), np.float32)
        print("read back the lower triangle (download_lower)", best(lambda: blas.download_lower(ctx, A, m, Z)))
        with ctx.kernels.recording() as rec:
            dense.factor(ctx, A, m)
        print("the factor's dispatches:", dict(Counter(k for k, _ in rec.dispatches)))
    finally:
        A.give()


if __name__ == "__main__":
    main()
