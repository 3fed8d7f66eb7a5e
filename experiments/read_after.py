"""Does how a texture was last written change how fast it reads back?  An m x m RGBA
result read with glGetTexImage after (a) a plain upload, (b) a framebuffer clear,
(c) blocked_adat's image stores into a cleared texture, (d) the same into a texture
zeroed by an upload instead of a clear; each read directly (the driver's
glGetTexImage), through a GPU-side copy into a storage buffer then the buffer read,
and as the library reads (MatrixTexture.read: the mapped buffers of gl/staging.py on
hardware drivers).

    python benchmarks/read_after.py [m] [repeat]"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import sys
import time

import numpy as np

from glgpgpu.blocked.adat import product_texture
from glgpgpu.gl import resolve
from glgpgpu.gl.transfer import upload_rgba


def main(m=1024, repeat=7):
    m, repeat = int(m), int(repeat)
    ctx = resolve(None)
    K = ctx.kernels
    rng = np.random.default_rng(0)
    A = rng.random((m, 2 * m), dtype=np.float32)
    a_tex = upload_rgba(ctx, A, m, 2 * m, "A")
    d_tex = upload_rgba(ctx, np.ones((1, 2 * m), np.float32), 1, 2 * m, "d")
    zeros = np.zeros((m, m // 4, 4), np.float32)
    out = np.empty((m, m // 4, 4), np.float32)

    buf = K.scratch_buffer("read probe", m * m * 4)

    def through_buffer(tex):
        tex.copy_into_buffer(buf)            # GPU-side copy into a linear buffer
        buf.read_into(out)

    def read_time(prepare, read=lambda tex: tex.tex.read_into(out, alignment=4)):
        ts = []
        for _ in range(repeat + 1):
            tex = ctx.pool.take(m, m // 4, "C", components=4)
            prepare(tex)
            ctx.finish()
            t0 = time.perf_counter()
            read(tex)
            ts.append(time.perf_counter() - t0)
            ctx.pool.give(tex)
        return min(ts[1:]) * 1e3

    cases = {
        "after an upload": lambda t: t.write(zeros),
        "after a clear": lambda t: t.clear(0.0),
        "after image stores, cleared first": lambda t: (t.clear(0.0), product_texture(t, a_tex, a_tex, d_tex, m, ctx=ctx)),
        "after image stores, zeroed by upload": lambda t: (t.write(zeros), product_texture(t, a_tex, a_tex, d_tex, m, ctx=ctx)),
    }
    print(ctx.caps.renderer, f"m={m}: reading {m * m * 4 / 2**20:.0f} MiB")
    for name, prep in cases.items():
        print(f"  {name}: {read_time(prep):.2f} ms; through a buffer {read_time(prep, through_buffer):.2f} ms; "
              f"MatrixTexture.read {read_time(prep, lambda tex: tex.read(out)):.2f} ms", flush=True)
    ctx.pool.give(a_tex, d_tex)


if __name__ == "__main__":
    main(*sys.argv[1:])
