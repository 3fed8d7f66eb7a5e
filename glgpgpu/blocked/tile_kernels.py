"""The blocked method's tile operations (tiled.TileKernels): every tile an RGBA32F
texture of t x t/4 texels, every operation one of the register-blocked kernels.

  POTRF  the blocked Cholesky (cholesky.factor_texture), in place
  TRSM   L_IK = A_IK L_KK^-T in place: slabs of 16-wide panel solves
         (blocked_trsm_panel, blocked_update) + one blocked_adat product per slab
  SYRK / GEMM  C_IJ += (R D) S^T: blocked_adat into the tile (d = -1 for an update)
  GEMV   the solves' products: blocked_adat with the solved part as an 8-row operand
"""
from __future__ import annotations

import numpy as np

from ..layouts.rgba import padded
from ..layouts import tiles
from ..gl.transfer import read_rgba, read_rgba_lower, upload_rgba
from ..tiled import TileKernels
from .adat import full_cover, product_texture
from .cholesky import diagonal, factor_texture
from .sizes import ADAT_BLOCK, UPDATE_BLOCK, P_PANEL, constant_d, rect_rows
from .triangular import substitute_texture

#: columns of a TRSM slab: solved in P-wide panels, then the rest of the tile updated
#: by one blocked_adat product over the slab (rank-TRSM_SLAB, compute-bound); 1024 measured
#: 2x faster than 512 on the H100 (8192 tiles, benchmarks/RESULTS.md)
TRSM_SLAB = 1024


def trsm(ctx, l_tex, mK: int, a_tex, t: int, neg, *, rows: int | None = None, slab: int | None = None,
         block=ADAT_BLOCK) -> None:
    """X = A L^-T in place of the tile A, for the factored diagonal tile L (both RGBA,
    t x t; L of order mK, the identity past it).  Blocked right-looking
    substitution, no inverse (its backward error does not grow with kappa(L), which
    the thesis's matrices make astronomically large): the columns go in slabs of
    `slab`; inside a slab, per P columns, blocked_trsm_panel solves every row's P
    unknowns against L's P x P diagonal block, blocked_update (TRSM) subtracts them
    from the slab's later columns, blocked_copyback stores them; after the slab one
    product_texture (d = -1) updates all later columns of the tile at once.  rows:
    the tile's real rows (the last tile row's padding is not drawn)."""
    K = ctx.kernels
    P, B = P_PANEL, UPDATE_BLOCK
    BC = block[1]
    slab = slab or TRSM_SLAB
    if slab % P or t % P:
        raise ValueError(f"the TRSM slab ({slab}) and the tile ({t}) must be multiples of P={P}")
    rows = -(-(rows or t) // P) * P                  # whole panels of rows and of columns
    cols = -(-mK // P) * P
    pnl = ctx.pool.take(t, P // 4, "TRSM panel", components=4)
    try:
        for s0 in range(0, cols, slab):
            s1 = min(cols, s0 + slab)
            for kb in range(s0, s1, P):
                K.draw("blocked_trsm_panel", K.grid(1, t), rect_rows(ctx, 0, 1, 0, rows), {"LT": l_tex},
                       {"u_kb": kb, "u_m": mK}, images={"A": a_tex, "PNL": pnl}, defines={"P": P})
                if kb + P < s1:
                    K.draw("blocked_update", K.grid(t // B, t // B),
                           rect_rows(ctx, (kb + P) // B, s1 // B, 0, rows // B),
                           {"PNL": pnl, "LT": l_tex}, {"u_lq": kb // 4}, images={"A": a_tex},
                           defines={"P": P, "B": B, "TRSM": 1})
                K.draw("blocked_copyback", K.grid(P // 4, t), rect_rows(ctx, 0, P // 4, 0, rows), {"PNL": pnl},
                       {"u_kb": kb}, images={"A": a_tex})
            if s1 < cols:
                product_texture(a_tex, a_tex, l_tex, neg, t, block=(BC, BC), first=False, k_range=(s0 // 4, s1 // 4),
                                cover=full_cover((s1 // BC, -(-cols // BC)), -(-rows // BC)), ctx=ctx)
    finally:
        ctx.pool.give(pnl)


class BlockedTiles(TileKernels):
    """tiled.TileKernels by the register-blocked kernels (module docstring)."""

    name = "blocked"
    multiple = 16                   # the Cholesky panel (P_PANEL), a multiple of the 4 columns of a texel
    band_texels = 4                 # RGBA: 4 columns of A per texel

    @classmethod
    def fits(cls, ctx, m: int, n: int = 0) -> bool:
        """RGBA storage: C padded to the panel within the texture limit and MAX_ONE_TILE, and
        A's n columns (4 a texel) in one texture's width."""
        lim = ctx.max_texture_size
        return padded(m, P_PANEL) <= min(lim, tiles.MAX_ONE_TILE) and -(-n // 4) <= lim

    def __init__(self, ctx, block=None):
        """block: blocked_adat's (BR, BC) for the SYRK/GEMM updates (default ADAT_BLOCK,
        the one-texture kernel's, so a tiled factor sums as the single texture does)."""
        super().__init__(ctx)
        self.block = block or ADAT_BLOCK

    # -- storage ------------------------------------------------------------------
    def zeros(self, t):
        tex = self.ctx.pool.take(t, t // 4, "tile", components=4)
        tex.clear(0.0)
        return tex

    def upload(self, block, t, *, diagonal):
        # a diagonal tile goes up whole: the driver's narrow RGBA sub-rectangle uploads
        # are slow (H100, 4096: its lower triangle in 16 row bands took 118 ms against
        # 23 ms for the square); read_lower keeps the lower triangle
        return upload_rgba(self.ctx, block, t, t, "tile")

    def upload_band(self, band, t):
        return upload_rgba(self.ctx, band, t, padded(band.shape[1], 4), "A rows of a tile")

    def d_row(self, values):
        return upload_rgba(self.ctx, np.asarray(values, np.float32)[None, :], 1, padded(values.shape[0], 4), "d")

    def read(self, tex, t, buf=None):
        if buf is None:
            buf = np.empty((t, t), np.float32)
        tex.read(buf.reshape(t, t // 4, 4))
        return buf

    def read_lower(self, tex, m, *, upper_zero):
        return read_rgba_lower(tex, m, upper_zero=upper_zero)

    def zero_upper(self, tex, t):
        K = self.ctx.kernels
        K.draw("blocked_zero_upper", K.grid(t // 4, t), rect_rows(self.ctx, 0, t // 4, 0, t), None, images={"A": tex})
        return tex

    # -- the tile operations ----------------------------------------------------------
    def potrf(self, tex, m, *, pivot_floor=None, regularize=False):
        factor_texture(tex, m, pivot_floor=pivot_floor, regularize=regularize, ctx=self.ctx)
        return tex, diagonal(tex, m, ctx=self.ctx)

    def trsm(self, l_tex, m, a_tex, t, rows):
        neg = constant_d(self.ctx, -1.0, t)          # the slab products' d (one small upload per tile)
        try:
            trsm(self.ctx, l_tex, m, a_tex, t, neg, rows=rows, block=self.block)
        finally:
            self.give(neg)
        return a_tex

    def update(self, c_tex, r_tex, s_tex, d_tex, *, t, diagonal, rows, cols, k_end, first=False):
        k_range = (0, -(-k_end // 4))
        if diagonal:          # the lower block triangle of order rows
            product_texture(c_tex, r_tex, s_tex, d_tex, rows, block=self.block, first=first, k_range=k_range,
                            ctx=self.ctx)
        else:                 # the real rows x columns (the last tile row is mostly padding)
            BR = BC = self.block[1]              # square blocks: every row block of the tile
            product_texture(c_tex, r_tex, s_tex, d_tex, t, block=(BR, BC), first=first, k_range=k_range,
                            cover=full_cover((0, -(-cols // BC)), -(-rows // BR)), ctx=self.ctx)
        return c_tex

    def transpose(self, tex, t):
        K = self.ctx.kernels
        out = self.ctx.pool.take(t, t // 4, "tile transpose", components=4)
        K.draw("transpose_rgba", out, rect_rows(self.ctx, 0, t // 4, 0, t), {"S": tex})
        return out

    # -- the solves -----------------------------------------------------------------
    def substitute(self, l_tex, m, t, B, steps):
        b = self.ctx.pool.take(t, B.shape[1], "tile right-hand sides")
        try:
            full = np.zeros((t, B.shape[1]), np.float32)
            full[:m] = B
            b.write(full)
            for backward in steps:
                b = substitute_texture(l_tex, m, b, backward=backward, ctx=self.ctx)
            return b.read()[:m]
        finally:
            self.ctx.pool.give(b)

    def products(self, ops, ys, t, rows, nrhs):
        """8 right-hand sides at a time: each solved part as an 8-row operand of
        blocked_adat against the tile, summed on the GPU, read once per 8."""
        ctx, _K = self.ctx, self.ctx.kernels
        out_np = np.empty((rows, nrhs), np.float32)
        ones = constant_d(ctx, 1.0, t)
        out = ctx.pool.take(t, 2, "tile product", components=4)        # 8 columns: one 8-wide block
        try:
            for c0 in range(0, nrhs, 8):
                for q, (op, y) in enumerate(zip(ops, ys)):
                    cols = y[:, c0:c0 + 8]
                    yq = np.zeros((8, t), np.float32)
                    yq[:cols.shape[1], :cols.shape[0]] = cols.T
                    y_tex = upload_rgba(ctx, yq, 8, t, "y")
                    product_texture(out, op, y_tex, ones, t, block=(8, 8), cover=full_cover(), first=q == 0, ctx=ctx)
                    ctx.pool.give(y_tex)
                out_np[:, c0:c0 + 8] = read_rgba(out, rows, min(8, nrhs - c0))
        finally:
            ctx.pool.give(ones, out)
        return out_np
