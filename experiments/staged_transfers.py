"""Texture transfers, moderngl's direct path against the persistently mapped staging
buffers (gl/staging.py), for R32F and RGBA textures of a few sizes: upload of a fresh
caller array, and read-back of a texture the GPU wrote (a clear); the last column is
the library's own read (MatrixTexture.read: staged on hardware drivers; before the
staging it was a GPU-side copy into a buffer, run D's "read through a buffer").  Each timed from
the call to glFinish, best of `repeat`; checks the bits on the way.

    python benchmarks/staged_transfers.py [MiB,...] [repeat] [staging MiB] [threaded copies from KiB]"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import sys
import time

import numpy as np

from glgpgpu.gl import resolve
from glgpgpu.gl import staging
from glgpgpu.gl.staging import Stager, available
from glgpgpu.gl.textures import MatrixTexture


def best(fn, ctx, repeat):
    fn()
    t = float("inf")
    for _ in range(repeat):
        ctx.gl.finish()
        t0 = time.perf_counter()
        fn()
        ctx.gl.finish()
        t = min(t, time.perf_counter() - t0)
    return t


def main(sizes="4,8,64,256", repeat=5, staging_mib=64, threaded_from_kib=1024):
    repeat = int(repeat)
    staging.THREADED_COPY_FROM = int(threaded_from_kib) << 10
    ctx = resolve(None)
    print(ctx.caps.renderer, "staging available:", available(ctx.caps))
    st = Stager(int(staging_mib) << 20)
    rng = np.random.default_rng(0)
    print("MiB comps  up_direct_ms up_staged_ms  GB/s(staged)  read_direct_ms read_staged_ms MatrixTexture.read_ms")
    for mib in [int(s) for s in str(sizes).split(",")]:
        for comps in (1, 4):
            n = mib << 18                       # floats
            cols = 4096 if comps == 1 else 1024
            rows = n // (cols * comps)
            tex = MatrixTexture(ctx, rows, cols, components=comps)
            shape = (rows, cols) if comps == 1 else (rows, cols, comps)
            a = rng.standard_normal(shape).astype(np.float32)
            out = np.empty_like(a)
            up_d = best(lambda: tex.tex.write(a), ctx, repeat)
            up_s = best(lambda: st.upload(tex.tex.glo, a.reshape(rows, -1), 0, 0, comps), ctx, repeat)
            st.read(tex.tex.glo, out.reshape(rows, -1), 0, 0, comps)
            assert np.array_equal(out, a), "staged round trip differs"
            tex.clear(0.5)                      # a texture the GPU wrote
            rd_d = best(lambda: tex.tex.read_into(out, alignment=4), ctx, repeat)
            rd_s = best(lambda: st.read(tex.tex.glo, out.reshape(rows, -1), 0, 0, comps), ctx, repeat)
            rd_b = best(lambda: tex.read(out), ctx, repeat)
            assert (out == 0.5).all()
            print(f"{mib:4d} {comps:3d}  {up_d*1e3:10.2f} {up_s*1e3:12.2f} {a.nbytes/up_s/1e9:10.1f}"
                  f"  {rd_d*1e3:12.2f} {rd_s*1e3:14.2f} {rd_b*1e3:14.2f}")
            tex.release()
    st.release()


if __name__ == "__main__":
    main(*sys.argv[1:])
