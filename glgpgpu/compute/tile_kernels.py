"""The compute method's tile operations (the TileKernels contract of glgpgpu.tiled):
tiles are storage buffers, so the same tile algorithms factor, solve and form
matrices beyond one buffer.  POTRF is the one-buffer blocked Cholesky, TRSM the
panel kernel against the diagonal tile plus the product for the columns after each
block, SYRK/GEMM and the solves' products the tiled product (gemm.comp)."""
from __future__ import annotations

import math

import numpy as np

from ..gl.buffers import leading
from ..methods.contract import KERNELS
from ..tiled import TileKernels
from . import blas
from .blas import NB, diagonal, download, gemm, transpose, trsm_rows, upload, write, zero_upper
from . import chain
from . import dense
from .dense import factor, solve_buffer


class ComputeTiles(TileKernels):
    name = "compute"
    multiple = 4                    # rows start on 16-byte boundaries (the blocks inside a tile may be partial)
    band_texels = 1

    def band_columns(self, t: int) -> int:
        """A band is one storage buffer: its bytes, not only its width, are bounded."""
        lim = self.ctx.max_storage_block or (1 << 27)
        by_bytes = (lim // (4 * t) - 8) // 4 * 4          # leading() pads a row by up to 8 floats
        return max(4, min(self.ctx.max_texture_size, by_bytes))

    @classmethod
    def fits(cls, ctx, m: int, n: int = 0) -> bool:
        """One storage buffer holds an m x m matrix and an m x n one (and the context's texture
        limit, which tests lower to exercise the tiles, is not passed)."""
        return max(m, n) <= min(ctx.max_texture_size, cls.max_order(ctx))

    @staticmethod
    def max_order(ctx) -> int:
        """The largest tile order one storage buffer holds (with its padded stride)."""
        lim = ctx.max_storage_block or (1 << 27)
        t = int(math.isqrt(lim // 4)) - 8
        return max(NB, (t // NB) * NB)

    # -- storage ------------------------------------------------------------------
    def zeros(self, t):
        return blas.fill(self.ctx, blas.take(self.ctx, t, t, "tile"), 0.0)

    def upload(self, block, t, *, diagonal):
        tile = blas.take(self.ctx, t, t, "tile")
        if block.shape != (t, t):
            blas.fill(self.ctx, tile, 0.0)
        write(self.ctx, tile, block)
        return tile

    def upload_band(self, band, t):
        return upload(self.ctx, band, "A rows of a tile")

    def d_row(self, values):
        return upload(self.ctx, np.asarray(values, np.float32).reshape(1, -1), "d")

    # -- the LS-SVM's kernel matrix ------------------------------------------------
    def form_kernel(self, tile, band_I, band_J, rows: int, cols: int, d: int, diagonal: bool, *, kernel, gamma,
                    degree, coef0, diag) -> None:
        """A tile of K + diag I into `tile`: the product of two row bands of X (uploaded) with
        the kernel function applied as it is stored (rbf from squared distances), diag on a
        diagonal tile's diagonal (its upper part left for the caller to zero)."""
        uni = {"u_kind": KERNELS[kernel], "u_gamma": float(gamma), "u_coef0": float(coef0), "u_degree": int(degree),
               "u_diag": float(diag) if diagonal else 0.0}
        gemm(self.ctx, tile, band_I, band_J, m=rows, n=cols, k=d, dist2=kernel == "rbf", lower=diagonal, kernel=uni)

    def kernel_tile(self, XI32, XJ32, t: int, diagonal: bool, **kernel):
        # as compute.tiled.kernel_tiles forms each tile: the same bits on a cluster's tile owner
        tile = self.zeros(t)
        bands = []
        try:
            bands = [upload(self.ctx, X, "X rows of a tile") for X in (XI32, XJ32)]
            self.form_kernel(tile, bands[0], bands[1], XI32.shape[0], XJ32.shape[0], XI32.shape[1], diagonal,
                             **kernel)
            if diagonal:
                self.zero_upper(tile, t)
        except BaseException:
            self.give(tile)
            raise
        finally:
            self.give(*bands)
        return tile

    def read(self, tex, t, buf=None):
        return download(self.ctx, tex, buf, t, t)

    def read_into(self, tex, t, out, buf=None):
        # compacted on the GPU, then the staging ring's bands copied straight into out's rows
        download(self.ctx, tex, out, *out.shape)

    def read_lower(self, tex, m, *, upper_zero):
        # the product writes diagonal tiles whole (gemm.comp): zeroed once here, at the read
        zero_upper(self.ctx, tex, m)
        return download(self.ctx, tex, None, m, m)

    def zero_upper(self, tex, t):
        zero_upper(self.ctx, tex, t)
        return tex

    def give(self, *buffers) -> None:
        for b in buffers:
            if b is not None:
                b.give()

    def tile_bytes(self, t: int) -> int:
        return 4 * t * leading(t)

    # -- the tile operations ----------------------------------------------------------
    def potrf(self, tex, m, *, pivot_floor=None, regularize=False):
        factor(self.ctx, tex, m, pivot_floor=pivot_floor, regularize=regularize)
        zero_upper(self.ctx, tex, m)             # the tile reads back as a lower triangle
        return tex, diagonal(self.ctx, tex, m)

    def trsm(self, l_tex, m, a_tex, t, rows):
        """X = A L^-T in place, 64 columns at a time: the panel kernel against the
        diagonal block, then the product for the columns after it -- from the order
        dense.BLOCK_COLUMNS_FROM by block columns of dense.UPDATE_COLUMNS, as the factor:
        each panel's product only for its block column, the columns after it by one
        product of the block column's rank (not a rank-64 pass over them per panel)."""
        wide = max(NB, dense.UPDATE_COLUMNS // NB * NB) if m >= dense.BLOCK_COLUMNS_FROM else NB
        for K0 in range(0, m, wide):
            K1 = min(m, K0 + wide)
            for k0 in range(K0, K1, NB):
                nb = min(NB, K1 - k0)
                trsm_rows(self.ctx, a_tex, k0, nb, 0, rows, L=l_tex)
                if k0 + nb < K1:
                    gemm(self.ctx, a_tex, a_tex, l_tex, m=rows, n=K1 - k0 - nb, k=nb, alpha=-1.0, beta=1.0,
                         a_at=(0, k0), b_at=(k0 + nb, k0), c_at=(0, k0 + nb))
            if K1 < m:
                gemm(self.ctx, a_tex, a_tex, l_tex, m=rows, n=m - K1, k=K1 - K0, alpha=-1.0, beta=1.0,
                     a_at=(0, K0), b_at=(K1, K0), c_at=(0, K1))
        return a_tex

    def update(self, c_tex, r_tex, s_tex, d_tex, *, t, diagonal, rows, cols, k_end, first=False):
        gemm(self.ctx, c_tex, r_tex, s_tex, m=rows, n=rows if diagonal else cols, k=k_end, d=d_tex,
             beta=0.0 if first else 1.0, lower=diagonal)
        return c_tex

    def downdate(self, c_tex, r_tex, s_tex, neg_tex, *, t, diagonal, rows, cols, k_end):
        # the sign by alpha, not by a d of -1s: the product loads no d (the same bits, faster)
        gemm(self.ctx, c_tex, r_tex, s_tex, m=rows, n=rows if diagonal else cols, k=k_end, alpha=-1.0,
             beta=1.0, lower=diagonal)
        return c_tex

    def transpose(self, tex, t):
        return transpose(self.ctx, tex, t)

    # -- the solves -----------------------------------------------------------------
    def substitute(self, l_tex, m, t, B, steps):
        if B.shape[1] <= chain.MOST_COLUMNS:       # a few columns: the chained solve
            solves = chain.ChainSolves(self.ctx, l_tex.buf, l_tex.ld, m)
            try:
                return solves.solve_columns(np.asarray(B, np.float32)[:m], tuple(steps)).astype(np.float32)
            finally:
                solves.release()
        Xt = upload(self.ctx, np.ascontiguousarray(np.asarray(B, np.float32).T), "tile right-hand sides")
        try:
            solve_buffer(self.ctx, l_tex, Xt, m, B.shape[1], steps)
            return np.ascontiguousarray(download(self.ctx, Xt).T)
        finally:
            Xt.give()

    def solve_resident(self, T, B, steps):
        """The substitutions on X^T (a right-hand side a row, all of them in one buffer): per
        tile row the solved tiles' products subtracted in place (gemm, no read-back), its
        block copied out, solved by the diagonal tile's chained solve, copied back, and the
        solve's give-up marks (the slot past each row) gathered -- one read of them at the
        end; a wait that gave up anywhere sends the solve to the generic path (None).  Up
        to chain.MOST_COLUMNS right-hand sides; more: None."""
        g, ctx = T.grid, self.ctx
        m, k = B.shape
        if k > chain.MOST_COLUMNS or k == 0:
            return None
        V = W = marks = None
        solves = {}                                    # a diagonal tile's chained solve, for every step
        Xt = upload(ctx, np.ascontiguousarray(B.T), "the right-hand sides")
        try:
            # one tile row's right-hand sides and solutions, a slot past each row for the give-up mark
            V = chain.Vector32(ctx, k, g.t + 1, "a tile's right-hand sides")
            W = chain.Vector32(ctx, k, g.t + 1, "a tile's solutions")
            marks = blas.take(ctx, k, len(steps) * g.count, "the tile solves' give-up marks")
            run = 0
            for backward in steps:
                for K in (range(g.count - 1, -1, -1) if backward else range(g.count)):
                    k0, tK = K * g.t, g.size(K)
                    for J in (range(K + 1, g.count) if backward else range(K)):
                        j0, tJ = J * g.t, g.size(J)
                        if backward:            # x_K -= L_JK^T x_J: X_K^T -= X_J^T L_JK (L_JK held tJ x tK)
                            gemm(ctx, Xt, Xt, T.tiles[J, K], m=k, n=tK, k=tJ, alpha=-1.0, beta=1.0,
                                 a_at=(0, j0), c_at=(0, k0), trans_b=True)
                        else:                   # x_K -= L_KJ x_J: X_K^T -= X_J^T L_KJ^T
                            gemm(ctx, Xt, Xt, T.tiles[K, J], m=k, n=tK, k=tJ, alpha=-1.0, beta=1.0,
                                 a_at=(0, j0), c_at=(0, k0))
                    if K not in solves:
                        solves[K] = chain.ChainSolves(ctx, T.tiles[K, K].buf, T.tiles[K, K].ld, tK)
                    W.clear(ctx)                # the give-up slot past each solution starts at zero
                    blas.copy_block(ctx, Xt, k0, V, 0, k, tK)
                    solves[K].run(V, W, per_block=bool(ctx.caps.software), steps=(backward,))
                    blas.copy_block(ctx, W, 0, Xt, k0, k, tK)
                    blas.copy_block(ctx, W, tK, marks, run, k, 1)
                    run += 1
            if download(ctx, marks).any():
                return None
            return np.ascontiguousarray(download(ctx, Xt).T[:m])
        finally:
            Xt.give()
            for held in (V, W, marks):
                if held is not None:
                    held.give()
            for solve in solves.values():
                solve.release()

    def products(self, ops, ys, t, rows, nrhs):
        out = blas.take(self.ctx, rows, nrhs, "tile products")
        held = [out]
        try:
            for q, (op, y) in enumerate(zip(ops, ys)):
                yb = upload(self.ctx, y, "solved part")
                held.append(yb)
                gemm(self.ctx, out, op, yb, m=rows, n=nrhs, k=y.shape[0], beta=0.0 if q == 0 else 1.0, trans_b=True)
            return download(self.ctx, out)
        finally:
            for b in held:
                b.give()
