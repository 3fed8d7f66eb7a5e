"""The blocked path's public operations (numpy in, numpy out) on tiles: one tile
when the matrix fits one texture (the blocked kernels on a single texture), a
grid of tiles of layouts.tiles's order when it does not).  The tile
algorithms are glgpgpu.tiled's, run with this method's kernels (tile_kernels.py)."""
from __future__ import annotations

import numpy as np

from ..gl import Context, memory, engine
from ..layouts.rgba import padded
from ..tiled import TiledLower, adat_tiled as _adat_tiled, factor_and_read, solve_tiled, tile_grid, upload_checked
from .adat import adat as adat_one_texture
from .tile_kernels import BlockedTiles
from .sizes import ADAT_BLOCK, require


def _upload_lower(ctx, M: np.ndarray, what: str) -> TiledLower:
    """M's lower triangle in tiles (one when it fits), after checking the memory."""
    require(ctx)
    return upload_checked(ctx, M, BlockedTiles(ctx), what)


def cholesky(C, *, packed: bool = False, variant: str = "outer", ctx: Context) -> np.ndarray:
    """L with L L^T = C by the tiled blocked Cholesky: one tile when C fits one
    texture (the blocked Cholesky of a single texture), tiles of layouts.tiles's
    order when it does not.  C float32, validated (glgpgpu.cholesky chooses this
    for method="blocked").  No packed layout and no other variant: dispatch
    refuses those before calling."""
    if packed or variant != "outer":
        raise ValueError("the blocked Cholesky has no packed layout and only the 'outer' variant")
    T = _upload_lower(engine(ctx), C, "the Cholesky factorization")
    return factor_and_read(T)


def solve(L_lower: np.ndarray, Bm: np.ndarray, steps, *, packed: bool = False, ctx: Context):
    """Substitutions `steps` (False forward with L, True backward with L^T) on the
    right-hand sides Bm (m x nrhs float32), tiled when L passes one texture; the
    same signature as paper.solve."""
    if packed:
        raise ValueError("the blocked solves have no packed layout")
    T = _upload_lower(engine(ctx), L_lower, "triangular solves")
    try:
        return solve_tiled(T, Bm, steps)
    finally:
        T.release()


def adat(A, d2, *, packed: bool = False, ctx: Context, block=ADAT_BLOCK) -> np.ndarray:
    """C = A diag(d2) A^T (float32, lower triangle): one texture when C fits one,
    else tiles of C, each the sum over A's column chunks of (A_I D) A_J^T."""
    ctx = engine(ctx)
    require(ctx)
    m, n = A.shape
    fits = padded(m, max(block[0], 4)) <= ctx.max_texture_size and padded(n, 4) // 4 <= ctx.max_texture_size
    if packed or fits:
        mp = padded(m, max(block[0], 4))
        memory.require(ctx, 4 * mp * mp + 3 * 4 * mp * padded(n, 4), f"A diag(d2) A^T with A of {m} x {n}")
        return adat_one_texture(A, d2, packed=packed, ctx=ctx, block=block)
    T = adat_tiled(ctx, A, d2, tile_grid(ctx, m, BlockedTiles).t, block=block)
    try:
        return T.read()
    finally:
        T.release()


def adat_tiled(ctx, A, d2, t: int, *, block=ADAT_BLOCK) -> TiledLower:
    """The lower tiles of A diag(d2) A^T on the GPU by the blocked kernels (A float32
    m x n, any m, n); release when done."""
    require(ctx)
    return _adat_tiled(ctx, A, d2, t, BlockedTiles(ctx, block))


def tile_kernels(ctx, *, variant: str = "outer"):
    """This method's TileKernels on ctx (one Cholesky variant: variant is the paper's)."""
    return BlockedTiles(ctx)
