"""Blocked triangular solves: one pass per P unknowns (panel of L)."""
from __future__ import annotations

from ..gl import Context, engine
from .sizes import P_PANEL, rect_rows


def substitute_texture(l_tex, m: int, b_tex, *, backward: bool, P: int = P_PANEL, ctx: Context):
    """Blocked forward (L y = b) or backward (L^T x = y) substitution; `b_tex`
    (mp x nrhs, R32F) is consumed, the result returned."""
    ctx = engine(ctx)
    K = ctx.kernels
    mp = l_tex.rows
    S, T = b_tex, ctx.pool.take(b_tex.rows, b_tex.cols)
    rect = rect_rows(ctx, 0, b_tex.cols, 0, mp)
    panels = range(mp - P, -1, -P) if backward else range(0, mp, P)
    for kb in panels:
        K.draw("blocked_solve", T, rect, {"L": l_tex, "Bs": S},
               {"u_kb": kb, "u_m": m, "u_backward": int(backward)}, defines={"P": P})
        S, T = T, S
    ctx.pool.give(T)
    return S
