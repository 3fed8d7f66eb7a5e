"""Blocked Cholesky, right-looking with panels of P columns: one pass factors the
whole panel (each fragment recomputes the small diagonal block, then its own
row), one register-blocked pass updates the trailing lower block triangle
(Fig. 5's triangle on the block grid), one pass copies the panel back.  The
matrix is padded to a multiple of P with the identity.

slab=W (the default: SLAB from order SLAB_FROM on): the same passes, but a panel's update stops at the
end of its slab of W columns; the columns after the slab get all W of its
columns at once, from one blocked_adat product (C -= L_S L_S^T, the kernel
that runs near half the FMA ceiling) instead of W/P rank-P updates (a sixth of
it).  slab=0: every panel updates the whole trailing triangle (the form above).
The two give the same bits: every entry gets the same 4-term dot products added
in the same order (tests/api/test_cholesky.py)."""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Context, engine
from .adat import Cover, product_texture
from . import sizes
from .sizes import ADAT_BLOCK, UPDATE_BLOCK, P_PANEL, constant_d, rect_rows, require


def _slab_ends(mp: int, W: int):
    """The end column of each panel's slab (mp when there are no slabs)."""
    return lambda kb: mp if not W else min(mp, (kb // W + 1) * W)


def factor_texture(c_tex, m: int, *, P: int = P_PANEL, B: int = UPDATE_BLOCK, pivot_floor: float | None = None,
                   regularize: bool = False, slab: int | None = None,
                   ctx: Context):
    """Factor blocked C (RGBA, mp/4 x mp, mp a multiple of P) in place; returns it.
    slab: columns per slab (None: SLAB from order SLAB_FROM on, else none; 0: no
    slabs, every update over the whole trailing triangle); a multiple of P and of
    the product's tile."""
    ctx = engine(ctx)
    require(ctx)
    K = ctx.kernels
    mp = c_tex.rows
    if mp % P or P % B or P % 4:
        raise ValueError(f"blocked Cholesky needs the padded order ({mp}) a multiple of P={P}, "
                         f"and P a multiple of B={B} and of 4")
    W = (sizes.SLAB if mp >= sizes.SLAB_FROM else 0) if slab is None else int(slab)
    BT = ADAT_BLOCK[0]
    if W and (W % P or W % BT or ADAT_BLOCK[0] != ADAT_BLOCK[1]):
        raise ValueError(f"slab={W} must be a multiple of P={P} and of the product's block {ADAT_BLOCK}")
    if W >= mp:
        W = 0                                    # one slab: nothing is deferred
    end = _slab_ends(mp, W)
    G = mp // B
    grid_update = K.grid(G, G)
    floor = -1.0 if pivot_floor is None else float(pivot_floor)
    d = {"P": P, "B": B}
    # every step's rectangles and update geometry in one vertex buffer, kept across calls of
    # this size (per-draw cached stores thrashed the store cache: 3 mp/P of them)
    steps = ctx.geometry.cached_steps(("blocked-cholesky", mp, P, B, W), lambda: [
        (geo.rectangle(0, kb, 1, mp),
         geo.block_trapezoid(G, (kb + P) // B - 1, end(kb) // B) if kb + P < end(kb) else None,
         geo.rectangle(0, kb, P // 4, mp),
         geo.rectangle(0, end(kb), P // 4, mp) if end(kb) < mp else None,
         geo.block_trapezoid(mp // BT, end(kb) // BT - 1, mp // BT) if kb + P == end(kb) < mp else None)
        for kb in range(0, mp, P)])
    pnl = ctx.pool.take(mp, P // 4, components=4)
    held = [pnl]
    try:
        pbuf = {1: K.scratch_buffer("PNL", mp * P * 4)}
        if W:
            # the slab's finished columns (rows below the slab are all the product reads),
            # and d = -1 for the product: C += (L_S D) L_S^T
            slab_cols = ctx.pool.take(mp, W // 4, "the slab's columns", components=4)
            held.append(slab_cols)
            minus = constant_d(ctx, -1.0, W)
            held.append(minus)
        for kb, (panel, upd, back, to_slab, trailing) in zip(range(0, mp, P), steps):
            K.draw("blocked_panel", K.grid(1, mp), panel, None,
                   {"u_kb": kb, "u_m": m, "u_floor": floor, "u_regularize": int(regularize)},
                   images={"A": c_tex, "PNL": pnl}, defines={"P": P})
            if upd is not None:
                if pbuf:
                    pnl.copy_into_buffer(pbuf[1])
                K.draw("blocked_update", grid_update, upd, {"PNL": pnl}, None, images={"A": c_tex}, defines=d,
                       buffers=pbuf)
            K.draw("blocked_copyback", K.grid(P // 4, mp), back, {"PNL": pnl},
                   {"u_kb": kb}, images={"A": c_tex})
            if to_slab is not None:
                K.draw("blocked_copyback", K.grid(P // 4, mp), to_slab, {"PNL": pnl},
                       {"u_kb": kb - kb // W * W}, images={"A": slab_cols})
            if trailing is not None:             # the slab is done: C[e:, e:] -= L_S L_S^T
                product_texture(c_tex, slab_cols, slab_cols, minus, mp, block=ADAT_BLOCK, first=False,
                                cover=Cover(region=trailing), ctx=ctx)
    finally:
        ctx.pool.give(*held)
    return c_tex


def diagonal(l_tex, m: int, *, ctx: Context) -> np.ndarray:
    ctx = engine(ctx)
    K = ctx.kernels
    out = ctx.pool.take(1, m)
    K.draw("blocked_diagonal", out, rect_rows(ctx, 0, m, 0, 1), {"L": l_tex}, {"u_m": m})
    d = out.read()[0]
    ctx.pool.give(out)
    return d
