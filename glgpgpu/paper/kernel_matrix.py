"""Kernel matrices by rasterization, the first step of LS-SVM training (issue 15;
the PLSSVM thesis, seed 003, chapter 2): K(i, j) = k(x_i, x_j) over the lower
triangle only.  The Gram matrix G = X X^T is Algorithm 3 itself (A = X, D = I:
one Kernel 1 + Kernel 2 pass pair per feature, Fig. 2(b) or Fig. 4); one more
pass over the same triangle(s) applies the kernel function (kernel_function.frag).
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Stopwatch, resolve
from .assemble import assemble_texture
from .cholesky import diagonal_of, factor_texture
from .triangular import substitute_texture
from .packing import read_lower

KERNELS = {"linear": 0, "poly": 1, "rbf": 2}


def kernel_texture(X32, *, kernel: str = "rbf", gamma: float = 1.0, degree: int = 3, coef0: float = 0.0,
                   packed: bool = False, diag: float = 0.0, ctx=None):
    """The texture holding the lower triangle of K + diag I (full or packed); give it
    back to the pool.  diag is LS-SVM's 1/C (the thesis's cost on the diagonal)."""
    ctx = resolve(ctx)
    K = ctx.kernels
    N = X32.shape[0]
    g_tex = assemble_texture(X32, np.ones(X32.shape[1], np.float32), packed=packed, ctx=ctx)
    if kernel == "linear" and diag == 0:
        return g_tex
    norms = K.pool.take(1, N)
    out = K.pool.take(g_tex.rows, g_tex.cols)
    try:
        K.draw("diagonal", norms, geo.rectangle(0, 0, N, 1), {"L": g_tex}, {"u_m": N, "u_packed": int(packed)})
        out.clear(0.0)
        tri = K.cached_store(("kernel-tri", N, packed), lambda: [geo.outer_product_add(N, 0, packed)])[0]
        K.draw("kernel_function", out, tri, {"G": g_tex, "n": norms},
               {"u_kind": KERNELS[kernel], "u_gamma": float(gamma), "u_coef0": float(coef0),
                "u_degree": int(degree), "u_diag": float(diag)})
    except BaseException:
        K.pool.give(out)
        raise
    finally:
        K.pool.give(g_tex, norms)
    return out


def kernel_matrix(X32, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0, packed=False, ctx=None) -> np.ndarray:
    """K's lower triangle as a float32 (N, N) array (upper part zero)."""
    ctx = resolve(ctx)
    tex = kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed, ctx=ctx)
    try:
        return read_lower(tex, X32.shape[0], packed, ctx)
    finally:
        ctx.kernels.pool.give(tex)


class KernelFactor:
    """L L^T = K + (1/C + jitter) I on the GPU by the paper's kernels (Algorithm 3's
    Gram matrix, the kernel-function pass, Algorithm 5), kept for solves: solve(R)
    runs both multipass substitutions on the columns of R (N x k, float64 in and out).
    The same operation as blocked.KernelFactor."""

    def __init__(self, X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx=None, watch=None):
        self.ctx = ctx = resolve(ctx)
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.N, self.packed = X32.shape[0], packed
        with self.watch("form"):
            h_tex = kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed,
                                   diag=diag, ctx=ctx)
        with self.watch("factor"):
            self.l_tex = factor_texture(h_tex, self.N, packed=packed, ctx=ctx)
            self.pivots = diagonal_of(self.l_tex, self.N, packed, ctx)

    def solve(self, R: np.ndarray) -> np.ndarray:
        K = self.ctx.kernels
        with self.watch("solve"):
            t = K.pool.take(self.N, R.shape[1], "LS-SVM right-hand sides")
            t.write(R.astype(np.float32))
            for backward in (False, True):
                t = substitute_texture(self.l_tex, self.N, t, packed=self.packed, backward=backward, ctx=self.ctx)
            out = t.read().astype(np.float64)
            K.pool.give(t)
        return out

    def release(self) -> None:
        self.ctx.kernels.pool.give(self.l_tex)
        self.l_tex = None
