"""A D A^T with m (and n) beyond one texture: tile (I, J) of C is the sum over A's
column chunks of (A_I D) A_J^T, each an `update` of the method's kernels; a row
band's zero trailing columns are skipped (L L^T costs N^3 / 6, not N^3 / 2)."""
from __future__ import annotations

import numpy as np

from ..gl import memory
from ..layouts.tiles import TileGrid
from .matrix import TiledLower


def add_products(T: TiledLower, bands: list, d_tex, ends: list) -> None:
    """T's lower tiles += (band_I D) band_J^T for every (I, J), over the columns below
    min(ends[I], ends[J]) (a band's zero trailing columns add nothing)."""
    g, ops = T.grid, T.ops
    for I, J in g.lower():
        k1 = min(ends[I], ends[J])
        if k1:
            T.tiles[I, J] = ops.update(T.tiles[I, J], bands[I], bands[J], d_tex, t=g.t, diagonal=I == J,
                                       rows=g.size(I), cols=g.size(J), k_end=k1)


def band_width(ctx, ops, t: int) -> int:
    """Columns of A one band of t rows holds."""
    return ops.band_columns(t)


def adat_bytes(g: TileGrid, n: int, tile_bytes: int | None = None) -> int:
    """C's lower tiles, A's row bands (one column chunk of n), scratch."""
    tb = 4 * g.t * g.t if tile_bytes is None else tile_bytes
    return len(g.lower()) * tb + (g.count + 2) * g.t * n * 4 + 2 * tb


def adat_tiled(ctx, A: np.ndarray, d2: np.ndarray, t: int, ops) -> TiledLower:
    """The lower tiles of A diag(d2) A^T on the GPU (A float32 m x n, any m, n)."""
    m, n = A.shape
    g = TileGrid(m, t)
    width = band_width(ctx, ops, t)
    memory.require(ctx, adat_bytes(g, min(n, width), ops.tile_bytes(t)),
                   f"A diag(d2) A^T with A of {m} x {n} ({g.count}^2 tiles of C)")
    T = TiledLower.zeros(ctx, g, ops)
    try:
        for c0 in range(0, n, width):
            c1 = min(n, c0 + width)
            d_tex = ops.d_row(d2[c0:c1])
            bands, ends = [], []
            try:
                for I in range(g.count):
                    band = A[g.span(I), c0:c1]
                    bands.append(ops.upload_band(band, t))
                    nz = np.flatnonzero(band.any(axis=0))           # a band's zero trailing columns
                    ends.append(int(nz[-1]) + 1 if nz.size else 0)  # add nothing: skip them
                add_products(T, bands, d_tex, ends)
            finally:
                ops.give(d_tex, *bands)
    except BaseException:
        T.release()
        raise
    return T
