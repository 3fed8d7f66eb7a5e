"""The compute method's dense operations on one storage buffer each: A D A^T,
Cholesky (blocked, right-looking: the diagonal block in shared memory, the panel
by one thread a row, the trailing update by the tiled product; large orders by block
columns, each factored in a packed copy of its own), triangular solves
with many right-hand sides, and the kernel matrix.  Numpy in, numpy out."""
from __future__ import annotations

import numpy as np

from ..errors import NotPositiveDefiniteError
from ..gl.buffers import MatrixBuffer
from ..methods.contract import KERNELS
from ..parallel import Prefaulted
from .blas import (NB, copy_block, diagonal, download, download_lower, gemm, potrf_block, require, syrk64, take, trsm_rhs,
                   trsm_rows, upload, upload_lower, zero_upper)



def _refuse_packed(packed: bool, variant: str = "outer") -> None:
    if packed:
        raise ValueError("method='compute' has no packed layout; use packed=False or method='paper'")
    if variant != "outer":
        raise ValueError(f"variant={variant!r} is a paper kernel; use method='paper'")


def adat_buffer(ctx, A: MatrixBuffer, d: MatrixBuffer | None, m: int, n: int) -> MatrixBuffer:
    """C = A diag(d) A^T's lower triangle (upper zero) in a new buffer; give it back."""
    C = take(ctx, m, m, "A diag(d2) A^T")
    gemm(ctx, C, A, A, m=m, n=m, k=n, d=d, lower=True)
    zero_upper(ctx, C, m)
    return C


def adat(A32: np.ndarray, d2: np.ndarray, *, packed: bool = False, ctx) -> np.ndarray:
    require(ctx)
    _refuse_packed(packed)
    m, n = A32.shape
    A = upload(ctx, A32, "A")
    d = upload(ctx, d2.reshape(1, -1), "d2")
    try:
        C = adat_buffer(ctx, A, d, m, n)
        try:
            return download(ctx, C)
        finally:
            C.give()
    finally:
        A.give()
        d.give()


#: columns a block column holds (float32): its NB-wide panels update only it, and the
#: matrix right of it takes one update of this rank -- the product kernel at a rank where
#: it runs at its rate, not 64 (a multiple of NB; NB itself: every panel updates all)
UPDATE_COLUMNS = 512
#: the order from which the float32 factor goes by block columns: below it the extra
#: dispatches cost more than the rank-64 updates lose (benchmarks/RESULTS.md)
BLOCK_COLUMNS_FROM = 8192


def factor(ctx, A: MatrixBuffer, m: int, *, pivot_floor=None, regularize=False, fp64: bool = False,
           tiles=None) -> None:
    """L L^T = A's lower triangle, in place (its upper part left as it was); fp64: A
    holds float64 (Float64Matrix).  tiles (fp64 only: float64.TileLists): the tiles of L
    that may be nonzero -- each panel's substitution and update take only those.
    float32, from the order BLOCK_COLUMNS_FROM: by block columns of UPDATE_COLUMNS (LAPACK
    potrf's blocking), each factored by NB-wide panels that update only the block column,
    then the rest by one product."""
    if tiles is not None and not fp64:
        raise ValueError("a tile pattern is the float64 factor's (fp64=True)")
    if fp64:
        _factor64(ctx, A, m, pivot_floor, regularize, tiles)
        return
    wide = max(NB, UPDATE_COLUMNS // NB * NB) if m >= BLOCK_COLUMNS_FROM else NB
    if wide == NB:
        for K0 in range(0, m, NB):
            K1 = min(m, K0 + NB)
            _block_column(ctx, A, 0, K0, K1, m, pivot_floor, regularize)
            if K1 < m:                                  # everything right of the panel, at rank NB
                gemm(ctx, A, A, A, m=m - K1, n=m - K1, k=K1 - K0, alpha=-1.0, beta=1.0, a_at=(K1, K0),
                     b_at=(K1, K0), c_at=(K1, K1), lower=True)
        return
    # each block column A[K0:, K0:K1] factored in a buffer of its own (P, one for all) and
    # copied back: read and written in place, at A's row stride, its panels and the update
    # right of it ran at a fraction of their rate (RESULTS.md, round 34); the same sums, the same bits
    P = take(ctx, m, wide, "a block column, packed")
    try:
        for K0 in range(0, m, wide):
            K1 = min(m, K0 + wide)
            copy_block(ctx, A, K0 * A.ld + K0, P, 0, m - K0, K1 - K0)
            _block_column(ctx, P, K0, K0, K1, m, pivot_floor, regularize)
            copy_block(ctx, P, 0, A, K0 * A.ld + K0, m - K0, K1 - K0)
            if K1 < m:                                  # everything right of the block column, at rank K1 - K0
                gemm(ctx, A, P, P, m=m - K1, n=m - K1, k=K1 - K0, alpha=-1.0, beta=1.0, a_at=(K1 - K0, 0),
                     b_at=(K1 - K0, 0), c_at=(K1, K1), lower=True)
    finally:
        P.give()


def _block_column(ctx, B: MatrixBuffer, at: int, K0: int, K1: int, m: int, pivot_floor, regularize) -> None:
    """The columns K0 .. K1 of an order-m factor, held in B from row and column `at` (A
    itself: 0; a packed copy of the block column: K0): each NB-wide panel's diagonal block,
    its substitution below, and its update of the block column's columns right of it."""
    for k0 in range(K0, K1, NB):
        nb = min(NB, K1 - k0)
        potrf_block(ctx, B, k0 - at, nb, pivot_floor=pivot_floor, regularize=regularize)
        r0 = k0 + nb
        if r0 >= m:
            continue
        trsm_rows(ctx, B, k0 - at, nb, r0 - at, m - r0)
        if r0 < K1:                                     # the block column's own columns right of the panel
            gemm(ctx, B, B, B, m=K1 - r0, n=K1 - r0, k=nb, alpha=-1.0, beta=1.0, a_at=(r0 - at, k0 - at),
                 b_at=(r0 - at, k0 - at), c_at=(r0 - at, r0 - at), lower=True)
            if K1 < m:
                gemm(ctx, B, B, B, m=m - K1, n=K1 - r0, k=nb, alpha=-1.0, beta=1.0, a_at=(K1 - at, k0 - at),
                     b_at=(r0 - at, k0 - at), c_at=(K1 - at, r0 - at))


def _factor64(ctx, A, m: int, pivot_floor, regularize, tiles) -> None:
    """The float64 factor: every NB-wide panel updates all that is right of it (syrk64.comp),
    or (tiles) only the tiles that may be nonzero."""
    for kb, k0 in enumerate(range(0, m, NB)):
        nb = min(NB, m - k0)
        potrf_block(ctx, A, k0, nb, pivot_floor=pivot_floor, regularize=regularize, fp64=True)
        r0 = k0 + nb
        if r0 < m and tiles is not None:
            listed = tiles.below(kb)
            if listed[2]:
                trsm_rows(ctx, A, k0, nb, r0, m - r0, fp64=True, listed=listed)
                syrk64(ctx, A, r0, k0, nb, m - r0, listed=listed)
        elif r0 < m:
            trsm_rows(ctx, A, k0, nb, r0, m - r0, fp64=True)
            syrk64(ctx, A, r0, k0, nb, m - r0)


def cholesky(C32: np.ndarray, *, packed: bool = False, variant: str = "outer", ctx) -> np.ndarray:
    require(ctx)
    _refuse_packed(packed, variant)
    m = C32.shape[0]
    A = upload_lower(ctx, C32, "the Cholesky factorization")       # the factor reads nothing else
    try:
        out = Prefaulted((m, m), zero=True)  # zeroed (the upper part stays so) while the GPU factors
        factor(ctx, A, m)
        zero_upper(ctx, A, m)
        L = download_lower(ctx, A, m, out.array)
    finally:
        A.give()
    NotPositiveDefiniteError.check(np.diagonal(L), m)
    return L


def solve_buffer(ctx, L: MatrixBuffer, Xt: MatrixBuffer, m: int, nrhs: int, steps) -> None:
    """The substitutions `steps` (False: L Y = B, True: L^T X = Y) on X^T (nrhs x m), in place."""
    blocks = [(k0, min(NB, m - k0)) for k0 in range(0, m, NB)]
    for backward in steps:
        for k0, nb in (reversed(blocks) if backward else blocks):
            trsm_rhs(ctx, L, Xt, k0, nb, nrhs, backward)
            if backward and k0 > 0:          # rows above: X[:, :k0] -= X[:, blk] L[blk, :k0]
                gemm(ctx, Xt, Xt, L, m=nrhs, n=k0, k=nb, alpha=-1.0, beta=1.0, a_at=(0, k0), b_at=(k0, 0),
                     c_at=(0, 0), trans_b=True)
            elif not backward and k0 + nb < m:  # rows below: X[:, r0:] -= X[:, blk] L[r0:, blk]^T
                r0 = k0 + nb
                gemm(ctx, Xt, Xt, L, m=nrhs, n=m - r0, k=nb, alpha=-1.0, beta=1.0, a_at=(0, k0), b_at=(r0, k0),
                     c_at=(0, r0))


def solve(L32: np.ndarray, B32: np.ndarray, steps, *, packed: bool = False, ctx) -> np.ndarray:
    require(ctx)
    _refuse_packed(packed)
    m, nrhs = B32.shape
    L = upload(ctx, L32, "L")
    Xt = upload(ctx, np.ascontiguousarray(B32.T), "the right-hand sides")
    try:
        solve_buffer(ctx, L, Xt, m, nrhs, steps)
        return np.ascontiguousarray(download(ctx, Xt).T)
    finally:
        L.give()
        Xt.give()


def kernel_buffer(ctx, X: MatrixBuffer, N: int, d: int, *, kernel, gamma, degree, coef0, diag=0.0) -> MatrixBuffer:
    """K + diag I's lower triangle (upper zero) in a new buffer: the product's tiles with
    the kernel function applied as they are stored; the rbf kernel from squared
    distances summed directly (no |x|^2 + |y|^2 - 2 x.y cancellation)."""
    K = take(ctx, N, N, "the kernel matrix")
    uni = {"u_kind": KERNELS[kernel], "u_gamma": float(gamma), "u_coef0": float(coef0), "u_degree": int(degree),
           "u_diag": float(diag)}
    gemm(ctx, K, X, X, m=N, n=N, k=d, lower=True, dist2=kernel == "rbf", kernel=uni)
    zero_upper(ctx, K, N)
    return K


def kernel_matrix(X32, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0, packed=False, ctx) -> np.ndarray:
    require(ctx)
    _refuse_packed(packed)
    N, d = X32.shape
    X = upload(ctx, X32, "X")
    try:
        K = kernel_buffer(ctx, X, N, d, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0)
        try:
            return download(ctx, K)
        finally:
            K.give()
    finally:
        X.give()


__all__ = ["adat", "adat_buffer", "cholesky", "diagonal", "factor", "kernel_buffer", "kernel_matrix", "solve",
           "solve_buffer"]
