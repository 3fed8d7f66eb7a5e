"""What a tile algorithm asks of a method: the `TileKernels` contract.

The tile algorithms of this package (cholesky.py, solve.py, products.py,
normal.py) are written once.  paper/, blocked/ and compute/ each supply a subclass whose
methods are their own kernels -- no new arithmetic):

              paper (tile_kernels.py)                   blocked (tile_kernels.py)
  POTRF       Algorithm 5 (Kernels 3-5), any variant    the blocked Cholesky (panels, slabs)
  TRSM        transpose, multipass substitution,        slabs of panel solves + one
              transpose back                            blocked_adat product per slab
  SYRK/GEMM   Kernels 1 and 2 per column (Fig. 2(b)'s   blocked_adat with d = -1
              triangle, or its rectangle off the diagonal)
  solves      multipass substitution; products by       blocked substitution; products by
              Kernels 1 and 2                           blocked_adat

The factor's SYRK / GEMM go through `downdate` (C -= R S^T), by default `update` with a d
of -1s; compute takes the sign by the product's alpha instead (its product then loads no d).

Every tile is a t x t texture of the method's storage (R32F for paper, RGBA32F
for blocked) taken from the context's pool.  An operation may return another
texture than the one it was given (the paper's kernels ping-pong): callers keep
what it returns.  Sizes are in matrix rows and columns, never texels.
"""
from __future__ import annotations

import numpy as np

from ..layouts import tiles


class TileKernels:
    """The tile operations of one method, on one context (see the module's table)."""

    name = "?"
    #: tile orders are multiples of this (a panel width, 4 columns per texel, ...)
    multiple = 1
    #: columns of A one band texture holds, as a multiple of the texture limit
    band_texels = 1

    def __init__(self, ctx):
        self.ctx = ctx

    def band_columns(self, t: int) -> int:
        """Columns of A one band of t rows holds (a texture's width limit by default)."""
        return self.band_texels * self.ctx.max_texture_size

    @classmethod
    def fits(cls, ctx, m: int, n: int = 0) -> bool:
        """Whether an m x m matrix is held in one piece of this storage -- no tiles -- (and, for
        a method that needs it whole, an m x n operand: A of A D A^T): the one question each
        method asks before choosing one piece or tiles.  The papers' R32F texture: m within the
        texture limit and MAX_ONE_TILE (A's columns are taken in column blocks, any n)."""
        return m <= min(ctx.max_texture_size, tiles.MAX_ONE_TILE)

    @staticmethod
    def max_order(ctx) -> int:
        """The largest tile order this storage holds on the context (the texture limit
        by default; storage buffers have their own)."""
        return ctx.max_texture_size

    # -- storage ------------------------------------------------------------------
    def zeros(self, t: int):
        """A t x t tile of zeros."""
        raise NotImplementedError

    def upload(self, block: np.ndarray, t: int, *, diagonal: bool):
        """A t x t tile holding `block` (float32, at most t x t) at its top left, zero
        padded; a diagonal tile's lower triangle is what counts."""
        raise NotImplementedError

    def upload_band(self, band: np.ndarray, t: int):
        """A's rows of one tile row (t x n texture, n = band's columns, zero padded):
        an operand of `update`."""
        raise NotImplementedError

    def d_row(self, values: np.ndarray):
        """d (the diagonal of D) as the 1 x n operand of `update`."""
        raise NotImplementedError

    def read(self, tex, t: int, buf: np.ndarray | None = None) -> np.ndarray:
        """The whole tile as a t x t float32 array (into buf when given)."""
        raise NotImplementedError

    def read_lower(self, tex, m: int, *, upper_zero: bool) -> np.ndarray:
        """The m x m lower triangle of a diagonal tile, upper part zero."""
        raise NotImplementedError

    def solve_resident(self, T, B: np.ndarray, steps):
        """solve_tiled's answer with the right-hand sides kept on the GPU from the first tile
        row to the last (one upload, one read), or None where the method has no such path or
        it could not finish (the generic path then solves)."""
        return None

    def kernel_tile(self, XI32: np.ndarray, XJ32: np.ndarray, t: int, diagonal: bool, *, kernel, gamma, degree,
                    coef0, diag):
        """A t x t tile of K + diag I formed on the GPU from its rows' and columns' points
        (zeros past them and above a diagonal tile's diagonal), or None where the method has
        no such path (a cluster's tile owner then forms it on its host)."""
        return None

    def read_into(self, tex, t: int, out: np.ndarray, buf: np.ndarray | None = None) -> None:
        """The tile's top left out.shape into out (a view of a larger matrix, rows apart);
        buf: a t x t scratch array the default may read through."""
        rows, cols = out.shape
        out[...] = self.read(tex, t, buf)[:rows, :cols]

    def zero_upper(self, tex, t: int):
        """Zero a diagonal tile above its diagonal, on the GPU; returns the tile."""
        raise NotImplementedError

    def give(self, *textures) -> None:
        self.ctx.pool.give(*textures)

    def tile_bytes(self, t: int) -> int:
        return 4 * t * t

    # -- the tile operations ----------------------------------------------------------
    def potrf(self, tex, m: int, *, pivot_floor=None, regularize=False):
        """Factor the diagonal tile (order m, the identity past it) in place of tex;
        returns (the factor's tile, its m pivots)."""
        raise NotImplementedError

    def trsm(self, l_tex, m: int, a_tex, t: int, rows: int):
        """X = A L^-T for the factored diagonal tile L (order m); rows: A's real rows.
        Returns X's tile."""
        raise NotImplementedError

    def update(self, c_tex, r_tex, s_tex, d_tex, *, t: int, diagonal: bool, rows: int, cols: int, k_end: int,
               first: bool = False):
        """C += R diag(d) S^T over the columns k < k_end of R and S, on C's real rows x
        cols (diagonal: its lower triangle of order rows); first: C := instead of +=.
        Returns C's tile."""
        raise NotImplementedError

    def downdate(self, c_tex, r_tex, s_tex, neg_tex, *, t: int, diagonal: bool, rows: int, cols: int,
                 k_end: int):
        """C -= R S^T (the Cholesky's SYRK / GEMM); neg_tex: a d row of -1s, for a method
        whose products take their sign from d (update's).  Returns C's tile."""
        return self.update(c_tex, r_tex, s_tex, neg_tex, t=t, diagonal=diagonal, rows=rows, cols=cols,
                           k_end=k_end)

    def transpose(self, tex, t: int):
        """A new tile holding tex transposed (data movement; give it back)."""
        raise NotImplementedError

    # -- the solves -----------------------------------------------------------------
    def substitute(self, l_tex, m: int, t: int, B: np.ndarray, steps) -> np.ndarray:
        """The substitutions `steps` (False: L y = b, True: L^T x = y) with a diagonal
        tile of order m on B (m x nrhs float32), numpy in and out."""
        raise NotImplementedError

    def products(self, ops: list, ys: list, t: int, rows: int, nrhs: int) -> np.ndarray:
        """sum over q of ops[q] @ ys[q] (each op a t x t tile, ys[q] its real columns
        x nrhs float32) on the GPU, read once: the rows x nrhs float32 result."""
        raise NotImplementedError
