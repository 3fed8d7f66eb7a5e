"""Blocked triangular solves: one pass per P unknowns (panel of L)."""
from __future__ import annotations

import numpy as np

from ..gl import Context, resolve
from ..layouts.transfer import upload_rgba
from .tiles import P_PANEL, padded, rect_rows, require


def substitute_texture(l_tex, m: int, b_tex, *, backward: bool, P: int = P_PANEL, ctx: Context | None = None):
    """Blocked forward (L y = b) or backward (L^T x = y) substitution; `b_tex`
    (mp x nrhs, R32F) is consumed, the result returned."""
    ctx = resolve(ctx)
    K = ctx.kernels
    mp = l_tex.rows
    S, T = b_tex, K.pool.take(b_tex.rows, b_tex.cols)
    rect = rect_rows(K, 0, b_tex.cols, 0, mp)
    panels = range(mp - P, -1, -P) if backward else range(0, mp, P)
    for kb in panels:
        K.draw("blocked_solve", T, rect, {"L": l_tex, "Bs": S},
               {"u_kb": kb, "u_m": m, "u_backward": int(backward)}, defines={"P": P})
        S, T = T, S
    K.pool.give(T)
    return S


def solve(L_lower: np.ndarray, Bm: np.ndarray, steps, *, packed: bool = False, ctx: Context | None = None,
          P: int = P_PANEL):
    """Substitutions `steps` (False forward with L, True backward with L^T) on the
    right-hand sides Bm (m x nrhs float32); the same signature as paper.solve."""
    if packed:
        raise ValueError("the blocked solves have no packed layout")
    ctx = resolve(ctx)
    require(ctx)
    m = L_lower.shape[0]
    mp = padded(m, P)
    l_tex = upload_rgba(ctx, L_lower, mp, mp, "L")
    x = np.zeros((mp, Bm.shape[1]), np.float32)
    x[:m] = Bm
    t = ctx.kernels.pool.take(mp, Bm.shape[1])
    t.write(x)
    try:
        for backward in steps:
            t = substitute_texture(l_tex, m, t, backward=backward, P=P, ctx=ctx)
        return t.read()[:m]
    finally:
        ctx.kernels.pool.give(l_tex, t)
