"""A symmetric or lower-triangular matrix stored as its lower tiles (layouts/tiles.py's
grid), each a t x t texture of the method whose TileKernels it carries."""
from __future__ import annotations

import numpy as np

from ..errors import GPUMemoryError
from ..gl import memory
from ..layouts.tiles import TileGrid, tile_order
from .kernels import TileKernels


def tile_grid(ctx, m: int, ops) -> TileGrid:
    """The grid an m x m matrix gets with `ops`'s kernels on this context: one tile when
    it fits, else tiles of layouts.tiles's order (a multiple of ops.multiple)."""
    return TileGrid(m, tile_order(m, min(ctx.max_texture_size, ops.max_order(ctx)), multiple=ops.multiple))


class TiledLower:
    """The lower tiles of an m x m matrix on the GPU, in `ops`'s storage (zero padded
    past the matrix).  Release when done."""

    def __init__(self, ctx, grid: TileGrid, ops):
        self.ctx, self.grid, self.ops = ctx, grid, ops
        self.tiles: dict = {}
        self.transposes: dict = {}      # (I, J) -> tile (I, J) transposed, made once for the solves
        self.upper_zero = False         # the diagonal tiles hold zeros above the diagonal

    def transposed(self, I: int, J: int):
        """Tile (I, J) transposed (data movement), kept for later solves (the LP solver
        and wls solve many times per factor) while GPU memory allows; (texture, True)
        when it is a temporary the caller gives back.  Valid while the tiles are not
        changed (solves come after the factorization)."""
        if (I, J) in self.transposes:
            return self.transposes[I, J], False
        t = self.grid.t
        out = self.ops.transpose(self.tiles[I, J], t)
        try:
            memory.require(self.ctx, 2 * self.ops.tile_bytes(t), "keeping a transposed tile")
        except GPUMemoryError:
            return out, True
        self.transposes[I, J] = out
        return out, False

    def clear_upper(self) -> None:
        """Zero the diagonal tiles above the diagonal, on the GPU, so read() copies them
        straight into the result (a factor is uploaded whole, its upper triangle the input's)."""
        for I in range(self.grid.count):
            self.tiles[I, I] = self.ops.zero_upper(self.tiles[I, I], self.grid.t)
        self.upper_zero = True

    @classmethod
    def zeros(cls, ctx, g: TileGrid, ops) -> "TiledLower":
        """Zero lower tiles, for products to accumulate into."""
        T = cls(ctx, g, ops)
        T.upper_zero = True
        try:
            for I, J in g.lower():
                T.tiles[I, J] = ops.zeros(g.t)
        except BaseException:
            T.release()
            raise
        return T

    @classmethod
    def upload(cls, ctx, C: np.ndarray, t: int, ops) -> "TiledLower":
        """C's lower tiles (C float32 m x m; only its lower triangle counts)."""
        g = TileGrid(C.shape[0], t)
        T = cls(ctx, g, ops)
        try:
            for I, J in g.lower():
                T.tiles[I, J] = ops.upload(C[g.span(I), g.span(J)], t, diagonal=I == J)
        except BaseException:
            T.release()
            raise
        return T

    def read(self, out: np.ndarray | None = None) -> np.ndarray:
        """The m x m float32 lower triangle, upper part zero (into out, an m x m array of
        zeros, when given)."""
        g, ops = self.grid, self.ops
        z = self.upper_zero
        if g.count == 1:                                # one tile: its lower triangle
            return ops.read_lower(self.tiles[0, 0], g.m, upper_zero=z)
        # a large np.zeros is fresh pages the kernel zeroes as they are first written: the
        # upper tiles' pages are never touched here (a row's part in one tile spans pages of
        # its own), and each lower tile is read straight into its place where the method can
        # (one tile-sized scratch array otherwise)
        out = np.zeros((g.m, g.m), np.float32) if out is None else out
        buf = None
        for I in range(g.count):
            for J in range(I):
                if buf is None and type(ops).read_into is TileKernels.read_into:
                    buf = np.empty((g.t, g.t), np.float32)
                ops.read_into(self.tiles[I, J], g.t, out[g.span(I), g.span(J)], buf)
            out[g.span(I), g.span(I)] = ops.read_lower(self.tiles[I, I], g.size(I), upper_zero=z)
        return out

    def release(self) -> None:
        self.ops.give(*self.tiles.values(), *self.transposes.values())
        self.tiles.clear()
        self.transposes.clear()
