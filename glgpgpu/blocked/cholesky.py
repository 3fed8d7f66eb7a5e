"""Blocked Cholesky, right-looking with panels of P columns: one pass factors the
whole panel (each fragment recomputes the small diagonal block, then its own
row), one register-blocked pass updates the trailing lower block triangle
(Fig. 5's triangle on the block grid), one pass copies the panel back.  The
matrix is padded to a multiple of P with the identity."""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Context, resolve
from .tiles import B_TILE, P_PANEL, UPDATE_VARIANT, rect_rows, require




def factor_texture(c_tex, m: int, *, P: int = P_PANEL, B: int = B_TILE, pivot_floor: float | None = None,
                   regularize: bool = False,
                   ctx: Context | None = None, variant: dict | None = None):
    """Factor blocked C (RGBA, mp/4 x mp, mp a multiple of P) in place; returns it."""
    ctx = resolve(ctx)
    require(ctx)
    K = ctx.kernels
    mp = c_tex.rows
    if mp % P or P % B or P % 4:
        raise ValueError(f"blocked Cholesky needs the padded order ({mp}) a multiple of P={P}, "
                         f"and P a multiple of B={B} and of 4")
    pnl = K.pool.take(mp, P // 4, components=4)
    G = mp // B
    grid_update = K.grid(G, G)
    floor = -1.0 if pivot_floor is None else float(pivot_floor)
    d = {"P": P, "B": B, **(UPDATE_VARIANT if variant is None else variant)}
    pbuf = {1: K.scratch_buffer("PNL", mp * P * 4)} if "COLS_FROM_BUFFER" in d else None
    # every step's rectangles and triangle in one vertex buffer, kept across calls of
    # this size (per-draw cached stores thrashed the store cache: 3 mp/P of them)
    steps = K.cached_steps(("blocked-cholesky", mp, P, B), lambda: [
        (geo.rectangle(0, kb, 1, mp),
         geo.fig5_outer_product_sub(G, (kb + P) // B - 1) if kb + P < mp else None,
         geo.rectangle(0, kb, P // 4, mp)) for kb in range(0, mp, P)])
    for kb, (panel, tri, back) in zip(range(0, mp, P), steps):
        K.draw("blocked_panel", K.grid(1, mp), panel, None,
               {"u_kb": kb, "u_m": m, "u_floor": floor, "u_regularize": int(regularize)}, images={"A": c_tex, "PNL": pnl}, defines={"P": P})
        if tri is not None:
            if pbuf:
                pnl.copy_into_buffer(pbuf[1])
            K.draw("blocked_update", grid_update, tri, {"PNL": pnl}, None, images={"A": c_tex}, defines=d,
                   buffers=pbuf)
        K.draw("blocked_copyback", K.grid(P // 4, mp), back, {"PNL": pnl},
               {"u_kb": kb}, images={"A": c_tex})
    K.pool.give(pnl)
    return c_tex


def diagonal(l_tex, m: int, ctx: Context | None = None) -> np.ndarray:
    ctx = resolve(ctx)
    K = ctx.kernels
    out = K.pool.take(1, m)
    K.draw("blocked_diagonal", out, rect_rows(K, 0, m, 0, 1), {"L": l_tex}, {"u_m": m})
    d = out.read()[0]
    K.pool.give(out)
    return d
