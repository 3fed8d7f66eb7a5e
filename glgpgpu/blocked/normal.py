"""The normal-equations operation by the blocked kernels: the same classes as
paper/normal.py (NormalSystem and NormalFactor for numpy callers, ResidentNormal
for the float32 LP solver's textures), on RGBA storage padded to a multiple of
the panel."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .. import figures as geo
from ..figures.points import normal_points, pair_count
from ..gl import Stopwatch, engine
from ..methods.points import POINT_COST, PointAssembly, PointsNormal, dense_columns, points_pay
from ..methods.resident import NormalSystemBase, ResidentFactor, single_factor
from ..layouts.rgba import to_rgba
from ..gl.transfer import read_rgba_lower, solve_column, upload_rgba
from .adat import LOWER, adat_texture, product_texture
from .cholesky import diagonal, factor_texture
from ..tiled import TiledNormalSystem as _TiledNormal, tile_grid
from .tile_kernels import BlockedTiles
from .sizes import ADAT_BLOCK, padded, require, start_normal
from .triangular import substitute_texture


class OneTextureNormal(ResidentFactor, NormalSystemBase):
    """A D A^T for a fixed A and changing weights d (blocked RGBA, order padded to
    a multiple of the panel): A uploaded once, `factor(d)` per weight vector,
    `solve(r)` against the float32 factor, float64 out."""

    reads_lower = True

    def __init__(self, A32, *, packed: bool = False, variant: str = "outer", ctx,
                 watch: Stopwatch | None = None):
        start_normal(self, A32, packed, variant, ctx, watch)
        ctx = self.ctx
        self.l_tex = self.pivots = None
        self.n4 = -(-self.n // 4) * 4
        self.rows = padded(self.m)
        ctx.check_size(self.m, self.n4 // 4, f"A (m={self.m}, blocked)")
        with self.watch("transfer"):
            self.a_tex = upload_rgba(ctx, A32, self.m, self.n4, "A")
            self.d_tex = ctx.pool.take(1, self.n4 // 4, components=4)

    def update_matrix(self, A32) -> None:
        """A new A of the same shape (the mixed LP solver scales its rows each iteration)."""
        if A32.shape != (self.m, self.n):
            raise ValueError(f"A must stay {self.m}x{self.n}, got {A32.shape}")
        self.a_tex.write(to_rgba(A32, self.m, self.n4))

    def factor(self, d32, *, pivot_floor: float | None = None, regularize: bool = False, row_scale=None):
        """Form and factor A diag(d32) A^T; returns L's diagonal (the pivots)."""
        self._refuse_row_scale(row_scale)
        ctx, m, watch = self.ctx, self.m, self.watch
        self._free_factor()
        with watch("transfer"):
            self.d_tex.write(to_rgba(d32[None, :], 1, self.n4))
        with watch("assemble"):
            self.l_tex = adat_texture(self.a_tex, self.d_tex, m, mp=self.rows, ctx=ctx)
        with watch("factor"):
            factor_texture(self.l_tex, m, pivot_floor=pivot_floor, regularize=regularize, ctx=ctx)
            self.pivots = diagonal(self.l_tex, m, ctx=ctx)
        return self.pivots

    def solve(self, rhs: np.ndarray, phase: str = "solve") -> np.ndarray:
        """x with L L^T x = rhs (float32 on the GPU), returned as float64."""
        return solve_column(self.ctx, rhs, self.rows,
                            lambda t, backward: substitute_texture(self.l_tex, self.m, t, backward=backward,
                                                                  ctx=self.ctx),
                            self.watch, phase)

    def lower(self) -> np.ndarray:
        """The float32 factor L (m x m, upper part zero), read back once."""
        with self.watch("transfer"):
            return self._read_lower(self.l_tex)

    def _read_lower(self, tex) -> np.ndarray:
        return read_rgba_lower(tex, self.m)

class TiledNormalSystem(_TiledNormal):
    """OneTextureNormal's operation on tiles): glgpgpu.tiled's
    TiledNormalSystem with the blocked kernels, for m beyond one texture."""

    def __init__(self, A32, *, packed: bool = False, variant: str = "outer", ctx,
                 watch: Stopwatch | None = None):
        start_normal(self, A32, packed, variant, ctx, watch)
        ctx = self.ctx
        super().__init__(A32, BlockedTiles(ctx), tile_grid(ctx, self.m, BlockedTiles).t, watch=self.watch)


def _chosen(ctx, shape):
    return OneTextureNormal if BlockedTiles.fits(ctx, *shape) else TiledNormalSystem


class SparseNormal(PointsNormal, OneTextureNormal):
    """OneTextureNormal for a scipy.sparse A whose points pay (methods/points.py):
    C = S A D A^T S added by points into the blocked RGBA storage (each point's
    component is its column mod 4; in the diagonal 8 x 8 blocks both halves, as
    blocked_adat leaves them), then the blocked Cholesky and solves.  `dense`: columns
    too dense for points (methods.points.dense_columns), formed first by blocked_adat,
    the 2008 kernel -- S A_D uploaded per factorization (m x a few) -- the points
    added on top."""

    def __init__(self, A, *, packed: bool = False, variant: str = "outer", ctx,
                 watch: Stopwatch | None = None, dense=()):
        start_normal(self, A, packed, variant, ctx, watch)
        self.l_tex = self.pivots = None
        self.rows = padded(self.m)
        A = sp.csc_matrix(A)
        self.dense = np.asarray(dense, np.int64)
        self.sparse = np.setdiff1d(np.arange(self.n), self.dense)
        self.dense_tex = self.dense_d = None
        self.assembly_name = "points+dense" if self.dense.size else "points"
        with self.watch("transfer"):
            self.assembly = PointAssembly(self.ctx, normal_points(A[:, self.sparse], lambda i, k: (k // 4, i, k % 4),
                                                                  mirror_block=ADAT_BLOCK[0]),
                                          self.m, self.sparse.size)
            if self.dense.size:
                self.A_dense = A[:, self.dense].toarray().astype(np.float64)
                self.k4 = -(-self.dense.size // 4) * 4
                self.dense_tex = self.ctx.pool.take(self.m, self.k4 // 4, components=4)
                self.dense_d = self.ctx.pool.take(1, self.k4 // 4, components=4)

    def _form(self, d32, row_scale):
        if not self.dense.size:
            return super()._form(d32, row_scale)
        s = np.ones(self.m, np.float32) if row_scale is None else row_scale
        c_tex = self._new_target()
        c_tex.name = "C"
        c_tex.clear(0.0)
        with self.watch("assemble"):
            # S A_D rounded once from A's float64 values, as the dense assembly's S A is
            self.dense_tex.write(to_rgba((self.A_dense * np.asarray(s, np.float64)[:, None]).astype(np.float32),
                                        self.m, self.k4))
            self.dense_d.write(to_rgba(np.asarray(d32, np.float32)[None, self.dense], 1, self.k4))
            product_texture(c_tex, self.dense_tex, self.dense_tex, self.dense_d, self.m, cover=LOWER, ctx=self.ctx)
            self.assembly.add(c_tex, np.asarray(d32)[self.sparse], s)
        return c_tex

    def release(self) -> None:
        super().release()
        self.ctx.pool.give(*(t for t in (getattr(self, "dense_tex", None), getattr(self, "dense_d", None))
                             if t is not None))
        self.dense_tex = self.dense_d = None

    def _new_target(self):
        return self.ctx.pool.take(self.rows, self.rows // 4, components=4)

    def factor(self, d32, *, pivot_floor: float | None = None, regularize: bool = False, row_scale=None):
        """Form S A diag(d32) A^T S by points and factor it (in place); returns the pivots."""
        ctx, m = self.ctx, self.m
        self._free_factor()
        self.l_tex = self._form(d32, row_scale)
        with self.watch("factor"):
            factor_texture(self.l_tex, m, pivot_floor=pivot_floor, regularize=regularize, ctx=ctx)
            self.pivots = diagonal(self.l_tex, m, ctx=ctx)
        return self.pivots


def normal_system(A32, *, packed: bool = False, variant: str = "outer", ctx, watch: Stopwatch | None = None):
    """The normal-equations operation for A (m x n float32): OneTextureNormal when
    A and C fit one texture, else TiledNormalSystem) -- the same methods.  A
    scipy.sparse A whose nonzero pairs are far fewer than the dense assembly's
    fragments gets SparseNormal (points)."""
    ctx = engine(ctx)
    if sp.issparse(A32):
        m, n = A32.shape
        A32 = sp.csc_matrix(A32)
        if _chosen(ctx, A32.shape) is OneTextureNormal and not packed:
            if points_pay(m, n, pair_count(A32)):
                return SparseNormal(A32, packed=packed, variant=variant, ctx=ctx, watch=watch)
            # a few long columns made the points too dear (fit2p): those to the dense kernel,
            # the rest as points, where that is a clear win (a quarter of the dense work)
            dense = dense_columns(A32)
            work = pair_count(A32[:, np.setdiff1d(np.arange(n), dense)]) + dense.size * m * (m + 1) // 2 // POINT_COST
            if points_pay(m, n, 4 * work):
                return SparseNormal(A32, packed=packed, variant=variant, ctx=ctx, watch=watch, dense=dense)
        A32 = np.ascontiguousarray(A32.toarray(), np.float32)
    return _chosen(ctx, A32.shape)(A32, packed=packed, variant=variant, ctx=ctx, watch=watch)


_FACTORS = {cls: single_factor(cls) for cls in (OneTextureNormal, TiledNormalSystem)}


def normal_factor(A32, d32, *, packed: bool = False, ctx, watch: Stopwatch | None = None):
    """The factor of A diag(d32) A^T for one weight vector (NotPositiveDefiniteError
    if a pivot failed), on one texture or on tiles as NormalSystem chooses."""
    ctx = engine(ctx)
    return _FACTORS[_chosen(ctx, A32.shape)](A32, d32, packed=packed, ctx=ctx, watch=watch)


class ResidentNormal(ResidentFactor):
    """Blocked form-and-factor from an RGBA copy of A; vectors in column textures."""

    def __init__(self, V, A_tex, A_host, *, packed: bool = False, variant: str = "outer"):
        if packed or variant != "outer":
            raise ValueError("the blocked normal equations have no packed layout and only the outer variant")
        self.V, self.ctx = V, V.ctx
        require(self.ctx)
        self.m, self.n = A_tex.rows, A_tex.cols
        self.n4 = -(-self.n // 4) * 4
        self.mp = padded(self.m)
        self.a_tex = upload_rgba(self.ctx, np.asarray(A_host, np.float32), self.m, self.n4, "A")
        self.l_tex = None

    def factor(self, d2_tex, pivot_rel: float) -> None:
        K, V = self.ctx.kernels, self.V
        self._free_factor()
        drow = self.ctx.pool.take(1, self.n4 // 4, components=4)
        K.draw("pack4", drow, geo.rectangle(0, 0, self.n4 // 4, 1), {"S": d2_tex}, {"u_len": self.n})
        c_tex = adat_texture(self.a_tex, drow, self.m, mp=self.mp, ctx=self.ctx)
        self.ctx.pool.give(drow)
        dg = self.ctx.pool.take(1, self.m)
        K.draw("blocked_diagonal", dg, geo.rectangle(0, 0, self.m, 1), {"L": c_tex}, {"u_m": self.m})
        col = self.ctx.pool.take(self.m, 1)
        V.transpose(col, dg)
        cmax = V.reduce("max", col)
        self.ctx.pool.give(dg, col)
        self.l_tex = factor_texture(c_tex, self.m, pivot_floor=pivot_rel * max(cmax, 1e-30), ctx=self.ctx)

    def solve(self, r_tex):
        K, V = self.ctx.kernels, self.V
        t = V.new(self.mp, "rhs")
        t.clear(0.0)
        K.draw("copy", t, V._rect(self.m), {"S": r_tex})
        for backward in (False, True):
            t = substitute_texture(self.l_tex, self.m, t, backward=backward, ctx=self.ctx)
        res = V.new(self.m, "x")
        K.draw("copy", res, V._rect(self.m), {"S": t})
        V.free(t)
        return res
