"""Fig. 8 of the 2008 paper: A D^2 A^T, full and packed (n = 2m), the paper's
kernels and the blocked ones, against numpy and ssyrk on the host."""
from __future__ import annotations

import time

import numpy as np

from .. import blocked
from ..gl import Stopwatch, resolve
from ..gl.transfer import upload_rgba
from ..paper import assemble_texture
from ..teach import counts
from .common import best_of, make_row, progress


def _host_syrk(A, d2):
    from scipy.linalg.blas import ssyrk

    As = A * np.sqrt(d2)[None, :]
    return ssyrk(1.0, As, lower=1)


def time_blocked_adat(ctx, A, d2, repeat, tile=None, variant=None, packed=False):
    m, n = A.shape
    n4 = -(-n // 4) * 4
    a_tex = upload_rgba(ctx, A, m, n4, "A")
    d_tex = upload_rgba(ctx, d2[None, :], 1, n4, "d")
    kw = {"tile": tile} if tile else {}
    if variant is not None:
        kw["variant"] = variant
    if packed:
        kw["packed"] = True

    def run():
        ctx.finish()
        t0 = time.perf_counter()
        c = blocked.adat_texture(a_tex, d_tex, m, ctx=ctx, **kw)
        ctx.finish()
        dt = time.perf_counter() - t0
        ctx.pool.give(c)
        return dt

    run()
    t = min(run() for _ in range(max(1, repeat)))
    ctx.pool.give(a_tex, d_tex)
    return t


def assembly(ctx=None, sizes=(64, 128), repeat: int = 2, ceil=None, blocked_tiles=(None, "packed")) -> list:
    ctx = resolve(ctx)
    rng = np.random.default_rng(8)
    rows = []
    warm = rng.random((8, 16), dtype=np.float32)
    ctx.pool.give(assemble_texture(warm, warm[0] + 1, ctx=ctx))
    for m in progress(list(sizes), "assembly"):
        n = 2 * m
        A = rng.random((m, n), dtype=np.float32)
        d2 = rng.random(n, dtype=np.float32)
        host_np = best_of(lambda: (A * d2) @ A.T, repeat)
        host_syrk = best_of(lambda: _host_syrk(A, d2), repeat)
        host = min(host_np, host_syrk)
        frags, byts = counts.total(counts.assembly(m, n))
        for packed in (False, True):
            best = None
            for _ in range(max(1, repeat)):
                w = Stopwatch(ctx)
                tex = assemble_texture(A, d2, packed=packed, ctx=ctx, watch=w)
                t0 = time.perf_counter()
                tex.read()
                readback = time.perf_counter() - t0
                ctx.pool.give(tex)
                s = w.as_dict()
                run = (s.get("assemble", 0.0), s.get("transfer", 0.0) + readback)
                best = run if best is None or run[0] < best[0] else best
            t, transfers = best
            rows.append(make_row("assembly", ctx, m, n, "packed" if packed else "full", t, frags, byts, ceil,
                             host, extra={"seconds_with_transfers": t + transfers,
                                          "host_numpy_s": host_np, "host_ssyrk_s": host_syrk,
                                          "draws": counts.draws_assembly(n),
                                          "tflop_s": m * m * n / t / 1e12}))
        if ctx.caps.image_load_store:
            for tile in blocked_tiles:
                packed = tile == "packed"
                t = time_blocked_adat(ctx, A, d2, repeat, None if packed else tile, packed=packed)
                name = ("blocked-packed" if packed else "blocked" if tile is None
                        else f"blocked-{tile[0]}x{tile[1]}")
                row = make_row("assembly", ctx, m, n, name, t, frags, byts, ceil, host,
                           extra={"host_numpy_s": host_np, "host_ssyrk_s": host_syrk, "draws": 1,
                                  "tflop_s": m * m * n / t / 1e12})
                row["gfrag_s"] = row["gb_s"] = row["frac_copy_ceiling"] = ""    # not one fragment per FMA
                if ceil:
                    row["frac_fma_ceiling"] = m * m * n / t / 1e12 / ceil["fma_tflop_s"]
                rows.append(row)
    return rows
