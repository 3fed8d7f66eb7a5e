"""Triangular solves on the GPU (Jung 2006, level-2 kernels: forward and backward
substitution, multipass).

The right-hand sides live in an m x nrhs texture (one column per right-hand
side).  Pass k of forward substitution solves unknown k and removes it from the
rows below, for all right-hand sides at once; backward substitution with L^T
runs k from m-1 down.  L stays in its texture (full or packed layout), so a
factor computed by `cholesky` is used where it lies.
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Context, PingPong, engine, resolve
from .packing import upload_and_pack


def substitute_texture(l_tex, m: int, b_tex, *, packed: bool, backward: bool,
                       ctx: Context | None = None):
    """Solve L y = B (backward=False) or L^T x = B (backward=True) on the GPU.
    `b_tex` (m x nrhs) is consumed; returns the texture with the solution."""
    ctx = resolve(ctx)
    K = ctx.kernels
    pp = PingPong(b_tex, ctx.pool.take(b_tex.rows, b_tex.cols))
    rect = ctx.geometry.cached_store(("rect", b_tex.cols, m), lambda: [geo.rectangle(0, 0, b_tex.cols, m)])[0]
    order = range(m - 1, -1, -1) if backward else range(m)
    base = {"u_m": m, "u_packed": int(packed), "u_backward": int(backward)}
    for k in order:
        K.draw("triangular_solve", pp.target, rect, {"L": l_tex, "B": pp.source}, dict(base, u_k=k))
        pp.swap()
    ctx.pool.give(pp.target)
    return pp.source


def solve(L_lower: np.ndarray, B2: np.ndarray, steps, *, packed: bool = False,
          ctx: Context) -> np.ndarray:
    """Apply the substitutions `steps` (False: forward with L, True: backward with
    L^T) to the right-hand sides B2 (m x nrhs float32); L_lower is float32, only
    its lower triangle read, uploaded in the chosen layout.  Returns float32 (m, nrhs)."""
    ctx = engine(ctx)
    m = L_lower.shape[0]
    ctx.check_size(m, B2.shape[1], "the right-hand sides B", hint=ctx.TILED_HINT)
    l_tex = upload_and_pack(L_lower, packed, ctx, "the triangular matrix")
    x_tex = ctx.pool.take(m, B2.shape[1])
    x_tex.write(B2)
    try:
        for backward in steps:
            x_tex = substitute_texture(l_tex, m, x_tex, packed=packed, backward=backward, ctx=ctx)
        return x_tex.read()
    finally:
        ctx.pool.give(l_tex, x_tex)
