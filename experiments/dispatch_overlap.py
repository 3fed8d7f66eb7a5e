"""Does this GL driver run two compute dispatches at once when no memory barrier stands
between them?  A rank-512 product on one part of a buffer (the factor's trailing update)
and a chain of panel steps (the diagonal block and its substitution, one workgroup's worth
of serial work each) on a disjoint part: each alone, then one after the other with the
barrier between them, then the product issued without a barrier before the panel steps.
If the last is near max(product, panel) rather than their sum, the GPU overlaps them and a
lookahead (the next block column's panels issued beside the trailing update) can hide the
panels' latency; if it is near the sum, the driver serializes dispatches anyway.

    python experiments/dispatch_overlap.py [--m 16384] [--repeat 5]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import glgpgpu
from glgpgpu.compute import blas


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--m", type=int, default=16384)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    m, w = a.m, 512
    rng = np.random.default_rng(0)
    A = blas.upload(ctx, (rng.standard_normal((m, m)).astype(np.float32) / m + 4 * np.eye(m, dtype=np.float32)))
    shipped = ctx.kernels.dispatch

    def product(barrier=True):
        def once(kernel, *args, **kw):
            shipped(kernel, *args, **{**kw, "barrier": barrier})
        ctx.kernels.dispatch = once
        try:      # the trailing update right of the first two block columns, from the first one
            blas.gemm(ctx, A, A, A, m=m - 2 * w, n=m - 2 * w, k=w, alpha=-1e-6, beta=1.0, a_at=(2 * w, 0),
                      b_at=(2 * w, 0), c_at=(2 * w, 2 * w), lower=True)
        finally:
            del ctx.kernels.dispatch

    def panels():         # the second block column's panels: diagonal blocks and substitutions
        for k0 in range(w, 2 * w, blas.NB):
            blas.potrf_block(ctx, A, k0, blas.NB)
            blas.trsm_rows(ctx, A, k0, blas.NB, k0 + blas.NB, 2 * w - k0 - blas.NB)

    def best(f):
        f()
        ctx.finish()
        out = []
        for _ in range(a.repeat):
            ctx.finish()
            t = time.perf_counter()
            f()
            ctx.finish()
            out.append(time.perf_counter() - t)
        return min(out) * 1e3

    t_prod, t_pan = best(product), best(panels)
    t_seq = best(lambda: (product(True), panels()))
    t_ovl = best(lambda: (product(False), panels()))
    print(f"m = {m}: product {t_prod:.2f} ms, panels {t_pan:.2f} ms; in turn with a barrier {t_seq:.2f} ms, "
          f"the product without one {t_ovl:.2f} ms (sum {t_prod + t_pan:.2f}, max {max(t_prod, t_pan):.2f})")
    A.give()


if __name__ == "__main__":
    main()
