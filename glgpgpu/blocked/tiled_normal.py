"""The normal equations A diag(d) A^T when m is beyond one texture (issue 17): the
NormalSystem operation of blocked/normal.py on tiles, so wls and the LP solver
run unchanged on them.  A stays on the GPU as row bands (tile rows x column
chunks of at most 4 x the texture limit); each factor(d) forms the lower tiles
by tiled products and factors them (tiled.factor); solve() runs the tiled
substitutions."""
from __future__ import annotations

import numpy as np

from ..gl import Stopwatch, memory
from ..gl.resident import ResidentFactor
from ..layouts.rgba import padded, to_rgba
from ..layouts.tiles import TileGrid, tile_order
from ..layouts.transfer import upload_rgba
from .tiled import TiledLower, add_products, cholesky_bytes, factor as tiled_factor, solve_tiled
from .tiles import start_normal


class TiledNormalSystem(ResidentFactor):
    """A D A^T for a fixed A (m x n float32) on a grid of tiles; `factor(d)` per weight
    vector, `solve(r)` against the float32 factor, float64 out.  Release when done."""

    def __init__(self, A32, *, packed: bool = False, variant: str = "outer", ctx=None,
                 watch: Stopwatch | None = None):
        start_normal(self, A32, packed, variant, ctx, watch)
        ctx = self.ctx
        self.grid = TileGrid(self.m, tile_order(self.m, ctx.max_texture_size))
        width = 4 * ctx.max_texture_size
        self.chunks = [(c0, min(self.n, c0 + width)) for c0 in range(0, self.n, width)]
        g = self.grid
        memory.require(ctx, cholesky_bytes(g) + g.count * g.t * padded(self.n, 4) * 4,
                       f"the normal equations of A ({self.m} x {self.n}) on {g.count}^2 tiles")
        self.T = self.pivots = None
        self.bands: dict = {}
        self.d_texs: list = []
        try:
            with self.watch("transfer"):
                self._upload(A32)
                for c0, c1 in self.chunks:
                    self.d_texs.append(ctx.kernels.pool.take(1, padded(c1 - c0, 4) // 4, components=4))
        except BaseException:
            self.release()
            raise

    def _upload(self, A32) -> None:
        g = self.grid
        for I in range(g.count):
            for c, (c0, c1) in enumerate(self.chunks):
                band = A32[g.span(I), c0:c1]
                if (I, c) in self.bands:
                    self.bands[I, c].write(to_rgba(band, g.t, padded(c1 - c0, 4)))
                else:
                    self.bands[I, c] = upload_rgba(self.ctx, band, g.t, padded(c1 - c0, 4), f"A rows of tile {I}")

    def update_matrix(self, A32) -> None:
        """A new A of the same shape (the mixed LP solver scales its rows each iteration)."""
        if A32.shape != (self.m, self.n):
            raise ValueError(f"A must stay {self.m}x{self.n}, got {A32.shape}")
        self._upload(A32)

    def factor(self, d32, *, pivot_floor: float | None = None, regularize: bool = False):
        """Form and factor A diag(d32) A^T on the tiles; returns L's diagonal (the pivots)."""
        ctx, g, watch = self.ctx, self.grid, self.watch
        self._free_factor()
        with watch("transfer"):
            for (c0, c1), d_tex in zip(self.chunks, self.d_texs):
                d_tex.write(to_rgba(np.asarray(d32[None, c0:c1], np.float32), 1, padded(c1 - c0, 4)))
        with watch("assemble"):
            self.T = TiledLower.zeros(ctx, g)
            for c, (c0, c1) in enumerate(self.chunks):
                add_products(self.T, [self.bands[I, c] for I in range(g.count)], self.d_texs[c],
                             [padded(c1 - c0, 4) // 4] * g.count)
        with watch("factor"):
            self.pivots = tiled_factor(self.T, pivot_floor=pivot_floor, regularize=regularize)
        return self.pivots

    def solve(self, rhs: np.ndarray, phase: str = "solve") -> np.ndarray:
        """x with L L^T x = rhs (float32 on the GPU, tile by tile), returned as float64."""
        with self.watch(phase):
            x = solve_tiled(self.T, np.asarray(rhs, np.float32).reshape(-1, 1), (False, True))
        return x[:, 0].astype(np.float64)

    def _free_factor(self) -> None:
        if getattr(self, "T", None) is not None:
            self.T.release()
            self.T = None

    def release(self) -> None:
        """Give every texture back to the pool (safe to call twice)."""
        self._free_factor()
        if self.ctx is not None:
            self.ctx.kernels.pool.give(*self.bands.values(), *self.d_texs)
        self.bands, self.d_texs = {}, []
