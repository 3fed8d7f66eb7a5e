"""Triangular solves on the GPU (Jung 2006, level-2 kernels: forward and backward
substitution, multipass).

The right-hand sides live in an m x nrhs texture (one column per right-hand
side).  Pass k of forward substitution solves unknown k and removes it from the
rows below, for all right-hand sides at once; backward substitution with L^T
runs k from m-1 down.  L stays in its texture (full or packed layout), so a
factor computed by `cholesky` is used where it lies.
"""
from __future__ import annotations

import numpy as np

from . import geometry as geo
from ._checks import as_rhs, as_square
from .triangle_io import lower_of, upload_lower
from .context import Context, resolve
from .textures import PingPong


def substitute_texture(l_tex, m: int, b_tex, *, packed: bool, backward: bool,
                       ctx: Context | None = None):
    """Solve L y = B (backward=False) or L^T x = B (backward=True) on the GPU.
    `b_tex` (m x nrhs) is consumed; returns the texture with the solution."""
    ctx = resolve(ctx)
    K = ctx.kernels
    pp = PingPong(b_tex, K.pool.take(b_tex.rows, b_tex.cols))
    rect = K.cached_store(("rect", b_tex.cols, m), lambda: [geo.rectangle(0, 0, b_tex.cols, m)])[0]
    order = range(m - 1, -1, -1) if backward else range(m)
    base = {"u_m": m, "u_packed": int(packed), "u_backward": int(backward)}
    for k in order:
        K.draw("triangular_solve", pp.target, rect, {"L": l_tex, "B": pp.source}, dict(base, u_k=k))
        pp.swap()
    K.pool.give(pp.target)
    return pp.source


def _solve(L_lower: np.ndarray, B, steps, packed: bool, ctx, method="auto"):
    from . import blocked

    m = L_lower.shape[0]
    B2, was_1d = as_rhs(B, m)
    ctx = resolve(ctx)
    if blocked.choose(method, ctx, packed=packed) == "blocked":
        X = blocked.solve(L_lower, B2, steps, ctx=ctx)
        return X[:, 0] if was_1d else X
    K = ctx.kernels
    ctx.check_size(m, B2.shape[1], "the right-hand sides B")
    l_tex = upload_lower(L_lower, packed, ctx, "the triangular matrix")
    x_tex = K.pool.take(m, B2.shape[1])
    x_tex.write(B2)
    try:
        for backward in steps:
            x_tex = substitute_texture(l_tex, m, x_tex, packed=packed, backward=backward, ctx=ctx)
        X = x_tex.read()
    finally:
        K.pool.give(l_tex, x_tex)
    return X[:, 0] if was_1d else X


def solve_triangular(L, B, *, lower: bool = True, trans: bool = False, packed: bool = False,
                     method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """Solve op(T) X = B on the GPU for triangular T, like scipy.linalg.solve_triangular.

    lower=True reads the lower triangle of L, lower=False the upper; trans=True
    solves with the transpose.  B is (m,) or (m, nrhs); returns float32 of B's shape.
    """
    T = as_square(L, "L")
    Ls = lower_of(T, lower)
    # Stored as a lower triangle Ls: which direction does op(T) need?
    backward = (trans if lower else not trans)
    return _solve(Ls, B, [backward], packed, ctx, method)


def cho_solve(L, B, *, packed: bool = False, method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """Solve (L L^T) X = B given the Cholesky factor L, by forward then backward
    substitution on the GPU (method: "paper", "blocked" or "auto", as cholesky)."""
    Ls = as_square(L, "L")
    return _solve(np.tril(Ls), B, [False, True], packed, ctx, method)
