"""Tile and panel sizes of the blocked kernels (`glgpgpu bench tune`): the numbers
behind blocked/tiles.py's defaults."""
from __future__ import annotations

import time

import numpy as np

from .. import blocked
from .. import figures as geo
from ..gl import resolve
from ..gl.transfer import upload_rgba
from .assembly import time_blocked_adat


ADAT_VARIANTS = (("textures", {}), ("buffers", {"BUFFER_LOADS": 1}), ("A-from-buffer", {"A_FROM_BUFFER": 1}),
                 ("AD-from-buffer", {"AD_FROM_BUFFER": 1}), ("hold-rows", {"HOLD_ROWS": 1}),
                 ("A-from-buffer-k-unroll-2", {"A_FROM_BUFFER": 1, "KUNROLL": 2}))


def tune_blocked(ctx=None, m: int = 2048, repeat: int = 1, tiles=(4, 8), panels=(8, 16),
                 adat_tiles=((8, 8), (16, 8), (24, 8), (12, 4))) -> list:
    """Tile and panel sizes of the blocked kernels, one run: A D^2 A^T with n = 2m
    for each (BR, BC) tile, Cholesky for each trailing tile B and panel P."""
    ctx = resolve(ctx)
    rng = np.random.default_rng(10)
    A = rng.random((m, 2 * m), dtype=np.float32)
    d2 = rng.random(2 * m, dtype=np.float32)
    X = rng.random((m, m), dtype=np.float32)
    C = (X @ X.T + m * np.eye(m, dtype=np.float32)).astype(np.float32)
    rows = []
    for name, variant in ADAT_VARIANTS:
        for tile in adat_tiles:
            t = time_blocked_adat(ctx, A, d2, repeat, tile, variant)
            rows.append({"suite": "tune", "kernel": f"adat-{name}", "m": m, "B": f"{tile[0]}x{tile[1]}",
                         "P": "", "seconds": t, "tflop_s": m * m * 2 * m / t / 1e12})
    for B, P in ((4, 16), (8, 16), (4, 32), (8, 32), (8, 64), (16, 64)):
        t = time_trailing_update(ctx, m, B, P)
        n = m - P
        rows.append({"suite": "tune", "kernel": "trailing-update", "m": m, "B": B, "P": P, "seconds": t,
                     "tflop_s": P * n * (n + 1) / t / 1e12})     # 2 flops x P x n(n+1)/2 entries
    for B, P, variant in [(B, P, v) for B in tiles for P in panels for v in ({}, {"COLS_FROM_BUFFER": 1})]:
        if P % B or P % 4:
            continue
        mp = blocked.padded(m, P)

        def run():
            tex = upload_rgba(ctx, np.tril(C), mp, mp, "C")
            ctx.finish()
            t0 = time.perf_counter()
            out = blocked.factor_texture(tex, m, P=P, B=B, ctx=ctx, variant=variant)
            ctx.finish()
            dt = time.perf_counter() - t0
            ctx.pool.give(out)
            return dt

        run()
        t = min(run() for _ in range(max(1, repeat)))
        rows.append({"suite": "tune", "kernel": "cholesky" + ("-cols-from-buffer" if variant else ""),
                     "m": m, "B": B, "P": P, "seconds": t,
                     "tflop_s": m ** 3 / 3 / t / 1e12})
    return rows


def time_trailing_update(ctx, m: int, B: int, P: int, variant: dict | None = None, passes: int = 10) -> float:
    """Seconds of one blocked trailing update (rank P, over the lower block
    triangle of an m x m matrix, the first panel's), averaged over `passes`."""
    K = ctx.kernels
    rng = np.random.default_rng(11)
    mp = blocked.padded(m, P)
    a_tex = upload_rgba(ctx, np.tril(rng.random((mp, mp), dtype=np.float32)), mp, mp, "A")
    pnl = ctx.pool.take(mp, P // 4, components=4)
    pnl.write(rng.random((mp, P // 4, 4), dtype=np.float32) * 1e-3)
    G = mp // B
    kk = P // B - 1
    d = {"P": P, "B": B, **(blocked.UPDATE_VARIANT if variant is None else variant)}
    pbuf = None
    if "COLS_FROM_BUFFER" in d:
        pbuf = {1: K.scratch_buffer("PNL", mp * P * 4)}
        pnl.copy_into_buffer(pbuf[1])
    grid = K.grid(G, G)
    tri = geo.fig5_outer_product_sub(G, kk)
    K.draw("blocked_update", grid, tri, {"PNL": pnl}, None, images={"A": a_tex}, defines=d, buffers=pbuf)
    ctx.finish()
    t0 = time.perf_counter()
    for _ in range(passes):
        K.draw("blocked_update", grid, tri, {"PNL": pnl}, None, images={"A": a_tex}, defines=d, buffers=pbuf)
    ctx.finish()
    ctx.pool.give(a_tex, pnl)
    return (time.perf_counter() - t0) / passes
