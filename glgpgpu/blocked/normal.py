"""The normal-equations operation by the blocked kernels: the same two classes
as paper/normal.py (NormalFactor for numpy callers, ResidentNormal for the
LP solver's textures), on RGBA storage padded to a multiple of the panel."""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Stopwatch, resolve
from ..layouts.transfer import solve_column, upload_rgba
from .adat import adat_texture
from .cholesky import check_pivots, diagonal, factor_texture
from .tiles import padded, require
from .triangular import substitute_texture


class NormalFactor:
    """The float32 Cholesky factor of A D^2 A^T (blocked RGBA, order padded)."""

    def __init__(self, A32, d32, *, packed: bool = False, ctx=None, watch: Stopwatch | None = None):
        if packed:
            raise ValueError("the blocked normal equations have no packed layout")
        self.ctx = ctx = resolve(ctx)
        require(ctx)
        self.watch = watch = watch or Stopwatch(ctx, enabled=False)
        self.m = m = A32.shape[0]
        self.l_tex = None
        n4 = -(-A32.shape[1] // 4) * 4
        self.rows = mp = padded(m)
        ctx.check_size(m, n4 // 4, f"A (m={m}, blocked)")
        with watch("transfer"):
            a_tex = upload_rgba(ctx, A32, m, n4, "A")
            d_tex = upload_rgba(ctx, d32[None, :], 1, n4, "d")
        with watch("assemble"):
            self.l_tex = adat_texture(a_tex, d_tex, m, mp=mp, ctx=ctx)
        ctx.kernels.pool.give(a_tex, d_tex)
        with watch("factor"):
            factor_texture(self.l_tex, m, ctx=ctx)
            self.pivots = diagonal(self.l_tex, m, ctx)
        try:
            check_pivots(self.pivots, m)
        except BaseException:
            self.release()
            raise

    def solve(self, rhs: np.ndarray, phase: str = "solve") -> np.ndarray:
        """x with L L^T x = rhs (float32 on the GPU), returned as float64."""
        return solve_column(self.ctx, rhs, self.rows,
                            lambda t, backward: substitute_texture(self.l_tex, self.m, t, backward=backward,
                                                              ctx=self.ctx),
                            self.watch, phase)

    def release(self):
        if self.l_tex is not None:
            self.ctx.kernels.pool.give(self.l_tex)
            self.l_tex = None


class ResidentNormal:
    """Blocked form-and-factor from an RGBA copy of A; vectors in column textures."""

    def __init__(self, V, A_tex, A_host, *, packed: bool = False, variant: str = "outer"):
        if packed or variant != "outer":
            raise ValueError("the blocked normal equations have no packed layout and only the outer variant")
        self.V, self.ctx = V, V.ctx
        require(self.ctx)
        self.m, self.n = A_tex.rows, A_tex.cols
        self.n4 = -(-self.n // 4) * 4
        self.mp = padded(self.m)
        self.A4 = upload_rgba(self.ctx, np.asarray(A_host, np.float32), self.m, self.n4, "A")
        self.L = None

    def factor(self, d2_tex, pivot_rel: float) -> None:
        K, V = self.ctx.kernels, self.V
        self._free_factor()
        drow = K.pool.take(1, self.n4 // 4, components=4)
        K.draw("pack4", drow, geo.rectangle(0, 0, self.n4 // 4, 1), {"S": d2_tex}, {"u_len": self.n})
        c_tex = adat_texture(self.A4, drow, self.m, mp=self.mp, ctx=self.ctx)
        K.pool.give(drow)
        dg = K.pool.take(1, self.m)
        K.draw("blocked_diagonal", dg, geo.rectangle(0, 0, self.m, 1), {"L": c_tex}, {"u_m": self.m})
        col = K.pool.take(self.m, 1)
        V.transpose(col, dg)
        cmax = V.reduce("max", col)
        K.pool.give(dg, col)
        self.L = factor_texture(c_tex, self.m, pivot_floor=pivot_rel * max(cmax, 1e-30), ctx=self.ctx)

    def solve(self, r_tex):
        K, V = self.ctx.kernels, self.V
        t = V.new(self.mp, "rhs")
        t.clear(0.0)
        K.draw("copy", t, V._rect(self.m), {"S": r_tex})
        for backward in (False, True):
            t = substitute_texture(self.L, self.m, t, backward=backward, ctx=self.ctx)
        res = V.new(self.m, "x")
        K.draw("copy", res, V._rect(self.m), {"S": t})
        V.free(t)
        return res

    def _free_factor(self):
        if self.L is not None:
            self.ctx.kernels.pool.give(self.L)
            self.L = None

    def release(self):
        self._free_factor()
        if self.A4 is not None:
            self.ctx.kernels.pool.give(self.A4)
            self.A4 = None
