"""LS-SVM kernel matrices by the blocked path (issue 15, step 1): blocked_adat's
register-blocked Gram matrix X X^T with the kernel function as an epilogue in
the same pass (blocked_kernel_matrix.frag), full or blocked packed; and the
KernelFactor operation the LS-SVM solver uses (kernel matrix + 1/C + jitter on
the diagonal, factored by the blocked Cholesky, solves on the GPU)."""
from __future__ import annotations

import numpy as np

from ..gl import Context, Stopwatch, resolve
from ..layouts.rgba import unpack_blocks
from ..layouts.transfer import read_rgba, upload_rgba
from .adat import adat_texture
from .cholesky import diagonal, factor_texture
from .tiles import ADAT_TILE, P_PANEL, padded, require
from .triangular import substitute_texture

KERNELS = {"linear": 0, "poly": 1, "rbf": 2}


def kernel_texture(X32, *, kernel: str = "rbf", gamma: float = 1.0, degree: int = 3, coef0: float = 0.0,
                   packed: bool = False, diag: float = 0.0, mp: int | None = None, ctx: Context | None = None):
    """The RGBA texture of K + diag I's lower triangle (order padded to mp); give it back.
    The squared norms come from the host (float32, O(N d)), 4 per texel."""
    ctx = resolve(ctx)
    require(ctx)
    N, d = X32.shape
    tile = (ADAT_TILE[1], ADAT_TILE[1]) if packed else ADAT_TILE
    mp = mp or padded(N, max(tile[0], 4))
    n4 = -(-d // 4) * 4
    ctx.check_size(mp, max(n4, mp) // 4, f"X (N={N}, blocked)")
    K = ctx.kernels
    a_tex = upload_rgba(ctx, X32, mp, n4, "X")
    d_tex = upload_rgba(ctx, np.ones((1, d), np.float32), 1, n4, "ones")
    norms = upload_rgba(ctx, np.einsum("ij,ij->i", X32, X32)[None, :].astype(np.float32), 1, -(-mp // 4) * 4,
                        "squared norms")
    try:
        uni = {"u_kind": KERNELS[kernel], "u_gamma": float(gamma), "u_coef0": float(coef0),
               "u_degree": int(degree), "u_diag": float(diag)}
        return adat_texture(a_tex, d_tex, N, tile=tile, mp=mp, packed=packed, ctx=ctx, epilogue=(norms, uni))
    finally:
        K.pool.give(a_tex, d_tex, norms)


def kernel_matrix(X32, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0, packed=False, ctx=None) -> np.ndarray:
    """K's lower triangle as float32 (N, N), upper part zero."""
    ctx = resolve(ctx)
    N = X32.shape[0]
    tex = kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed, ctx=ctx)
    try:
        if packed:
            return unpack_blocks(tex.read().reshape(tex.rows, -1), N, ADAT_TILE[1])
        return np.tril(read_rgba(tex, N, N))
    finally:
        ctx.kernels.pool.give(tex)


class KernelFactor:
    """L L^T = K + (1/C + jitter) I on the GPU (formed with the kernel epilogue,
    factored by the blocked Cholesky) and kept for solves: solve(R) runs both
    substitutions on the columns of R (N x k float64 in, float64 out)."""

    def __init__(self, X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx=None, watch=None):
        if packed:
            raise ValueError("the blocked LS-SVM factor has no packed layout; use method='paper' for packed=True")
        self.ctx = ctx = resolve(ctx)
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.N = N = X32.shape[0]
        self.mp = padded(N, P_PANEL)
        with self.watch("form"):
            self.l_tex = kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=diag,
                                        mp=self.mp, ctx=ctx)
        try:
            with self.watch("factor"):
                factor_texture(self.l_tex, N, ctx=ctx)
                self.pivots = diagonal(self.l_tex, N, ctx)
        except BaseException:
            self.release()
            raise

    def solve(self, R: np.ndarray) -> np.ndarray:
        K = self.ctx.kernels
        with self.watch("solve"):
            t = K.pool.take(self.mp, R.shape[1], "LS-SVM right-hand sides")
            full = np.zeros((self.mp, R.shape[1]), np.float32)
            full[:self.N] = R
            t.write(full)
            for backward in (False, True):
                t = substitute_texture(self.l_tex, self.N, t, backward=backward, ctx=self.ctx)
            out = t.read()[:self.N].astype(np.float64)
            K.pool.give(t)
        return out

    def release(self) -> None:
        self.ctx.kernels.pool.give(self.l_tex)
        self.l_tex = None
