"""Does uploading only a lower triangle pay on this driver?  A float32 m x m array
goes into an R32F texture (the paper's layout) whole (one glTexSubImage2D), or as
row bands of its lower trapezoids straight from the caller's array
(GL_UNPACK_ROW_LENGTH = m: no host copy), about half the bytes; and
MatrixTexture.write_lower, which does the latter and clears what lies above.
(H100, 2026-11-23, m = 4096: whole 20 ms, 16 bands 11 ms; a clear *before* the
bands 119 ms; RGBA in 16 bands 118 ms against 23 ms whole.)

    python benchmarks/gpu_lower_upload.py [m] [bands,...]"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import ctypes
import ctypes.util
import sys
import time

import numpy as np

from glgpgpu.gl import resolve

GL_TEXTURE_2D, GL_RED, GL_FLOAT = 0x0DE1, 0x1903, 0x1406
GL_UNPACK_ROW_LENGTH, GL_UNPACK_ALIGNMENT = 0x0CF2, 0x0CF5


def gl():
    lib = ctypes.CDLL(ctypes.util.find_library("OpenGL") or ctypes.util.find_library("GL"))
    return lib.glPixelStorei, lib.glTexSubImage2D


def main(m=4096, bands="1,4,8,16,32"):
    m = int(m)
    ctx = resolve(None)
    store, sub = gl()
    L = np.tril(np.random.default_rng(0).random((m, m), dtype=np.float32))
    tex = ctx.pool.take(m, m, "L")

    def whole():
        tex.write(L)

    def lower(nb):
        def go():
            ctx.make_current()
            tex.tex.use(0)
            store(GL_UNPACK_ALIGNMENT, 4)
            store(GL_UNPACK_ROW_LENGTH, m)
            cuts = np.linspace(0, m, nb + 1).astype(int)
            for r0, r1 in zip(cuts[:-1], cuts[1:]):
                sub(GL_TEXTURE_2D, 0, 0, int(r0), int(r1), int(r1 - r0), GL_RED, GL_FLOAT,
                    ctypes.c_void_p(L.ctypes.data + int(r0) * m * 4))
            store(GL_UNPACK_ROW_LENGTH, 0)
        return go

    def best(fn, n=5):
        fn()
        ctx.finish()
        ts = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            ctx.finish()
            ts.append(time.perf_counter() - t0)
        return min(ts)

    print(ctx.caps.renderer, f"m={m}: whole {best(whole) * 1e3:.2f} ms ({L.nbytes / 2**20:.0f} MiB)")
    print(f"  MatrixTexture.write_lower (R32F: bands, then the GPU clears above them): "
          f"{best(lambda: tex.write_lower(L)) * 1e3:.2f} ms")
    rgba = ctx.pool.take(m, m // 4, "L rgba", components=4)
    L4 = L.reshape(m, m // 4, 4)
    print(f"  RGBA whole {best(lambda: rgba.write(L4)) * 1e3:.2f} ms")
    ctx.pool.give(rgba)
    for nb in (int(b) for b in bands.split(",")):
        t = best(lower(nb))
        tex.write(np.zeros_like(L))
        lower(nb)()
        got = tex.read()
        ok = np.array_equal(np.tril(got), L)
        print(f"  lower triangle in {nb} bands: {t * 1e3:.2f} ms, "
              f"{(m * m / 2 + m * m / nb / 2) * 4 / 2**20:.0f} MiB, correct: {ok}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
