"""The compute method's objects that keep a factor on the GPU: the normal equations
(A uploaded once, at the first float32 factorization, A diag(d) A^T formed and factored per
weight vector, solves against the float32 factor, float64 out), the LS-SVM kernel factor, and the all-float32 LP
solver's resident form (its vectors in textures, copied GPU-side to and from buffers)."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import NotPositiveDefiniteError
from ..gl import Stopwatch
from ..methods.resident import NormalSystemBase, single_factor
from .blas import check_bytes, diagonal, download, lower_by_columns, require, upload, write
from . import chain
from .dense import adat_buffer, factor, kernel_buffer, solve_buffer
from .float64 import EntryPlaces, Float64Cholesky, NormalValues


def _refuse(packed, variant="outer"):
    if packed or variant != "outer":
        raise ValueError("method='compute' has no packed layout and only the 'outer' variant")


class OneBufferNormal(NormalSystemBase):
    """A diag(d) A^T for a fixed A and changing weights d; with factor(row_scale=s),
    S A diag(d) A^T S, the rows scaled on the GPU.  A (dense or scipy.sparse) is uploaded once, dense,
    at the first factor(): the mixed LP solver's float64 factor (float64_factor) needs none of it,
    and where every solve is by that factor it is never made (dfl001's A is 297 MB dense)."""

    takes_row_scale = keeps_low_part = reads_lower = float64_normal = True

    def __init__(self, A32, *, packed: bool = False, variant: str = "outer", ctx, watch: Stopwatch | None = None):
        require(ctx)
        _refuse(packed, variant)
        self.ctx, self.watch = ctx, watch or Stopwatch(ctx, enabled=False)
        self.m, self.n = A32.shape
        self.L = self.d = self.pivots = self.As = self.A_lo = self.A = self.solves = None
        check_bytes(ctx, self.m, self.n, "A")          # refused now, uploaded when first needed
        self._host = {"A": A32}

    def keep_low_part(self, A_lo32) -> None:
        """A's float64 values as A + A_lo (float32 pairs, dense or scipy.sparse): factor(row_scale=)
        then rounds each scaled entry once, as a float64 product would be."""
        check_bytes(self.ctx, self.m, self.n, "A's low parts")
        self._host["A_lo"] = A_lo32
        if self.A is not None:
            self._upload()

    def _upload(self):
        """A (and its low parts, where kept) on the GPU: uploaded at the first call."""
        with self.watch("transfer"):
            for name, what in (("A", "A"), ("A_lo", "A's low parts")):
                M = self._host.pop(name, None)
                if M is not None:
                    setattr(self, name, upload(self.ctx, M.toarray() if sp.issparse(M) else M, what))
        return self.A

    def update_matrix(self, A32) -> None:
        """A new A of the same shape (the mixed LP solver scales its rows each iteration)."""
        if A32.shape != (self.m, self.n):
            raise ValueError(f"A must stay {self.m}x{self.n}, got {A32.shape}")
        if self.A is None:
            self._host["A"] = A32
            self._upload()
        else:
            write(self.ctx, self.A, A32)

    def factor(self, d32, *, pivot_floor: float | None = None, regularize: bool = False, row_scale=None):
        """Form and factor A diag(d32) A^T (S A diag(d32) A^T S with row_scale = S's
        diagonal); returns L's diagonal (the pivots)."""
        ctx, m = self.ctx, self.m
        self._free_factor()
        with self.watch("transfer"):
            self.d = upload(ctx, np.asarray(d32, np.float32).reshape(1, -1), "d")
        with self.watch("assemble"):
            A = self._upload() if row_scale is None else self._scaled(row_scale)
            self.L = adat_buffer(ctx, A, self.d, m, self.n)
        with self.watch("factor"):
            factor(ctx, self.L, m, pivot_floor=pivot_floor, regularize=regularize)
            self.pivots = diagonal(ctx, self.L, m)
        self.solves = chain.ChainSolves(ctx, self.L.buf, self.L.ld, m)
        return self.pivots

    def _scaled(self, row_scale):
        """diag(row_scale) A into a work buffer kept between factorizations (row_scale
        float64 and keep_low_part given: each entry rounded once)."""
        ctx = self.ctx
        self._upload()
        if self.As is None:
            self.As = ctx.buffers.take(self.m, self.n, "S A")
        s64 = np.asarray(row_scale, np.float64)
        hi = s64.astype(np.float32)
        low = self.A_lo is not None
        vec = np.concatenate([hi, (s64 - hi).astype(np.float32)]) if low else hi
        s = upload(ctx, vec.reshape(1, -1), "the rows' scaling")
        buffers = {0: self.A.buf, 1: self.As.buf, 2: s.buf}
        if low:
            buffers[3] = self.A_lo.buf
        try:
            ctx.kernels.dispatch("scale_rows", (-(-self.n // 16), -(-self.m // 16)), buffers=buffers,
                                 defines={"LOW": 1} if low else None,
                                 uniforms={"u_rows": self.m, "u_cols": self.n, "u_lds": self.A.ld,
                                           "u_ldd": self.As.ld})
        finally:
            s.give()
        return self.As

    def solve(self, rhs: np.ndarray, phase: str = "solve") -> np.ndarray:
        """x with L L^T x = rhs (float32 on the GPU), returned as float64."""
        with self.watch(phase):
            return self.solves.solve(np.asarray(rhs, np.float32).reshape(-1))

    def float64_factor(self, M, places: EntryPlaces | None = None, *, sums=None):
        """M's (sparse, float64) Cholesky factor in float64 on the GPU, kept for solves:
        the mixed LP solver's last resort, where the host would factor instead.  With
        places (`float64_places`): M is those entries' values; or M is None and sums =
        (d, inv, delta, shift), the places made with their sums: the GPU sums the entries
        from d (NormalValues)."""
        if sums is not None:
            M = NormalValues(*sums)
        return Float64Cholesky(self.ctx, M, places)  # its time is the caller's ("refine")

    def float64_places(self, rows: np.ndarray, cols: np.ndarray, order=None, sums=None) -> EntryPlaces:
        """The places of a fixed lower-triangle pattern of M, uploaded once (give it back);
        order: M's symbolic analysis (EntryPlaces: the factor permuted, skipping zero tiles);
        sums: the entries as sums W d (EntryPlaces), W uploaded too."""
        return EntryPlaces(self.ctx, self.m, rows, cols, order, sums)

    def lower(self) -> np.ndarray:
        """The float32 factor L (m x m, upper part zero), read back once, by columns (an
        F-ordered array: LAPACK's substitutions take it without a copy)."""
        with self.watch("transfer"):
            return lower_by_columns(self.ctx, self.L, self.m)

    def _free_factor(self) -> None:
        for b in (self.solves, self.L, self.d):
            if b is not None:
                b.release() if b is self.solves else b.give()
        self.L = self.d = self.solves = None

    def release(self) -> None:
        """Give every buffer back (safe to call twice)."""
        self._free_factor()
        for b in (self.A, self.As, self.A_lo):
            if b is not None:
                b.give()
        self.A = self.As = self.A_lo = None
        self._host = {}


NormalFactor = single_factor(OneBufferNormal)


class OneBufferKernelFactor:
    """L L^T = K + diag I on the GPU (the kernel function applied as the product's tiles
    are stored; rbf from squared distances), kept for solves of N x k float64."""

    def __init__(self, X32, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
        require(ctx)
        _refuse(packed)
        self.ctx, self.watch = ctx, watch or Stopwatch(ctx, enabled=False)
        self.N, d = X32.shape
        self.L = self.solves = None
        with self.watch("form"):
            X = upload(ctx, X32, "X")
            try:
                self.L = kernel_buffer(ctx, X, self.N, d, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                                       diag=diag)
            finally:
                X.give()
        with self.watch("factor"):
            factor(ctx, self.L, self.N)
            self.pivots = diagonal(ctx, self.L, self.N)
        self.solves = chain.ChainSolves(ctx, self.L.buf, self.L.ld, self.N)

    def solve(self, R: np.ndarray) -> np.ndarray:
        """X (N x k) float64 with L L^T X = R, in float32 on the GPU."""
        with self.watch("solve"):
            if R.shape[1] <= chain.MOST_COLUMNS:
                return self.solves.solve_columns(np.asarray(R, np.float32))
            Xt = upload(self.ctx, np.ascontiguousarray(np.asarray(R, np.float32).T), "LS-SVM right-hand sides")
            try:
                solve_buffer(self.ctx, self.L, Xt, self.N, R.shape[1], [False, True])
                return np.ascontiguousarray(download(self.ctx, Xt).T).astype(np.float64)
            finally:
                Xt.give()

    def release(self) -> None:
        if self.solves is not None:
            self.solves.release()
            self.solves = None
        if self.L is not None:
            self.L.give()
            self.L = None


class ResidentNormal:
    """Form and factor A D^2 A^T for the all-float32 LP solver, whose vectors are
    column textures: d2 and right-hand sides copied GPU-side into buffers, the
    solution copied back into a new texture (V's)."""

    def __init__(self, V, A_tex, A_host, *, packed: bool = False, variant: str = "outer"):
        _refuse(packed, variant)
        self.V, self.ctx = V, V.ctx
        require(self.ctx)
        self.m, self.n = A_tex.rows, A_tex.cols
        self.A = upload(self.ctx, np.asarray(A_host, np.float32), "A")
        self.L = None

    def _from_texture(self, tex, n):
        b = self.ctx.buffers.take(1, n, "a vector")
        tex.copy_into_buffer(b.buf)                  # GPU-side: the texels, row-major
        return b

    def factor(self, d2_tex, pivot_rel: float) -> None:
        """L L^T = A diag(d2) A^T; pivots below pivot_rel * max diag(C) are dropped."""
        self._free_factor()
        d = self._from_texture(d2_tex, self.n)
        try:
            self.L = adat_buffer(self.ctx, self.A, d, self.m, self.n)
        finally:
            d.give()
        cmax = float(np.max(diagonal(self.ctx, self.L, self.m), initial=0.0))
        factor(self.ctx, self.L, self.m, pivot_floor=pivot_rel * max(cmax, 1e-30))

    def solve(self, r_tex):
        x = self._from_texture(r_tex, self.m)
        try:
            solve_buffer(self.ctx, self.L, x, self.m, 1, [False, True])
            out = self.V.new(self.m, "x")
            out.tex.write(x.buf)                     # GPU-side: the buffer into the texture
            return out
        finally:
            x.give()

    def _free_factor(self) -> None:
        if self.L is not None:
            self.L.give()
            self.L = None

    def release(self) -> None:
        self._free_factor()
        if self.A is not None:
            self.A.give()
            self.A = None


def normal_system(A32, *, packed=False, variant="outer", ctx, watch=None):
    return OneBufferNormal(A32, packed=packed, variant=variant, ctx=ctx, watch=watch)


def normal_factor(A32, d32, *, packed=False, ctx, watch=None):
    return NormalFactor(A32, d32, packed=packed, ctx=ctx, watch=watch)


__all__ = ["NormalFactor", "OneBufferKernelFactor", "OneBufferNormal", "NotPositiveDefiniteError", "ResidentNormal",
           "normal_factor", "normal_system"]
