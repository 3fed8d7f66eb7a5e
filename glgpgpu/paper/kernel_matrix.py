"""Kernel matrices by rasterization, the first step of LS-SVM training;
the PLSSVM thesis, chapter 2): K(i, j) = k(x_i, x_j) over the lower
triangle only.  The Gram matrix G = X X^T is Algorithm 3 itself (A = X, D = I:
one Kernel 1 + Kernel 2 pass pair per feature, Fig. 2(b) or Fig. 4); one more
pass over the same triangle(s) applies the kernel function (kernel_function.frag).
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Stopwatch, memory, engine
from ..tiled import TiledFactor, adat_tiled, cholesky_bytes
from .assemble import assemble_texture
from .cholesky import diagonal, factor_texture
from .triangular import substitute_texture
from .packing import unpack_and_read
from ..methods.contract import KERNELS
from .tile_kernels import PaperTiles
from .tiled import grid_for



def kernel_texture(X32, *, kernel: str = "rbf", gamma: float = 1.0, degree: int = 3, coef0: float = 0.0,
                   packed: bool = False, diag: float = 0.0, ctx):
    """The texture holding the lower triangle of K + diag I (full or packed); give it
    back to the pool.  diag is LS-SVM's 1/C (the thesis's cost on the diagonal)."""
    ctx = engine(ctx)
    K = ctx.kernels
    N = X32.shape[0]
    g_tex = assemble_texture(X32, np.ones(X32.shape[1], np.float32), packed=packed, ctx=ctx)
    if kernel == "linear" and diag == 0:
        return g_tex
    norms = ctx.pool.take(1, N)
    out = ctx.pool.take(g_tex.rows, g_tex.cols)
    try:
        K.draw("diagonal", norms, geo.rectangle(0, 0, N, 1), {"L": g_tex}, {"u_m": N, "u_packed": int(packed)})
        out.clear(0.0)
        tri = ctx.geometry.cached_store(("kernel-tri", N, packed), lambda: [geo.outer_product_add(N, 0, packed)])[0]
        K.draw("kernel_function", out, tri, {"G": g_tex, "n": norms},
               {"u_kind": KERNELS[kernel], "u_gamma": float(gamma), "u_coef0": float(coef0),
                "u_degree": int(degree), "u_diag": float(diag)})
    except BaseException:
        ctx.pool.give(out)
        raise
    finally:
        ctx.pool.give(g_tex, norms)
    return out


def kernel_matrix(X32, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0, packed=False, ctx) -> np.ndarray:
    """K's lower triangle as a float32 (N, N) array (upper part zero); on tiles when N
    is beyond one texture (full layout)."""
    ctx = engine(ctx)
    if not packed and not PaperTiles.fits(ctx, X32.shape[0]):
        T = kernel_tiles(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=0.0, ctx=ctx)
        try:
            return T.read()
        finally:
            T.release()
    tex = kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed, ctx=ctx)
    try:
        return unpack_and_read(tex, X32.shape[0], packed, ctx=ctx)
    finally:
        ctx.pool.give(tex)


class OneTextureKernelFactor:
    """L L^T = K + (1/C + jitter) I on the GPU by the paper's kernels (Algorithm 3's
    Gram matrix, the kernel-function pass, Algorithm 5), kept for solves: solve(R)
    runs both multipass substitutions on the columns of R (N x k, float64 in and out).
    The same operation as blocked.KernelFactor."""

    def __init__(self, X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
        self.ctx = ctx = engine(ctx)
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.N, self.packed = X32.shape[0], packed
        with self.watch("form"):
            h_tex = kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed,
                                   diag=diag, ctx=ctx)
        with self.watch("factor"):
            self.l_tex = factor_texture(h_tex, self.N, packed=packed, ctx=ctx)
            self.pivots = diagonal(self.l_tex, self.N, packed, ctx=ctx)

    def solve(self, R: np.ndarray) -> np.ndarray:
        with self.watch("solve"):
            t = self.ctx.pool.take(self.N, R.shape[1], "LS-SVM right-hand sides")
            t.write(R.astype(np.float32))
            for backward in (False, True):
                t = substitute_texture(self.l_tex, self.N, t, packed=self.packed, backward=backward, ctx=self.ctx)
            out = t.read().astype(np.float64)
            self.ctx.pool.give(t)
        return out

    def release(self) -> None:
        self.ctx.pool.give(self.l_tex)
        self.l_tex = None


def kernel_tiles(X32, *, kernel, gamma, degree, coef0, diag, ctx):
    """K + diag I's lower R32F tiles for N beyond one texture): the Gram tiles
    by Kernels 1 and 2 (tiled.adat_tiled with D = I), the squared norms n_i = G(i, i)
    gathered from the diagonal tiles on the GPU (as in one texture), then the
    kernel-function pass on each tile's real rows and columns (zeros elsewhere):
    Fig. 2(b)'s triangle on a diagonal tile with diag, a rectangle off it whose T1
    reads band J's norms from the second row of a 2 x t texture.  Release when done."""
    K = ctx.kernels
    g = grid_for(ctx, X32.shape[0])
    t = g.t
    memory.require(ctx, cholesky_bytes(g) + 2 * 4 * t * X32.shape[1],
                   f"the LS-SVM kernel matrix of {g.m} points on {g.count}^2 tiles")
    uni = {"u_kind": KERNELS[kernel], "u_gamma": float(gamma), "u_coef0": float(coef0), "u_degree": int(degree)}
    T = adat_tiled(ctx, X32, np.ones(X32.shape[1], np.float32), t, PaperTiles(ctx))
    row = None
    try:
        norms = [diagonal(T.tiles[b, b], t, False, ctx=ctx) for b in range(g.count)]
        row = ctx.pool.take(2, t, "squared norms")
        for I, J in g.lower():
            row.write(np.stack([norms[I], norms[J]]))
            out = ctx.pool.take(t, t, "kernel tile")
            out.clear(0.0)
            if I == J:
                geom = ctx.geometry.cached_store(("kernel-tri", g.size(I), False),
                                      lambda: [geo.outer_product_add(g.size(I), 0, False)])[0]
            else:
                geom = ctx.geometry.cached_store(("kernel-rect", g.size(I), g.size(J)),
                                      lambda: [geo.outer_product_add_rect(g.size(I), g.size(J), 0, b_row=1)])[0]
            K.draw("kernel_function", out, geom, {"G": T.tiles[I, J], "n": row},
                   dict(uni, u_diag=float(diag if I == J else 0.0)))
            ctx.pool.give(T.tiles[I, J])
            T.tiles[I, J] = out
    except BaseException:
        T.release()
        raise
    finally:
        ctx.pool.give(row)
    return T


class TiledKernelFactor(TiledFactor):
    """OneTextureKernelFactor for N beyond one texture): kernel_tiles, then the
    tiled Cholesky and solves on the same R32F tiles.  The same methods."""

    def __init__(self, X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
        if packed:
            raise ValueError("the rectangular packed format lives in one texture; use packed=False for tiles")
        self.ctx = ctx = engine(ctx)
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.N = X32.shape[0]
        with self.watch("form"):
            self.T = kernel_tiles(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=diag, ctx=ctx)
        self.factor_tiles()


def kernel_factor(X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
    """The LS-SVM factor in one texture when K fits one (or packed), else on tiles."""
    ctx = engine(ctx)
    cls = OneTextureKernelFactor if packed or PaperTiles.fits(ctx, X32.shape[0]) else TiledKernelFactor
    return cls(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=diag, packed=packed, ctx=ctx,
               watch=watch)
