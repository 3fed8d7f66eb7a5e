"""How fast the fragment pipeline reads, by kind of fetch (shaders/bench/fetch_kinds.frag):
RGBA32F texelFetch (what blocked_adat's row side does), R32F texelFetch, R32F
textureGather (four texels a fetch), vec4 loads from a storage buffer with neighbouring
fragments on neighbouring addresses, and with one address per fragment row.  Data in
cache; a 4096 x 4096 grid of fragments, u_iters fetches each; GB/s and G fetches/s.

    python benchmarks/fetch_kinds.py [iters] [repeat]"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)

import os  # noqa: E402

# this folder's own kernels (experiments/shaders) beside the package's
os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))
import sys
import time

import numpy as np

from glgpgpu import figures as geo
from glgpgpu.gl import resolve


def main(iters=256, repeat=3):
    iters, repeat = int(iters), int(repeat)
    ctx = resolve(None)
    K = ctx.kernels
    size = 512 if ctx.caps.software else 4096
    if ctx.caps.software:
        iters = min(iters, 16)
    target = ctx.pool.take(size, size)
    rect = ctx.geometry.store([geo.rectangle(0, 0, size, size)])
    rgba = ctx.pool.take(64, 64, components=4)
    rgba.write(np.ones((64, 64, 4), np.float32))
    r32 = ctx.pool.take(64, 64)
    r32.write(np.ones((64, 64), np.float32))
    buf = ctx.gl.buffer(np.ones(64 * 64 * 4, np.float32).tobytes())
    print(ctx.caps.renderer, f"{size} x {size} fragments, {iters} fetches each")
    for name, tex, defines, nbytes in (("RGBA32F texelFetch", rgba, {}, 16),
                                       ("R32F texelFetch", r32, {"R32F_FETCH": 1}, 4),
                                       ("R32F textureGather", r32, {"GATHER": 1}, 16),
                                       ("SSBO vec4, neighbours adjacent", rgba, {"SSBO": 1}, 16),
                                       ("SSBO vec4, one address per row", rgba, {"SSBO_ROW_SHARED": 1}, 16)):
        def run():
            K.draw("fetch_kinds", target, rect[0], {"T": tex}, {"u_iters": iters}, defines=defines,
                   buffers={1: buf})
            ctx.finish()

        run()
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - t0)
        n = size * size * iters
        print(f"{name:34s} {n / best / 1e9:7.1f} G fetches/s {n * nbytes / best / 1e9:8.1f} GB/s", flush=True)
    buf.release()
    rect.release()
    ctx.pool.give(target, rgba, r32)


if __name__ == "__main__":
    main(*sys.argv[1:])
