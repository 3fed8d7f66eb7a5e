"""The fragment pipeline's own limits on this device: copy-pass fill rate, FMA-loop
peak, RGBA fetch rate, and the cost of one dependent draw (host issue vs GPU)."""
from __future__ import annotations

import time

import numpy as np

from .. import figures as geo
from ..gl import GPUTimer, resolve
from .common import best_of


def ceiling(ctx=None, size: int = 4096, repeat: int = 3) -> dict:
    """Copy fill rate, FMA peak, dependent-draw cost on this device."""
    ctx = resolve(ctx)
    K = ctx.kernels
    size = min(size, ctx.max_texture_size)
    a = ctx.pool.take(size, size)
    b = ctx.pool.take(size, size)
    a.clear(1.0)
    st = ctx.geometry.store([geo.rectangle(0, 0, size, size), geo.rectangle(0, 0, 1, 1)])
    full, one = st[0], st[1]
    passes = 20

    def copies():
        s, t = a, b
        for _ in range(passes):
            K.draw("copy", t, full, {"S": s})
            s, t = t, s
        ctx.finish()

    copies()
    t_copy = best_of(copies, repeat)
    fill = passes * size * size / t_copy

    iters = 64 if "llvmpipe" in ctx.caps.renderer else 512
    fsize = min(size, 512) if "llvmpipe" in ctx.caps.renderer else size

    fma_rect = ctx.geometry.store([geo.rectangle(0, 0, fsize, fsize)])

    def fma():
        K.draw("fma_loop", a, fma_rect[0], uniforms={"u_iters": iters})
        ctx.finish()

    fma()
    t_fma = best_of(fma, repeat)
    flops = 32.0 * iters * fsize * fsize / t_fma

    # RGBA32F fetch rate from cache
    small = ctx.pool.take(64, 64, components=4)
    small.write(np.ones((64, 64, 4), np.float32))
    fiters = 16 if "llvmpipe" in ctx.caps.renderer else 256

    def fetches():
        K.draw("fetch_loop", a, fma_rect[0], {"T": small}, {"u_iters": fiters})
        ctx.finish()

    fetches()
    t_fetch = best_of(fetches, repeat)
    fetch_rate = fiters * fsize * fsize / t_fetch
    ctx.pool.give(small)

    c = ctx.pool.take(1, 1)
    d = ctx.pool.take(1, 1)
    ndep = 2000

    timer = GPUTimer(ctx)

    def dependent():
        s, t = c, d
        t0 = time.perf_counter()
        with timer:                 # GL timer query: time the GPU spent on the chain
            for _ in range(ndep):
                K.draw("copy", t, one, {"S": s})
                s, t = t, s
        issued = time.perf_counter() - t0
        ctx.finish()
        return issued, time.perf_counter() - t0, timer.seconds

    dependent()
    issue, tot, gpu = min(dependent() for _ in range(max(1, repeat)))
    ctx.pool.give(a, b, c, d)
    st.release()
    fma_rect.release()
    return {
        "copy_fill_gfrag_s": fill / 1e9,
        "copy_gb_s": fill * 8 / 1e9,
        "fma_tflop_s": flops / 1e12,
        "rgba_fetch_g_s": fetch_rate / 1e9,
        "dependent_draw_us": tot / ndep * 1e6,
        "draw_issue_us": issue / ndep * 1e6,
        "draw_gpu_us": gpu / ndep * 1e6,
        "copy_size": size,
        "fma_iters": iters,
    }
