"""The compute method's operations for matrices of any order: one storage buffer
when the matrix fits (dense.py, normal.py), else glgpgpu.tiled's algorithms on
buffer tiles (ComputeTiles) -- the same tile algorithms as the fragment methods."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..gl import Stopwatch, memory
from ..methods.resident import single_factor
from ..tiled import (TiledFactor, TiledLower, TiledNormalSystem as _TiledNormal, adat_tiled, factor_and_read,
                     solve_tiled, tile_grid, upload_checked)
from ..tiled.cholesky import cholesky_bytes
from . import dense, normal
from .blas import require, upload
from .tile_kernels import ComputeTiles


def _checks(ctx, packed, variant="outer"):
    require(ctx)
    dense._refuse_packed(packed, variant)


def cholesky(C, *, packed=False, variant="outer", ctx):
    _checks(ctx, packed, variant)
    if ComputeTiles.fits(ctx, C.shape[0]):
        return dense.cholesky(C, ctx=ctx)
    T = upload_checked(ctx, C, ComputeTiles(ctx), "the Cholesky factorization")
    return factor_and_read(T)


def solve(L, B, steps, *, packed=False, ctx):
    _checks(ctx, packed)
    if ComputeTiles.fits(ctx, L.shape[0]):
        return dense.solve(L, B, steps, ctx=ctx)
    T = upload_checked(ctx, L, ComputeTiles(ctx), "triangular solves")
    try:
        return solve_tiled(T, B, steps)
    finally:
        T.release()


def adat(A, d2, *, packed=False, ctx):
    _checks(ctx, packed)
    m = A.shape[0]
    if ComputeTiles.fits(ctx, m, A.shape[1]):
        return dense.adat(A, d2, ctx=ctx)
    ops = ComputeTiles(ctx)
    T = adat_tiled(ctx, A, d2, tile_grid(ctx, m, ops).t, ops)
    try:
        return T.read()
    finally:
        T.release()


class TiledNormalSystem(_TiledNormal):
    """The normal equations on buffer tiles (m beyond one buffer)."""

    def __init__(self, A32, *, packed=False, variant="outer", ctx, watch=None):
        _checks(ctx, packed, variant)
        ops = ComputeTiles(ctx)
        super().__init__(A32, ops, tile_grid(ctx, A32.shape[0], ops).t, watch=watch)


def normal_system(A32, *, packed=False, variant="outer", ctx, watch=None):
    # storage buffers take no points: the product of the dense A (OneBufferNormal densifies at its upload)
    if ComputeTiles.fits(ctx, *A32.shape):
        return normal.OneBufferNormal(A32, packed=packed, variant=variant, ctx=ctx, watch=watch)
    if sp.issparse(A32):
        A32 = np.ascontiguousarray(A32.toarray(), np.float32)
    return TiledNormalSystem(A32, packed=packed, variant=variant, ctx=ctx, watch=watch)


def normal_factor(A32, d32, *, packed=False, ctx, watch=None):
    if ComputeTiles.fits(ctx, *A32.shape):
        return normal.NormalFactor(A32, d32, packed=packed, ctx=ctx, watch=watch)
    return _TILED_FACTOR(A32, d32, packed=packed, ctx=ctx, watch=watch)


def kernel_tiles(X32, *, kernel, gamma, degree, coef0, diag, ctx, watch=None) -> TiledLower:
    """K + diag I's lower tiles: tile (I, J) is the product of X's row bands I and J with
    the kernel function applied as it is stored (rbf from squared distances), diag on
    the diagonal tiles only, zeros above the diagonal.  Release when done."""
    N, d = X32.shape
    ops = ComputeTiles(ctx)
    g = tile_grid(ctx, N, ops)
    memory.require(ctx, cholesky_bytes(g, ops.tile_bytes(g.t)) + g.count * g.t * d * 4,
                   f"the LS-SVM kernel matrix of {N} points on {g.count}^2 tiles")
    T = TiledLower.zeros(ctx, g, ops)
    bands = []
    try:
        with (watch or Stopwatch(ctx, enabled=False))("form"):
            bands = [upload(ctx, X32[g.span(I)], f"X rows of tile {I}") for I in range(g.count)]
            for I, J in g.lower():
                ops.form_kernel(T.tiles[I, J], bands[I], bands[J], g.size(I), g.size(J), d, I == J, kernel=kernel,
                                gamma=gamma, degree=degree, coef0=coef0, diag=diag)
            T.clear_upper()
    except BaseException:
        T.release()
        raise
    finally:
        ops.give(*bands)
    return T


class TiledKernelFactor(TiledFactor):
    """K + diag I on buffer tiles (kernel_tiles), factored and solved by glgpgpu.tiled."""

    def __init__(self, X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
        _checks(ctx, packed)
        self.ctx = ctx
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.N = X32.shape[0]
        self.T = kernel_tiles(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=diag, ctx=ctx,
                              watch=self.watch)
        self.factor_tiles()


def kernel_factor(X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
    cls = normal.OneBufferKernelFactor if ComputeTiles.fits(ctx, X32.shape[0]) else TiledKernelFactor
    return cls(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=diag, packed=packed, ctx=ctx,
               watch=watch)


def kernel_matrix(X32, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0, packed=False, ctx):
    _checks(ctx, packed)
    if ComputeTiles.fits(ctx, X32.shape[0]):
        return dense.kernel_matrix(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, ctx=ctx)
    T = kernel_tiles(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=0.0, ctx=ctx)
    try:
        return T.read()
    finally:
        T.release()


_TILED_FACTOR = single_factor(TiledNormalSystem)
ResidentNormal = normal.ResidentNormal          # the float32 LP's textures: one buffer (the contract's name)


def tile_kernels(ctx, *, variant: str = "outer"):
    """This method's TileKernels on ctx (one Cholesky variant: variant is the paper's)."""
    return ComputeTiles(ctx)
