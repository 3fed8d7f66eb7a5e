"""Where the blocked QR's time goes (issue 16): per shape, the public call end to end,
the factorization alone split into the host's issue time (until the last draw call
returns) and the wait for the GPU after it, the number of draws, and the same with
memory barriers limited to image, texture-fetch, framebuffer and buffer-update bits
(Kernels.barrier_bits) instead of all of them.

    python benchmarks/qr_draw_costs.py [MxN ...] [--repeat R] [--profile]
"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import sys
import time

import numpy as np

from glgpgpu.blocked import qr as bqr
from glgpgpu.gl import resolve
from glgpgpu.layouts.rgba import padded
from glgpgpu.gl.transfer import upload_rgba

LIGHT = 0x8 | 0x20 | 0x100 | 0x200 | 0x400 | 0x2000    # texture fetch, image, texture/buffer update, framebuffer, storage


def factor_split(ctx, A, repeat):
    m, n = A.shape
    best = (float("inf"), 0.0)
    for _ in range(repeat + 1):
        a_tex = upload_rgba(ctx, A, m, padded(n, 4), "A")
        ctx.finish()
        t0 = time.perf_counter()
        tt = bqr.qr_texture(a_tex, m, n, ctx=ctx)
        t1 = time.perf_counter()
        ctx.finish()
        t2 = time.perf_counter()
        ctx.pool.give(a_tex, tt)
        if t2 - t0 < best[0]:
            best = (t2 - t0, t1 - t0)
    return best


def main(*args):
    repeat = 3
    profile = "--profile" in args
    args = [a for a in args if a != "--profile"]
    shapes = []
    it = iter(args)
    for a in it:
        if a == "--repeat":
            repeat = int(next(it))
        else:
            shapes.append(tuple(int(v) for v in a.split("x")))
    shapes = shapes or [(6144, 384), (384, 6144), (2048, 128)]
    ctx = resolve(None)
    K = ctx.kernels
    print(ctx.caps.renderer, flush=True)
    rng = np.random.default_rng(1)
    for m, n in shapes:
        A = rng.standard_normal((m, n)).astype(np.float32)
        with K.recording() as rec:
            bqr.qr_raw(A, ctx=ctx)
        for label, bits in (("all barriers", 0xFFFFFFFF), ("light barriers", LIGHT)):
            K.barrier_bits = bits
            bqr.qr_raw(A, ctx=ctx)
            e2e = min(_timed(lambda: bqr.qr_raw(A, ctx=ctx)) for _ in range(repeat))
            tot, issue = factor_split(ctx, A, repeat)
            print(f"{m}x{n} {label}: e2e {e2e * 1e3:.2f} ms; factor {tot * 1e3:.2f} ms, of which issuing "
                  f"{issue * 1e3:.2f} ms; {rec.count()} draws, {tot / rec.count() * 1e6:.1f} us per draw", flush=True)
        K.barrier_bits = 0xFFFFFFFF
    if profile:
        import cProfile
        import pstats
        m, n = shapes[0]
        A = rng.standard_normal((m, n)).astype(np.float32)
        pr = cProfile.Profile()
        pr.enable()
        bqr.qr_raw(A, ctx=ctx)
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(12)


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main(*sys.argv[1:])
