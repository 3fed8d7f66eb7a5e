"""How long does each one-workgroup step of the compute method's float64 factor take in a
chain of dependent dispatches (each followed by its memory barrier, one glFinish at the end)?
A one-workgroup fill is the chain's floor; potrf (a 64 x 64 diagonal block) and trsm_rows
(one thread a row, 64 and 960 rows) are the factor's serial steps.  Microseconds a dispatch.

    python experiments/float64_step_latency.py [--m 1024] [--repeat 200]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import glgpgpu
from glgpgpu.compute.blas import fill, potrf_block, trsm_rows
from glgpgpu.compute.float64 import Float64Matrix


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--m", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=200)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer)
    A = Float64Matrix(ctx, a.m, a.m, "an SPD matrix")
    A.put(ctx, np.eye(a.m) * 4 + 0.01)
    small = ctx.buffers.take(1, 64, "a small buffer", ld=64)

    def chain(fn):
        fn()
        ctx.gl.finish()
        t = time.perf_counter()
        for _ in range(a.repeat):
            fn()
        ctx.gl.finish()
        return 1e6 * (time.perf_counter() - t) / a.repeat

    try:
        print(f"fill, one workgroup   {chain(lambda: fill(ctx, small, 0.0)):7.1f} us a dispatch")
        print(f"potrf, float64        {chain(lambda: potrf_block(ctx, A, 0, 64, pivot_floor=0.0, fp64=True)):7.1f} us")
        for rows in (64, min(960, a.m - 64)):
            us = chain(lambda: trsm_rows(ctx, A, 0, 64, 64, rows, fp64=True))
            print(f"trsm_rows, {rows:4d} rows  {us:7.1f} us")
    finally:
        small.give()
        A.give()


if __name__ == "__main__":
    main()
