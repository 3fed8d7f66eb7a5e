"""The rectangular packed format built and read on the GPU): packing
and unpacking are one draw each over the target rectangle, so a packed matrix on
its way to or from the GPU costs one pass, not a numpy scatter.  The numpy
`layouts.pack` / `layouts.unpack` stay the reference these are tested against.
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import engine
from ..layouts.triangle import layout_for


def _rect(ctx, w, h):
    return ctx.geometry.cached_store(("rect", w, h), lambda: [geo.rectangle(0, 0, w, h)])[0]


def pack_texture(full_tex, m: int, *, ctx=None):
    """A pooled packed texture (Fig. 3) holding the lower triangle of `full_tex` (m x m)."""
    ctx = engine(ctx or full_tex.ctx)
    K = ctx.kernels
    lay = layout_for(m, True)
    ctx.check_size(lay.height, lay.width, f"the packed matrix (m={m})", hint=ctx.TILED_HINT)
    out = ctx.pool.take(lay.height, lay.width)
    K.draw("pack_lower", out, _rect(ctx, lay.width, lay.height), {"S": full_tex}, {"u_m": m})
    return out


def unpack_texture(tex, m: int, packed: bool, *, ctx=None):
    """A pooled m x m texture: the lower triangle of `tex` (full or packed), upper zero."""
    ctx = engine(ctx or tex.ctx)
    K = ctx.kernels
    out = ctx.pool.take(m, m)
    K.draw("unpack_lower", out, _rect(ctx, m, m), {"P": tex}, {"u_m": m, "u_packed": int(packed)})
    return out


def upload_and_pack(M: np.ndarray, packed: bool, ctx, what: str = "matrix"):
    """A pooled texture with the lower triangle of M (float32) in the chosen layout:
    M's lower triangle goes up as it is (no host copy; the kernels read only
    i >= j), and the packed layout is drawn from it on the GPU."""
    m = M.shape[0]
    ctx.check_size(m, m, f"{what} (m={m})", hint=ctx.TILED_HINT)
    full = ctx.pool.take(m, m)
    full.write_lower(M)                     # about half the bytes when M is C-contiguous float32
    if not packed:
        return full
    try:
        return pack_texture(full, m, ctx=ctx)
    finally:
        ctx.pool.give(full)


def unpack_and_read(tex, m: int, packed: bool, *, ctx=None) -> np.ndarray:
    """The (m, m) float32 lower triangle (upper zero) of a full or packed texture,
    expanded on the GPU and read straight into the result (on the texture's context)."""
    ctx = engine(ctx or tex.ctx)
    full = unpack_texture(tex, m, packed, ctx=ctx)
    try:
        return full.read()
    finally:
        ctx.pool.give(full)
