"""What one compute dispatch costs the host and the GPU, and what its memory barrier adds:
`count` dispatches of a one-workgroup kernel (scale.comp on a 16 x 16 block), each followed
by glMemoryBarrier with every bit (as shipped), with the storage and buffer-update bits
only, or none -- the host's time to issue them and the wall time to the glFinish after
them, per dispatch.  Then the compute QR of an m x m matrix (3,870 dispatches at 4096)
with each barrier choice but none: best of `repeat`, and whether F and tau are the same
bits as the shipped barriers give.

    python experiments/dispatch_barriers.py [--count 5000] [--m 4096] [--repeat 3]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import glgpgpu
from glgpgpu.bench.common import timings
from glgpgpu.compute import blas, qr

BITS = {"every bit": 0xFFFFFFFF, "storage + buffer update": 0x2000 | 0x200}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--m", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    kernels, shipped = ctx.kernels, ctx.kernels.barrier_bits
    M = blas.take(ctx, 16, 16)
    try:
        for label, bits in [*BITS.items(), ("no barrier", None)]:
            go = lambda s: kernels.dispatch("scale", (1, 1), buffers={0: M.buf}, barrier=bits is not None,  # noqa: E731
                                            uniforms={"u_rows": 16, "u_cols": 16, "u_ld": M.ld, "u_s": s})
            kernels.barrier_bits = bits or shipped
            go(1.0)
            ctx.finish()
            t0 = time.perf_counter()
            for i in range(a.count):
                go(float(1 + i % 2))
            t1 = time.perf_counter()
            ctx.finish()
            t2 = time.perf_counter()
            print(f"{label:24s}: issued in {(t1 - t0) / a.count * 1e6:6.1f} us a dispatch, "
                  f"done in {(t2 - t0) / a.count * 1e6:6.1f} us a dispatch", flush=True)
        X = np.random.default_rng(0).standard_normal((a.m, a.m)).astype(np.float32)
        kernels.barrier_bits = shipped
        F0, tau0 = qr.qr_raw(X, ctx=ctx)
        for label, bits in BITS.items():
            kernels.barrier_bits = bits
            t = min(timings(lambda: qr.qr_raw(X, ctx=ctx), a.repeat))
            F, tau = qr.qr_raw(X, ctx=ctx)
            same = np.array_equal(F, F0) and np.array_equal(tau, tau0)
            print(f"qr {a.m}: {label:24s} {t * 1e3:7.1f} ms; the same bits as every bit's: {same}", flush=True)
    finally:
        kernels.barrier_bits = shipped
        M.give()


if __name__ == "__main__":
    main()
