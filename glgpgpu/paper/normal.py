"""The normal-equations operation of the solvers, by the papers' kernels:
C = A D^2 A^T formed by Algorithm 3 and factored by Algorithm 5 (or the
inner-product form) without leaving the GPU, then solves against the float32
factor where it lies.  blocked/normal.py has the same two classes.

NormalFactor    numpy in (A, d2), float64 solves out: weighted least squares.
ResidentNormal  A, d2 and right-hand sides already in textures: the LP solver.
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Stopwatch, resolve
from ..layouts.transfer import solve_column
from .assemble import assemble_resident, assemble_texture
from .cholesky import check_pivots, factor_texture
from .triangular import substitute_texture


class NormalFactor:
    """The float32 Cholesky factor L of A D^2 A^T on the GPU (Algorithms 3 + 5).

    `pivots` is L's diagonal; NotPositiveDefiniteError if a pivot failed."""

    def __init__(self, A32, d32, *, packed: bool = False, ctx=None, watch: Stopwatch | None = None):
        self.ctx = ctx = resolve(ctx)
        self.watch = watch = watch or Stopwatch(ctx, enabled=False)
        self.m = self.rows = A32.shape[0]
        self.packed = packed
        self.l_tex = None
        c_tex = assemble_texture(A32, d32, packed=packed, ctx=ctx, watch=watch)
        with watch("factor"):
            self.l_tex = factor_texture(c_tex, self.m, packed=packed, ctx=ctx)
            try:
                self.pivots = check_pivots(self.l_tex, self.m, packed, ctx)
            except BaseException:
                self.release()
                raise

    def solve(self, rhs: np.ndarray, phase: str = "solve") -> np.ndarray:
        """x with L L^T x = rhs (float32 on the GPU), returned as float64."""
        return solve_column(self.ctx, rhs, self.rows,
                            lambda t, backward: substitute_texture(self.l_tex, self.m, t, packed=self.packed,
                                                              backward=backward, ctx=self.ctx),
                            self.watch, phase)

    def release(self):
        if self.l_tex is not None:
            self.ctx.kernels.pool.give(self.l_tex)
            self.l_tex = None


class ResidentNormal:
    """Form and factor A D^2 A^T from textures, solve with column textures.

    A: the m x n R32F texture of the constraint matrix; `factor(d2)` takes d2 as
    an n x 1 texture; `solve(r)` returns a new m x 1 texture (the caller frees it)."""

    def __init__(self, V, A_tex, A_host=None, *, packed: bool = False, variant: str = "outer"):
        self.V, self.ctx, self.A = V, V.ctx, A_tex
        self.m, self.n = A_tex.rows, A_tex.cols
        self.packed, self.variant = packed, variant
        self.L = None

    def factor(self, d2_tex, pivot_rel: float) -> None:
        """L L^T = A diag(d2) A^T; pivots below pivot_rel * max diag(C) are dropped."""
        K, V = self.ctx.kernels, self.V
        self._free_factor()
        row = K.pool.take(1, self.n)
        V.transpose(row, d2_tex)
        c_tex = assemble_resident(self.A, row, packed=self.packed, ctx=self.ctx)
        K.pool.give(row)
        # the diagonal of C, for a pivot floor relative to its largest entry
        drow = K.pool.take(1, self.m)
        K.draw("diagonal", drow, geo.rectangle(0, 0, self.m, 1), {"L": c_tex},
               {"u_m": self.m, "u_packed": int(self.packed)})
        diag = K.pool.take(self.m, 1)
        V.transpose(diag, drow)
        cmax = V.reduce("max", diag)
        K.pool.give(drow, diag)
        self.L = factor_texture(c_tex, self.m, packed=self.packed, variant=self.variant, ctx=self.ctx,
                                pivot_floor=pivot_rel * max(cmax, 1e-30))

    def solve(self, r_tex):
        t = self.V.new(self.m, "rhs")
        self.ctx.kernels.draw("copy", t, self.V._rect(self.m), {"S": r_tex})
        for backward in (False, True):
            t = substitute_texture(self.L, self.m, t, packed=self.packed, backward=backward, ctx=self.ctx)
        return t

    def _free_factor(self):
        if self.L is not None:
            self.ctx.kernels.pool.give(self.L)
            self.L = None

    def release(self):
        self._free_factor()
