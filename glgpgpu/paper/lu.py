"""LU without pivoting by rasterization: the comparator of the 2008 paper's Fig. 9.

Galoppo et al.'s outer-product form (as tabulated in Jung 2006, Table 1(a)):
per k, with ping-pong textures S, T holding the whole m x m matrix,
  copy     row k (columns k..m-1) S -> T   (T's copy of that row is stale)
  normalize the column below the pivot S -> T, L(i, k) = A(i, k) / A(k, k); copy back
  eliminate over the square trailing domain S -> T: A(i, j) -= L(i, k) U(k, j)
  swap.
It updates both triangles, twice the fragments of the Cholesky triangle.
Meant for SPD or diagonally dominant input (no pivoting).
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Context, engine
from ..layouts.triangle import FullLayout
from ..validate import as_square


def lu_geometries(m: int):
    lay = FullLayout(m)
    out = []
    for k in range(m - 1):
        kk = k + .5
        out.append(geo.rectangle(k, k, m, k + 1, label=f"copy row {k}"))
        out.append(geo.column_run(lay, k, k + 1, m - 1, label=f"normalization / copy, column {k}"))
        out.append(geo.rectangle(k + 1, k + 1, m, m,
                                 t0=[(kk, k + 1), (kk, m), (kk, m), (kk, k + 1)],
                                 t1=[(k + 1, kk), (k + 1, kk), (m, kk), (m, kk)],
                                 label=f"elimination over the square, k={k}", names=("T0", "T1")))
    return out


def lu_texture(a_tex, m: int, *, ctx: Context):
    """Factor in place on the GPU; returns the texture holding L\\U (unit L implied)."""
    ctx = engine(ctx)
    K = ctx.kernels
    other = ctx.pool.take(m, m)
    other.clear(0.0)
    S, T = a_tex, other
    S.name, T.name = "A_S", "A_T"
    store = ctx.geometry.cached_store(("lu", m), lambda: lu_geometries(m))
    for k in range(m - 1):
        row, col, square = store[3 * k], store[3 * k + 1], store[3 * k + 2]
        K.draw("copy", T, row, {"S": S})
        K.draw("normalize", T, col, {"L": S})
        K.draw("copy", S, col, {"S": T})
        K.draw("lu_elimination", T, square, {"S": S})
        S, T = T, S
        S.name, T.name = "A_S", "A_T"
    ctx.pool.give(T)
    return S


def lu_nopivot(A, *, ctx: Context):
    """(L, U) with A = L U, L unit lower triangular; float32, on the GPU."""
    A = as_square(A, "A")
    ctx = engine(ctx)
    m = A.shape[0]
    tex = ctx.pool.take(m, m)
    tex.write(A)
    out = lu_texture(tex, m, ctx=ctx)
    LU = out.read()
    ctx.pool.give(out)
    return np.tril(LU, -1) + np.eye(m, dtype=np.float32), np.triu(LU)
