"""LS-SVM kernel matrices by the blocked path): blocked_adat's
register-blocked Gram matrix X X^T with the kernel function as an epilogue in
the same pass (blocked_kernel_matrix.frag), full or blocked packed; and the
KernelFactor operation the LS-SVM solver uses (kernel matrix + 1/C + jitter on
the diagonal, factored by the blocked Cholesky, solves on the GPU)."""
from __future__ import annotations

import numpy as np

from ..gl import Context, Stopwatch, memory, engine
from ..gl.transfer import read_rgba_lower, upload_rgba
from ..layouts.tiles import TileGrid, tile_order
from .adat import adat_texture, full_cover, product_texture, read_packed_lower
from .cholesky import diagonal, factor_texture
from .sizes import ADAT_BLOCK, P_PANEL, padded, require
from ..tiled import TiledFactor, TiledLower, cholesky_bytes
from .tile_kernels import BlockedTiles
from .triangular import substitute_texture
from ..methods.contract import KERNELS



def kernel_texture(X32, *, kernel: str = "rbf", gamma: float = 1.0, degree: int = 3, coef0: float = 0.0,
                   packed: bool = False, diag: float = 0.0, mp: int | None = None, ctx: Context):
    """The RGBA texture of K + diag I's lower triangle (order padded to mp); give it back.
    The squared norms come from the host (float32, O(N d)), 4 per texel."""
    ctx = engine(ctx)
    require(ctx)
    N, d = X32.shape
    block = (ADAT_BLOCK[1], ADAT_BLOCK[1]) if packed else ADAT_BLOCK
    mp = mp or padded(N, max(block[0], 4))
    n4 = -(-d // 4) * 4
    ctx.check_size(mp, max(n4, mp) // 4, f"X (N={N}, blocked)")
    a_tex = upload_rgba(ctx, X32, mp, n4, "X")
    d_tex = upload_rgba(ctx, np.ones((1, d), np.float32), 1, n4, "ones")
    norms = upload_rgba(ctx, np.einsum("ij,ij->i", X32, X32)[None, :].astype(np.float32), 1, -(-mp // 4) * 4,
                        "squared norms")
    try:
        uni = {"u_kind": KERNELS[kernel], "u_gamma": float(gamma), "u_coef0": float(coef0),
               "u_degree": int(degree), "u_diag": float(diag)}
        return adat_texture(a_tex, d_tex, N, block=block, mp=mp, packed=packed, ctx=ctx, epilogue=(norms, uni))
    finally:
        ctx.pool.give(a_tex, d_tex, norms)


def kernel_matrix(X32, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0, packed=False, ctx) -> np.ndarray:
    """K's lower triangle as float32 (N, N), upper part zero."""
    ctx = engine(ctx)
    N = X32.shape[0]
    if not packed and not BlockedTiles.fits(ctx, N):
        T = kernel_tiles(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=0.0, ctx=ctx)
        try:
            return T.read()
        finally:
            T.release()
    tex = kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed, ctx=ctx)
    try:
        if packed:
            return read_packed_lower(ctx, tex, N, ADAT_BLOCK[1])
        return read_rgba_lower(tex, N, upper_zero=True)          # cleared, and the kernel keeps it zero
    finally:
        ctx.pool.give(tex)


class OneTextureKernelFactor:
    """L L^T = K + (1/C + jitter) I on the GPU (formed with the kernel epilogue,
    factored by the blocked Cholesky) and kept for solves: solve(R) runs both
    substitutions on the columns of R (N x k float64 in, float64 out)."""

    def __init__(self, X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
        if packed:
            raise ValueError("the blocked LS-SVM factor has no packed layout; use method='paper' for packed=True")
        self.ctx = ctx = engine(ctx)
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.N = N = X32.shape[0]
        self.mp = padded(N, P_PANEL)
        with self.watch("form"):
            self.l_tex = kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=diag,
                                        mp=self.mp, ctx=ctx)
        try:
            with self.watch("factor"):
                factor_texture(self.l_tex, N, ctx=ctx)
                self.pivots = diagonal(self.l_tex, N, ctx=ctx)
        except BaseException:
            self.release()
            raise

    def solve(self, R: np.ndarray) -> np.ndarray:
        with self.watch("solve"):
            t = self.ctx.pool.take(self.mp, R.shape[1], "LS-SVM right-hand sides")
            full = np.zeros((self.mp, R.shape[1]), np.float32)
            full[:self.N] = R
            t.write(full)
            for backward in (False, True):
                t = substitute_texture(self.l_tex, self.N, t, backward=backward, ctx=self.ctx)
            out = t.read()[:self.N].astype(np.float64)
            self.ctx.pool.give(t)
        return out

    def release(self) -> None:
        self.ctx.pool.give(self.l_tex)
        self.l_tex = None


class TiledKernelFactor(TiledFactor):
    """OneTextureKernelFactor for N beyond one texture): K's lower tiles,
    tile (I, J) = the kernel function of X_I X_J^T (the epilogue with row band I's
    and band J's squared norms; 1/C + jitter only on diagonal tiles), factored by
    tiled.factor, solved by tiled.solve_tiled (tiled.TiledFactor).  The same methods."""

    def __init__(self, X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
        if packed:
            raise ValueError("the blocked LS-SVM factor has no packed layout; use method='paper' for packed=True")
        self.ctx = ctx = engine(ctx)
        require(ctx)
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.N = X32.shape[0]
        with self.watch("form"):
            self.T = kernel_tiles(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=diag, ctx=ctx)
        self.factor_tiles()


def kernel_factor(X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
    """The LS-SVM factor on one texture when K fits one, else on tiles (the same methods)."""
    ctx = engine(ctx)
    cls = OneTextureKernelFactor if BlockedTiles.fits(ctx, X32.shape[0]) else TiledKernelFactor
    return cls(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=diag, packed=packed, ctx=ctx,
               watch=watch)


def kernel_tiles(X32, *, kernel, gamma, degree, coef0, diag, ctx) -> TiledLower:
    """K + diag I's lower tiles for N beyond one texture: tile (I, J) = the kernel function
    of X_I X_J^T (the epilogue with row band I's and band J's squared norms; diag only on
    diagonal tiles).  Release when done."""
    N, d = X32.shape
    g = TileGrid(N, tile_order(N, ctx.max_texture_size))
    n4 = -(-d // 4) * 4
    ctx.check_size(g.t, n4 // 4, f"X (N={N}, d={d}, blocked)")
    memory.require(ctx, cholesky_bytes(g) + g.count * g.t * n4 * 4,
                   f"the LS-SVM kernel matrix of {N} points on {g.count}^2 tiles")
    T = TiledLower.zeros(ctx, g, BlockedTiles(ctx))
    uni = {"u_kind": KERNELS[kernel], "u_gamma": float(gamma), "u_coef0": float(coef0), "u_degree": int(degree)}
    bands, norms = [], []
    ones = upload_rgba(ctx, np.ones((1, d), np.float32), 1, n4, "ones")
    try:
        for I in range(g.count):
            XI = X32[g.span(I)]
            bands.append(upload_rgba(ctx, XI, g.t, n4, f"X rows of tile {I}"))
            norms.append(upload_rgba(ctx, np.einsum("ij,ij->i", XI, XI)[None, :].astype(np.float32), 1, g.t,
                                     "squared norms"))
        for I, J in g.lower():
            tex = T.tiles[I, J]
            if I == J:
                product_texture(tex, bands[I], bands[I], ones, g.size(I), ctx=ctx,
                                epilogue=(norms[I], dict(uni, u_diag=float(diag))))
            else:
                BC = ADAT_BLOCK[1]
                product_texture(tex, bands[I], bands[J], ones, g.t, block=(BC, BC), ctx=ctx,
                                cover=full_cover((0, -(-g.size(J) // BC)), -(-g.size(I) // BC)),
                                epilogue=(norms[I], dict(uni, u_diag=0.0), norms[J]))
    except BaseException:
        T.release()
        raise
    finally:
        ctx.pool.give(ones, *bands, *norms)
    return T
