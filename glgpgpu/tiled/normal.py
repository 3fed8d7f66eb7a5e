"""The normal equations A diag(d) A^T when m is beyond one texture: the solvers'
NormalSystem operation on tiles, for any method's TileKernels, so wls and the
LP solver run unchanged on them.  A stays on the GPU as row bands (tile rows x
column chunks); each factor(d) forms the lower tiles by `update`s and factors them
(cholesky.factor); solve() runs the tiled substitutions."""
from __future__ import annotations

import numpy as np

from ..gl import Stopwatch, memory
from ..methods.resident import NormalSystemBase, ResidentFactor
from ..layouts.tiles import TileGrid
from .cholesky import cholesky_bytes, factor as tiled_factor
from .matrix import TiledLower
from .products import add_products, band_width
from .solve import solve_tiled


class TiledNormalSystem(ResidentFactor, NormalSystemBase):
    """A D A^T for a fixed A (m x n float32) on a grid of t x t tiles of `ops`'s
    storage; `factor(d)` per weight vector, `solve(r)` against the float32 factor,
    float64 out.  Release when done."""

    def __init__(self, A32, ops, t: int, *, watch: Stopwatch | None = None):
        self.ctx = ctx = ops.ctx
        self.ops = ops
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.m, self.n = A32.shape
        self.grid = g = TileGrid(self.m, t)
        width = band_width(ctx, ops, t)
        self.chunks = [(c0, min(self.n, c0 + width)) for c0 in range(0, self.n, width)]
        memory.require(ctx, cholesky_bytes(g, ops.tile_bytes(t)) + g.count * g.t * self.n * 4,
                       f"the normal equations of A ({self.m} x {self.n}) on {g.count}^2 tiles")
        self.T = self.pivots = None
        self.bands: dict = {}
        self.d_texs: list = []
        try:
            with self.watch("transfer"):
                self._upload(A32)
        except BaseException:
            self.release()
            raise

    def _upload(self, A32) -> None:
        g = self.grid
        for I in range(g.count):
            for c, (c0, c1) in enumerate(self.chunks):
                self.ops.give(self.bands.pop((I, c), None))
                self.bands[I, c] = self.ops.upload_band(A32[g.span(I), c0:c1], g.t)

    def update_matrix(self, A32) -> None:
        """A new A of the same shape (the mixed LP solver scales its rows each iteration)."""
        if A32.shape != (self.m, self.n):
            raise ValueError(f"A must stay {self.m}x{self.n}, got {A32.shape}")
        self._upload(A32)

    def factor(self, d32, *, pivot_floor: float | None = None, regularize: bool = False, row_scale=None):
        """Form and factor A diag(d32) A^T on the tiles; returns L's diagonal (the pivots)."""
        self._refuse_row_scale(row_scale)
        g, watch = self.grid, self.watch
        self._free_factor()
        with watch("transfer"):
            self.ops.give(*self.d_texs)
            self.d_texs = [self.ops.d_row(np.asarray(d32[c0:c1], np.float32)) for c0, c1 in self.chunks]
        with watch("assemble"):
            self.T = TiledLower.zeros(self.ctx, g, self.ops)
            for c, (c0, c1) in enumerate(self.chunks):
                add_products(self.T, [self.bands[I, c] for I in range(g.count)], self.d_texs[c],
                             [c1 - c0] * g.count)
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
            self.ops.give(*self.bands.values(), *self.d_texs)
        self.bands, self.d_texs = {}, []
