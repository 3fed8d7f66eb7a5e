"""The paper method's tile operations (tiled.TileKernels): every tile an R32F t x t
texture, every operation the papers' own kernels, drawn tile by tile -- the tiled
Cholesky beyond one texture on Jung & O'Leary's kernels:

  POTRF      Algorithm 5 (Kernels 3-5, Fig. 5) on the diagonal tile, or the triad /
             inner-product variant; a last tile smaller than t is padded with the identity
  TRSM       X = A L^-T as L X^T = A^T: a transpose pass, the multipass forward
             substitution (2006, level 2) with A^T's columns as right-hand sides, a
             transpose pass back
  SYRK/GEMM  Algorithm 3 with d = -1: per column k, Kernel 1 (column scaling, Fig. 2(a))
             and Kernel 2 (outer-product addition) over Fig. 2(b)'s triangle on a
             diagonal tile, over the whole rectangle off it (the two operands differ)
  solves     the multipass substitution per diagonal tile; the off-diagonal products by
             Kernels 1 and 2 again

A pass draws the whole tile (padding included), so the padding stays what it was:
zero, and the identity on a diagonal tile.  One pass per column: slow, and the
faithful kernels; method="blocked" is the fast path.
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import PingPong
from ..tiled import TileKernels
from .cholesky import diagonal, factor_texture
from .packing import unpack_and_read
from .triangular import substitute_texture


class PaperTiles(TileKernels):
    """tiled.TileKernels by the papers' kernels (module docstring); `variant` is the
    diagonal tiles' Cholesky ("outer", "triad", "inner")."""

    name = "paper"
    multiple = 1
    band_texels = 1

    def __init__(self, ctx, variant: str = "outer"):
        super().__init__(ctx)
        self.variant = variant

    @property
    def K(self):
        return self.ctx.kernels

    def _rect(self, w, h):
        return self.ctx.geometry.cached_store(("rect", w, h), lambda: [geo.rectangle(0, 0, w, h)])[0]

    # -- storage ------------------------------------------------------------------
    def zeros(self, t):
        tex = self.ctx.pool.take(t, t, "tile")
        tex.clear(0.0)
        return tex

    def upload(self, block, t, *, diagonal):
        tex = self.ctx.pool.take(t, t, "tile")
        r, c = block.shape
        if (r, c) == (t, t):
            if diagonal:
                tex.write_lower(block)         # the kernels read only i >= j (as paper.packing.upload_and_pack)
            else:
                tex.write(block)
            return tex
        full = np.zeros((t, t), np.float32)
        full[:r, :c] = block
        if diagonal:                           # the identity past the matrix: it factors to itself
            full[np.arange(r, t), np.arange(r, t)] = 1.0
        tex.write(full)
        return tex

    def upload_band(self, band, t):
        tex = self.ctx.pool.take(t, band.shape[1], "A rows of a tile")
        full = np.zeros((t, band.shape[1]), np.float32)
        full[:band.shape[0]] = band
        tex.write(full)
        return tex

    def d_row(self, values):
        tex = self.ctx.pool.take(1, values.shape[0], "d")
        tex.write(np.asarray(values, np.float32)[None, :])
        return tex

    def read(self, tex, t, buf=None):
        return tex.read(buf)

    def read_lower(self, tex, m, *, upper_zero):
        return unpack_and_read(tex, m, False, ctx=self.ctx)           # one unpack pass: the upper part zero

    def zero_upper(self, tex, t):
        return tex                                           # unpack_and_read zeroes it anyway

    # -- the tile operations ----------------------------------------------------------
    def potrf(self, tex, m, *, pivot_floor=None, regularize=False):
        t = tex.rows
        if m < t:
            # a tile made by products (zeros + updates) has zeros past the matrix: make
            # them the identity, rows m .. t-1 being (0 | I), before factoring all of t
            pad = np.zeros((t - m, t), np.float32)
            pad[np.arange(t - m), np.arange(m, t)] = 1.0
            tex.write_rows(pad, m)
        L = factor_texture(tex, t, packed=False, variant=self.variant, ctx=self.ctx, pivot_floor=pivot_floor,
                           regularize=regularize)
        return L, diagonal(L, t, False, ctx=self.ctx)[:m]

    def trsm(self, l_tex, m, a_tex, t, rows):
        at = self.transpose(a_tex, t)
        self.give(a_tex)
        y = substitute_texture(l_tex, m, at, packed=False, backward=False, ctx=self.ctx)     # L X^T = A^T
        try:
            return self.transpose(y, t)
        finally:
            self.give(y)

    def update(self, c_tex, r_tex, s_tex, d_tex, *, t, diagonal, rows, cols, k_end, first=False):
        K = self.K
        if first:
            c_tex.clear(0.0)
        pp = PingPong(c_tex, self.ctx.pool.take(t, t, "tile"))
        b = self.ctx.pool.take(1, t, "b")
        shape = "tri" if diagonal else "rect"
        store = self.ctx.geometry.cached_store(("tile-update", shape, t, k_end), lambda: [
            g for k in range(k_end) for g in (geo.fig2a_column_scaling(t, k),
                                              geo.fig2b_outer_product_add(t, k) if diagonal
                                              else geo.outer_product_add_rect(t, t, k))])
        try:
            for k in range(k_end):
                K.draw("column_scaling", b, store[2 * k], {"A": s_tex, "d": d_tex})
                K.draw("outer_product_add", pp.target, store[2 * k + 1], {"C": pp.source, "A": r_tex, "b": b})
                pp.swap()
        finally:
            self.ctx.pool.give(b, pp.target)
        return pp.source

    def transpose(self, tex, t):
        out = self.ctx.pool.take(t, t, "tile transpose")
        self.K.draw("transpose", out, self._rect(t, t), {"S": tex})
        return out

    # -- the solves -----------------------------------------------------------------
    def substitute(self, l_tex, m, t, B, steps):
        x = self.ctx.pool.take(t, B.shape[1], "tile right-hand sides")
        try:
            if m == t:
                x.write(B)
            else:
                full = np.zeros((t, B.shape[1]), np.float32)
                full[:m] = B
                x.write(full)
            for backward in steps:
                x = substitute_texture(l_tex, m, x, packed=False, backward=backward, ctx=self.ctx)
            return x.read()[:m]
        finally:
            self.give(x)

    def products(self, ops, ys, t, rows, nrhs):
        """Kernels 1 and 2 per column of each tile: b = Y(k, :) by column scaling of
        Y^T's column k (d = 1), then C += op(:, k) b over the t x nrhs rectangle."""
        K = self.K
        pp = PingPong(self.ctx.pool.take(t, nrhs, "tile products"), self.ctx.pool.take(t, nrhs, "tile products"))
        pp.source.clear(0.0)
        b = self.ctx.pool.take(1, nrhs, "b")
        ones = self.d_row(np.ones(t, np.float32))
        yt = self.ctx.pool.take(nrhs, t, "Y^T")
        try:
            for op, y in zip(ops, ys):
                full = np.zeros((nrhs, t), np.float32)
                full[:, :y.shape[0]] = y.T
                yt.write(full)
                store = self.ctx.geometry.cached_store(("tile-products", t, nrhs, y.shape[0]), lambda: [
                    g for k in range(y.shape[0]) for g in (geo.fig2a_column_scaling(nrhs, k),
                                                           geo.outer_product_add_rect(t, nrhs, k))])
                for k in range(y.shape[0]):
                    K.draw("column_scaling", b, store[2 * k], {"A": yt, "d": ones})
                    K.draw("outer_product_add", pp.target, store[2 * k + 1], {"C": pp.source, "A": op, "b": b})
                    pp.swap()
            return pp.source.read()[:rows]
        finally:
            self.ctx.pool.give(b, ones, yt, pp.source, pp.target)
