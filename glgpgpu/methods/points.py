"""A·D·Aᵀ of a sparse A added into a texture by points (figures/points.py), for the
normal systems of the fragment methods: the vertex table uploaded once per A,
d and the row scaling s uploaded per factorization, one draw with additive
blending (shaders/paper/sparse_outer_product_add.frag)."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: a point costs about this many multiply-adds of the dense assembly (H100, blocked:
#: points blend one at a time into texels many columns share; benchmarks/RESULTS.md);
#: where the points would cost more (nearly dense columns), the dense assembly is used
POINT_COST = 2048
#: vertex tables above this many points (32 bytes each) are not built
MAX_POINTS = 1 << 26


def points_pay(m: int, n: int, points: int) -> bool:
    """Whether the points beat the dense assembly's m(m+1)/2 fragments per column."""
    return points <= MAX_POINTS and points * POINT_COST <= n * m * (m + 1) // 2


def dense_columns(A) -> np.ndarray:
    """The columns of a sparse A whose points would cost more than the dense assembly of
    that one column (nnz_j (nnz_j + 1) / 2 points against m (m + 1) / 2 fragments):
    fit2p's 25 columns of 3000 nonzeros, which made the whole of A go dense."""
    m = A.shape[0]
    c = np.diff(sp.csc_matrix(A).indptr).astype(np.int64)
    return np.flatnonzero(c * (c + 1) * POINT_COST > m * (m + 1))


class PointAssembly:
    """The points of one A (a figures.points.Points) on the GPU, and the sqrt(d) and
    s textures they read; `add(target, d, s)` adds s_i s_k Σ_j d_j a_ij a_kj to the target."""

    def __init__(self, ctx, points, m: int, n: int):
        self.ctx, self.m, self.n = ctx, m, n
        self.width = min(max(n, 1), ctx.max_texture_size)
        self.r_rows = -(-max(n, 1) // self.width)
        ctx.check_size(self.r_rows, self.width, f"the weights of A's {n} columns")
        self.store = ctx.geometry.store([points])
        self.r_tex = ctx.pool.take(self.r_rows, self.width)
        self.s_tex = ctx.pool.take(1, max(m, 1))
        self.r_tex.name, self.s_tex.name = "sqrt(d)", "s"
        self._r = np.zeros(self.r_rows * self.width, np.float32)

    def add(self, target, d, s) -> None:
        """d >= 0 (n), s (m): float64 or float32; sqrt(d) is taken in float64."""
        self._r[:self.n] = np.sqrt(np.asarray(d, np.float64))
        self.r_tex.write(self._r.reshape(self.r_rows, self.width))
        self.s_tex.write(np.asarray(s, np.float32).reshape(1, -1))
        if len(self.store[0].geometry.corners):
            self.ctx.kernels.draw("sparse_outer_product_add", target, self.store[0], {"r": self.r_tex, "s": self.s_tex},
                                  {"u_width": self.width}, blend=True)

    def release(self) -> None:
        if self.store is not None:
            self.store.release()
            self.ctx.pool.give(self.r_tex, self.s_tex)
            self.store = None


class PointsNormal:
    """What the fragment methods' sparse normal systems share (mixed in before their
    OneTextureNormal): A kept as points, C formed by them into a fresh target
    (`_new_target`, the method's layout), read back by `_read_lower`; A never changes,
    the rows' scaling comes with each factor(row_scale=)."""

    takes_row_scale = True
    assembly_name = "points"
    assembly = None

    def update_matrix(self, A32) -> None:       # before OneTextureNormal's: A is kept as points
        raise TypeError("a sparse normal system keeps its A: pass the rows' scaling to factor(row_scale=)")

    def _form(self, d32, row_scale):
        c_tex = self._new_target()
        c_tex.name = "C"
        c_tex.clear(0.0)
        with self.watch("assemble"):
            self.assembly.add(c_tex, d32, np.ones(self.m, np.float32) if row_scale is None else row_scale)
        return c_tex

    def form(self, d32, row_scale=None) -> np.ndarray:
        """tril(S A diag(d32) A^T S) as the points form it, read back (tests, teaching)."""
        c_tex = self._form(d32, row_scale)
        try:
            return self._read_lower(c_tex)
        finally:
            self.ctx.pool.give(c_tex)

    def release(self) -> None:
        super().release()
        if self.assembly is not None:
            self.assembly.release()
            self.assembly = None
