"""Cholesky factorization by rasterization.

variant="outer": Algorithm 5 of Jung & O'Leary (2008) / Algorithm 2 of Jung (2006).
  For k = 0 .. m-2, with ping-pong textures L_S, L_T:
    Kernel 3 (square root)   L_T <- L_S over the square at (k, k); copy back to L_S;
    Kernel 4 (normalization) L_T <- L_S over the k-th column below the diagonal; copy back;
    Kernel 5 (outer-product subtraction) L_T <- L_S over the oversized triangle of
      Fig. 5 (full format) or the triangles of Figs. 6 / 7 (packed format);
    swap.  Finally the square root of L(m-1, m-1) into L_T.
  In the packed format the loop splits in two halves: columns k < w draw two
  triangles (Figs. 6(a), 7(a)), the rest one (Figs. 6(b), 7(b)); sqrt and
  normalization are placed through the packed index map.
variant="triad": the same, but Kernel 5 takes one interpolated index triad per
  vertex instead of two coordinate pairs (Jung 2006, Fig. 5(c)).
variant="inner": inner-product form (Jung 2006, Algorithm 1, Fig. 3(c)).  Per k:
  square root and one copy of (k, k); normalization of column k into L_T; then
  the inner-product subtraction writes column k+1 into L_S, reading everything
  from L_T.  Both textures start as C, so L_T still holds C's column k+1 until
  it is needed; the only copy is the single diagonal texel (Fig. 4(a) of 2006).

A non-positive pivot makes the square-root kernel produce NaN; the diagonal is
gathered on the GPU and checked once at the end, and the first failed pivot is
named in a numpy.linalg.LinAlgError.
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..errors import NotPositiveDefiniteError
from ..gl import Context, PingPong, engine, resolve
from ..layouts.triangle import layout_for
from ..methods.contract import CHOLESKY_VARIANTS as VARIANTS    # declared by the contract
from .packing import unpack_and_read, upload_and_pack


def _diag_square(layout, k, label):
    x, y = layout.texel(k, k)
    return geo.texel_square(x, y, label=f"{label} ({k},{k})")


def factor_geometries(m: int, packed: bool, variant: str):
    """The draws' vertex tables, in the order the loop uses them."""
    lay = layout_for(m, packed)
    out = []
    for k in range(m - 1):
        out.append(_diag_square(lay, k, "square root / copy"))
        out.append(geo.column_run(lay, k, k + 1, m - 1, label=f"normalization / copy, column {k}"))
        if variant == "inner":
            out.append(geo.column_run(lay, k + 1, k + 1, m - 1, label=f"inner-product subtraction, column {k + 1}"))
        else:
            g = geo.outer_product_sub(m, k, packed)
            out.append(geo.to_index_triads(g) if variant == "triad" else g)
    out.append(_diag_square(lay, m - 1, "square root"))
    return out


def factor_texture(c_tex, m: int, *, packed: bool = False, variant: str = "outer",
                   ctx: Context | None = None, pivot_floor: float | None = None,
                   regularize: bool = False):
    """Factor the matrix held in `c_tex` (lower triangle, in the chosen layout) on
    the GPU.  `c_tex` is consumed (it becomes one of the ping-pong pair).  Returns
    the texture holding L; pivots are not checked here (see `check_pivots`).

    pivot_floor (interior-point use only): pivots below it are replaced by a huge
    value, dropping that direction, instead of turning into NaN -- or, with
    regularize=True, by the floor itself (a regularized pivot)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    ctx = resolve(ctx)
    K = ctx.kernels
    pool = ctx.pool
    lay = layout_for(m, packed)
    other = pool.take(lay.height, lay.width)
    if variant == "inner":
        # L_T must start as C as well: it supplies the not-yet-updated column k+1.
        K.draw("copy", other, geo.rectangle(0, 0, lay.width, lay.height), {"S": c_tex})
    else:
        other.clear(0.0)
    pp = PingPong(c_tex, other)
    pp.source.name, pp.target.name = "L_S", "L_T"
    store = ctx.geometry.cached_store(("chol", m, packed, variant), lambda: factor_geometries(m, packed, variant))
    sub = "outer_product_sub_triad" if variant == "triad" else "outer_product_sub"
    layout_uniforms = {"u_m": m, "u_packed": int(packed)}
    sqrt_kernel, sqrt_uniforms = ("sqrt", None) if pivot_floor is None else \
        ("sqrt_floor", {"u_floor": float(pivot_floor), "u_regularize": int(regularize)})
    S, T = pp.source, pp.target
    for k in range(m - 1):
        sq, col, third = store[3 * k], store[3 * k + 1], store[3 * k + 2]
        K.draw(sqrt_kernel, T, sq, {"L": S}, sqrt_uniforms)
        K.draw("copy", S, sq, {"S": T})
        K.draw("normalize", T, col, {"L": S})
        if variant == "inner":
            K.draw("inner_product_sub", S, third, {"L": T}, layout_uniforms)
        else:
            K.draw("copy", S, col, {"S": T})
            K.draw(sub, T, third, {"L": S})
            S, T = T, S
            S.name, T.name = "L_S", "L_T"
    K.draw(sqrt_kernel, T, store[3 * (m - 1)], {"L": S}, sqrt_uniforms)
    pool.give(S)
    T.name = "L"
    return T


def diagonal(l_tex, m: int, packed: bool, *, ctx: Context) -> np.ndarray:
    """L's diagonal, gathered on the GPU (one pass) and read back."""
    ctx = engine(ctx)
    K = ctx.kernels
    diag = ctx.pool.take(1, m)
    try:
        K.draw("diagonal", diag, geo.rectangle(0, 0, m, 1), {"L": l_tex}, {"u_m": m, "u_packed": int(packed)})
        return diag.read()[0]
    finally:
        ctx.pool.give(diag)


def check_pivots(l_tex, m: int, packed: bool, *, ctx: Context | None = None):
    """Gather L's diagonal on the GPU and raise NotPositiveDefiniteError at the
    first pivot that is not a positive finite number."""
    return NotPositiveDefiniteError.check(diagonal(l_tex, m, packed, ctx=resolve(ctx or l_tex.ctx)), m)


def cholesky(C, *, packed: bool = False, variant: str = "outer", ctx: Context) -> np.ndarray:
    """L with L L^T = C by Algorithm 5 (variant "outer"), index triads ("triad") or
    the 2006 inner-product form ("inner"), full or packed (Figs. 6, 7).

    C: (m, m) float32, validated by glgpgpu.cholesky; its lower triangle is read.
    Raises NotPositiveDefiniteError naming the first pivot that failed.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    ctx = engine(ctx)
    m = C.shape[0]
    l_tex = factor_texture(upload_and_pack(C, packed, ctx, "C"), m, packed=packed, variant=variant, ctx=ctx)
    try:
        check_pivots(l_tex, m, packed, ctx=ctx)
        return unpack_and_read(l_tex, m, packed)
    finally:
        ctx.pool.give(l_tex)
