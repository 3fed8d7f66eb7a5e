"""The blocked QR's row chunk (how many rows one fragment of the chunked reductions
sums: bqr_dots_reflect, bqr_vtc) against shape, kernel alone (A already uploaded,
first draw to glFinish, best of `repeat`) and the public call end to end.  A small
chunk means many fragments and short serial loops in those draws, but a longer
chain in the passes that sum the chunks (bqr_house, bqr_w1sum).

    python benchmarks/qr_chunk_sweep.py [MxN,...] [chunks] [repeat]
    e.g. python benchmarks/qr_chunk_sweep.py 6144x384,384x6144 16,32,64,128,256 3
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


def main(shapes="6144x384,384x6144,2048x128,128x2048", chunks="16,32,64,128,256,512", repeat=3):
    ctx = resolve(None)
    print(ctx.caps.renderer, flush=True)
    rng = np.random.default_rng(2)
    for shape in shapes.split(","):
        m, n = (int(v) for v in shape.split("x"))
        A = rng.standard_normal((m, n)).astype(np.float32)
        for chunk in (int(c) for c in chunks.split(",")):
            best = float("inf")
            for _ in range(int(repeat) + 1):
                a_tex = upload_rgba(ctx, A, m, padded(n, 4), "A")
                ctx.finish()
                t0 = time.perf_counter()
                tt = bqr.qr_texture(a_tex, m, n, chunk=chunk, ctx=ctx)
                ctx.finish()
                best = min(best, time.perf_counter() - t0)
                ctx.pool.give(a_tex, tt)
            e2e = float("inf")
            for _ in range(int(repeat)):
                t0 = time.perf_counter()
                bqr.qr_raw(A, chunk=chunk, ctx=ctx)
                e2e = min(e2e, time.perf_counter() - t0)
            print(f"{m}x{n} chunk {chunk}: kernel {best * 1e3:.2f} ms, end to end {e2e * 1e3:.2f} ms", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
