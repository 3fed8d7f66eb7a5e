"""The paper path's public operations (numpy in, numpy out) for matrices of any
size): the full layout as a grid of R32F tiles, factored, solved and
formed by glgpgpu.tiled's algorithms with the papers' own kernels
(tile_kernels.py).  A matrix that fits one texture is the one-tile grid, whose
draws are exactly the single-texture algorithms' (the same bits).  The
rectangular packed format lives in one texture only (cholesky.py, triangular.py,
assemble.py), and A D^2 A^T of one texture keeps Algorithm 3's Accumulator."""
from __future__ import annotations

import numpy as np

from ..gl import Context, Stopwatch, engine
from ..tiled import (TiledLower, TiledNormalSystem as _TiledNormal, adat_tiled, factor_and_read, solve_tiled, tile_grid,
                     upload_checked)
from . import assemble, cholesky as one_texture, triangular
from .tile_kernels import PaperTiles


def grid_for(ctx, m: int):
    return tile_grid(ctx, m, PaperTiles)


def upload_lower(ctx, M: np.ndarray, what: str, variant: str = "outer") -> TiledLower:
    """M's lower triangle in R32F tiles (one when it fits), after checking the memory."""
    return upload_checked(ctx, M, PaperTiles(ctx, variant), what)


def cholesky(C, *, packed: bool = False, variant: str = "outer", ctx: Context) -> np.ndarray:
    """L with L L^T = C: Algorithm 5 (variant "outer"), index triads ("triad") or the
    2006 inner-product form ("inner") on each diagonal tile, the tile algorithm
    around them (one tile when C fits one texture); packed=True: Figs. 6 / 7 in one
    texture.  C float32, validated.  NotPositiveDefiniteError names the first pivot."""
    ctx = engine(ctx)
    if packed:
        return one_texture.cholesky(C, packed=True, variant=variant, ctx=ctx)
    if variant not in one_texture.VARIANTS:
        raise ValueError(f"variant must be one of {one_texture.VARIANTS}, not {variant!r}")
    return factor_and_read(upload_lower(ctx, C, "the Cholesky factorization", variant))


def solve(L_lower: np.ndarray, B2: np.ndarray, steps, *, packed: bool = False, ctx: Context):
    """The substitutions `steps` (False: L y = b, True: L^T x = y) on B2 (m x nrhs
    float32) by the multipass kernel, tile by tile beyond one texture."""
    ctx = engine(ctx)
    if packed:
        return triangular.solve(L_lower, B2, steps, packed=True, ctx=ctx)
    T = upload_lower(ctx, L_lower, "triangular solves")
    try:
        return solve_tiled(T, B2, steps)
    finally:
        T.release()


def adat(A, d2, *, packed: bool = False, ctx: Context) -> np.ndarray:
    """C = A diag(d2) A^T (lower triangle, float32): Algorithm 3 in one texture (any n,
    in column blocks), Kernels 1 and 2 tile by tile when m is beyond one texture."""
    ctx = engine(ctx)
    m = A.shape[0]
    if packed or PaperTiles.fits(ctx, m):
        return assemble.adat(A, d2, packed=packed, ctx=ctx)
    T = adat_tiled(ctx, A, d2, grid_for(ctx, m).t, PaperTiles(ctx))
    try:
        return T.read()
    finally:
        T.release()


class TiledNormalSystem(_TiledNormal):
    """The normal-equations operation on R32F tiles (wls, the LP solver) for m beyond one
    texture: tiled.TiledNormalSystem with the papers' kernels, OneTextureNormal's signature."""

    def __init__(self, A32, *, packed: bool = False, variant: str = "outer", ctx,
                 watch: Stopwatch | None = None):
        if packed:
            raise ValueError("the rectangular packed format lives in one texture; use packed=False for tiles")
        ctx = engine(ctx)
        super().__init__(A32, PaperTiles(ctx, variant), grid_for(ctx, A32.shape[0]).t, watch=watch)


def tile_kernels(ctx, *, variant: str = "outer"):
    """This method's TileKernels on ctx (variant: the diagonal tiles' Cholesky)."""
    return PaperTiles(ctx, variant)
