"""The normal-equations operation of the solvers, by the papers' kernels:
C = A D^2 A^T formed by Algorithm 3 and factored by Algorithm 5 (or the
inner-product form) without leaving the GPU, then solves against the float32
factor where it lies.  blocked/normal.py has the same two classes.

NormalSystem    A uploaded once, factor(d) per weight vector, float64 solves out:
                the mixed-precision LP solver.
NormalFactor    the same for one weight vector: weighted least squares.
ResidentNormal  A, d2 and right-hand sides already in textures: the float32 LP solver.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .. import figures as geo
from ..figures.points import normal_points, pair_count
from ..gl import Stopwatch, engine
from ..layouts.triangle import layout_for
from ..methods.points import PointAssembly, PointsNormal, points_pay
from ..methods.resident import NormalSystemBase, ResidentFactor, single_factor
from ..gl.transfer import read_lower, solve_column
from .assemble import Accumulator, assemble_resident, assemble_texture
from .cholesky import diagonal, factor_texture
from .tile_kernels import PaperTiles
from .tiled import TiledNormalSystem
from .triangular import substitute_texture


class OneTextureNormal(ResidentFactor, NormalSystemBase):
    """A D A^T for a fixed A and changing weights d: A is uploaded once, each
    `factor(d)` forms C by Algorithm 3 and factors it by Algorithm 5 on the GPU;
    `solve(r)` runs both substitutions against the float32 factor (float64 out).

    pivot_floor / regularize: see paper.cholesky.factor_texture (the mixed-precision
    LP solver regularizes pivots below a floor instead of failing)."""

    reads_lower = True

    def __init__(self, A32, *, packed: bool = False, variant: str = "outer", ctx,
                 watch: Stopwatch | None = None):
        self.ctx = ctx = engine(ctx)
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.m, self.n = A32.shape
        self.rows, self.packed, self.variant = self.m, packed, variant
        self.l_tex = self.pivots = None
        self.A32 = A32
        self.a_tex = self.d_tex = None
        if self.n <= ctx.max_texture_size:          # else assemble_texture uploads A in blocks each time
            ctx.check_size(self.m, self.n, f"A (m={self.m})")
            with self.watch("transfer"):
                self.a_tex = ctx.pool.take(self.m, self.n)
                self.a_tex.write(A32)
                self.d_tex = ctx.pool.take(1, self.n)
            self.a_tex.name, self.d_tex.name = "A", "d"

    def update_matrix(self, A32) -> None:
        """A new A of the same shape (the mixed LP solver scales its rows each iteration)."""
        if A32.shape != (self.m, self.n):
            raise ValueError(f"A must stay {self.m}x{self.n}, got {A32.shape}")
        self.A32 = A32
        if self.a_tex is not None:
            self.a_tex.write(A32)

    def factor(self, d32, *, pivot_floor: float | None = None, regularize: bool = False, row_scale=None):
        """Form and factor A diag(d32) A^T; returns L's diagonal (the pivots)."""
        self._refuse_row_scale(row_scale)
        ctx, m, watch = self.ctx, self.m, self.watch
        self._free_factor()
        if self.a_tex is None:
            c_tex = assemble_texture(self.A32, d32, packed=self.packed, ctx=ctx, watch=watch)
        else:
            with watch("transfer"):
                self.d_tex.write(d32[None, :])
            acc = Accumulator(ctx, m, self.packed)
            acc.add(self.a_tex, self.d_tex, self.n, watch)
            c_tex = acc.finish()
        with watch("factor"):
            self.l_tex = factor_texture(c_tex, m, packed=self.packed, variant=self.variant, ctx=ctx,
                                        pivot_floor=pivot_floor, regularize=regularize)
            self.pivots = diagonal(self.l_tex, m, self.packed, ctx=ctx)
        return self.pivots

    def solve(self, rhs: np.ndarray, phase: str = "solve") -> np.ndarray:
        """x with L L^T x = rhs (float32 on the GPU), returned as float64."""
        return solve_column(self.ctx, rhs, self.rows,
                            lambda t, backward: substitute_texture(self.l_tex, self.m, t, packed=self.packed,
                                                                  backward=backward, ctx=self.ctx),
                            self.watch, phase)

    def lower(self) -> np.ndarray:
        """The float32 factor L (m x m, upper part zero), read back once."""
        with self.watch("transfer"):
            return self._read_lower(self.l_tex)

    def _read_lower(self, tex) -> np.ndarray:
        return read_lower(tex, self.m, self.packed)

class SparseNormal(PointsNormal, OneTextureNormal):
    """OneTextureNormal for a scipy.sparse A whose points pay (methods/points.py):
    C = S A D A^T S formed by points with additive blending (figures/points.py)
    instead of Algorithm 3, then factored and solved by the papers' kernels."""

    def __init__(self, A, *, packed: bool = False, variant: str = "outer", ctx,
                 watch: Stopwatch | None = None):
        self.ctx = ctx = engine(ctx)
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.m, self.n = A.shape
        self.rows, self.packed, self.variant = self.m, packed, variant
        self.l_tex = self.pivots = None
        self.layout = lay = layout_for(self.m, packed)
        ctx.check_size(lay.height, lay.width, f"C = A D A^T ({'packed' if packed else 'full'}, m={self.m})")

        def texel(i, k):
            x, y = lay.texel(i, k)
            return x, y, 0

        with self.watch("transfer"):
            self.assembly = PointAssembly(ctx, normal_points(A, texel), self.m, self.n)

    def _new_target(self):
        return self.ctx.pool.take(self.layout.height, self.layout.width)

    def _read_lower(self, tex) -> np.ndarray:
        return read_lower(tex, self.m, self.packed)

    def factor(self, d32, *, pivot_floor: float | None = None, regularize: bool = False, row_scale=None):
        """Form S A diag(d32) A^T S by points and factor it; returns the pivots."""
        ctx, m = self.ctx, self.m
        self._free_factor()
        c_tex = self._form(d32, row_scale)
        with self.watch("factor"):
            self.l_tex = factor_texture(c_tex, m, packed=self.packed, variant=self.variant, ctx=ctx,
                                        pivot_floor=pivot_floor, regularize=regularize)
            self.pivots = diagonal(self.l_tex, m, self.packed, ctx=ctx)
        return self.pivots


def normal_system(A32, *, packed: bool = False, variant: str = "outer", ctx, watch: Stopwatch | None = None):
    """The normal-equations operation for A (m x n float32): OneTextureNormal when C
    fits one texture, else R32F tiles (tiled.TiledNormalSystem with the papers' kernels;
    full layout only) -- the same methods.  A scipy.sparse A whose nonzero pairs are
    far fewer than the dense assembly's fragments gets SparseNormal (points)."""
    ctx = engine(ctx)
    m, n = A32.shape
    if sp.issparse(A32):
        if _chosen(ctx, m, packed) is OneTextureNormal and points_pay(m, n, pair_count(A32)):
            return SparseNormal(A32, packed=packed, variant=variant, ctx=ctx, watch=watch)
        A32 = np.ascontiguousarray(A32.toarray(), np.float32)
    return _chosen(ctx, m, packed)(A32, packed=packed, variant=variant, ctx=ctx, watch=watch)


def _chosen(ctx, m: int, packed: bool):
    return OneTextureNormal if packed or PaperTiles.fits(ctx, m) else TiledNormalSystem


_FACTORS = {cls: single_factor(cls) for cls in (OneTextureNormal, TiledNormalSystem)}


def normal_factor(A32, d32, *, packed: bool = False, ctx, watch: Stopwatch | None = None):
    """The factor of A diag(d32) A^T for one weight vector (NotPositiveDefiniteError
    if a pivot failed), in one texture or on tiles as NormalSystem chooses."""
    ctx = engine(ctx)
    return _FACTORS[_chosen(ctx, A32.shape[0], packed)](A32, d32, packed=packed, ctx=ctx, watch=watch)


class ResidentNormal(ResidentFactor):
    """Form and factor A D^2 A^T from textures, solve with column textures.

    A: the m x n R32F texture of the constraint matrix; `factor(d2)` takes d2 as
    an n x 1 texture; `solve(r)` returns a new m x 1 texture (the caller frees it)."""

    def __init__(self, V, A_tex, A_host=None, *, packed: bool = False, variant: str = "outer"):
        self.V, self.ctx, self.A = V, V.ctx, A_tex
        self.m, self.n = A_tex.rows, A_tex.cols
        self.packed, self.variant = packed, variant
        self.l_tex = None

    def factor(self, d2_tex, pivot_rel: float) -> None:
        """L L^T = A diag(d2) A^T; pivots below pivot_rel * max diag(C) are dropped."""
        K, V = self.ctx.kernels, self.V
        self._free_factor()
        row = self.ctx.pool.take(1, self.n)
        V.transpose(row, d2_tex)
        c_tex = assemble_resident(self.A, row, packed=self.packed, ctx=self.ctx)
        self.ctx.pool.give(row)
        # the diagonal of C, for a pivot floor relative to its largest entry
        drow = self.ctx.pool.take(1, self.m)
        K.draw("diagonal", drow, geo.rectangle(0, 0, self.m, 1), {"L": c_tex},
               {"u_m": self.m, "u_packed": int(self.packed)})
        diag = self.ctx.pool.take(self.m, 1)
        V.transpose(diag, drow)
        cmax = V.reduce("max", diag)
        self.ctx.pool.give(drow, diag)
        self.l_tex = factor_texture(c_tex, self.m, packed=self.packed, variant=self.variant, ctx=self.ctx,
                                pivot_floor=pivot_rel * max(cmax, 1e-30))

    def solve(self, r_tex):
        t = self.V.new(self.m, "rhs")
        self.ctx.kernels.draw("copy", t, self.V._rect(self.m), {"S": r_tex})
        for backward in (False, True):
            t = substitute_texture(self.l_tex, self.m, t, packed=self.packed, backward=backward, ctx=self.ctx)
        return t
