"""Householder QR by compute shaders, blocked: per panel of NBQ columns, the panel
factored by one workgroup (qr_panel.comp, LAPACK's geqr2 column by column), its
compact WY factor T (qr_t.comp), and the Apply of Yeralan et al. (2015, section 3.2)
to the columns on its right as GEMM-shaped work: W = V^T C (qr_vtc.comp), C -= V T^T W
(qr_update.comp).  Results in LAPACK geqrf's layout, numpy in and out."""
from __future__ import annotations

import numpy as np

from ..gl import Stopwatch
from ..layouts.scaling import power_of_two_scale, scale_r
from ..layouts.staircase import rows_reached
from .blas import download, require, take, upload
from .dense import solve_buffer

NBQ = 32


def _panels(k: int):
    return [(j0, min(NBQ, k - j0)) for j0 in range(0, k, NBQ)]


def _apply_panel(ctx, F, C, W, T, m, j0, kb, c0, nc, trans: bool) -> None:
    """C[:, c0:c0+nc] (rows j0..m) := (I - V op(T) V^T) C, op(T) = T^T when trans."""
    if nc <= 0:
        return
    base = {"u_m": m, "u_ld": F.ld, "u_j0": j0, "u_kb": kb, "u_ldc": C.ld, "u_c0": c0, "u_nc": nc}
    ctx.kernels.dispatch("qr_vtc", (-(-nc // NBQ), 1, 1), buffers={0: F.buf, 1: C.buf, 2: W.buf},
                         uniforms=base, defines={"NBQ": NBQ}, work=(m - j0) * nc * kb // 4096)
    ctx.kernels.dispatch("qr_update", (-(-nc // NBQ), -(-(m - j0) // 64), 1),
                         buffers={0: F.buf, 1: C.buf, 2: W.buf, 3: T.buf}, defines={"NBQ": NBQ},
                         uniforms=dict(base, u_toff=(j0 // NBQ) * NBQ * NBQ, u_trans=int(trans)),
                         work=(m - j0) * nc * kb // 4096)


def _build_t(ctx, F, tau, T, m, j0, kb) -> None:
    ctx.kernels.dispatch("qr_t", (1, 1, 1), buffers={0: F.buf, 1: tau.buf, 2: T.buf}, defines={"NBQ": NBQ},
                         uniforms={"u_m": m, "u_ld": F.ld, "u_j0": j0, "u_kb": kb,
                                   "u_toff": (j0 // NBQ) * NBQ * NBQ})


def factor_buffer(ctx, F, m: int, n: int, leftmost=None):
    """Householder QR of the m x n matrix in F, in place; returns the (tau, T) buffers.
    leftmost: the rows' leftmost nonzero columns when they form a staircase (each
    panel then stops at the rows it reaches: the same F and tau, fewer flops)."""
    k = min(m, n)
    tau = take(ctx, 1, max(k, 1), "QR tau")
    T = take(ctx, max(1, -(-k // NBQ)) * NBQ, NBQ, "QR T")
    W = take(ctx, NBQ, max(n, 1), "QR W")
    try:
        for j0, kb in _panels(k):
            mp = rows_reached(m, j0 + kb, leftmost)
            ctx.kernels.dispatch("qr_panel", (1, 1, 1), buffers={0: F.buf, 1: tau.buf}, defines={"NBQ": NBQ},
                                 uniforms={"u_m": mp, "u_ld": F.ld, "u_j0": j0, "u_kb": kb},
                                 work=(mp - j0) * kb * kb // 64)
            _build_t(ctx, F, tau, T, mp, j0, kb)
            _apply_panel(ctx, F, F, W, T, mp, j0, kb, j0 + kb, n - j0 - kb, trans=True)
    except BaseException:
        tau.give()
        T.give()
        raise
    finally:
        W.give()
    return tau, T


def qr_raw(A32: np.ndarray, *, ctx, leftmost=None):
    """(F, tau) in geqrf's layout; A scaled by a power of two first (exact), as the
    other methods.  leftmost: its rows' staircase, if it has one (factor_buffer)."""
    require(ctx)
    m, n = A32.shape
    A, sc = power_of_two_scale(A32)
    F = upload(ctx, A, "the QR factorization")
    try:
        tau, T = factor_buffer(ctx, F, m, n, leftmost)
        try:
            out = download(ctx, F)
            taus = download(ctx, tau)[0, :min(m, n)].copy()
        finally:
            tau.give()
            T.give()
    finally:
        F.give()
    return scale_r(out, sc), taus


def qr_batched(mats, *, ctx, stairs=None) -> list:
    """One qr_raw per matrix (the compute stage needs no atlas: each call fills the chip),
    each on its staircase where `stairs` gives one."""
    stairs = stairs if stairs is not None else [None] * len(mats)
    return [qr_raw(A, ctx=ctx, leftmost=s) for A, s in zip(mats, stairs)]


def _apply(ctx, F, tau, C, m, k, p, trans: bool) -> None:
    T = take(ctx, max(1, -(-k // NBQ)) * NBQ, NBQ, "QR T")
    W = take(ctx, NBQ, max(p, 1), "QR W")
    try:
        panels = _panels(k)
        for j0, kb in panels:
            _build_t(ctx, F, tau, T, m, j0, kb)
        for j0, kb in (panels if trans else reversed(panels)):
            _apply_panel(ctx, F, C, W, T, m, j0, kb, 0, p, trans)
    finally:
        T.give()
        W.give()


def apply_q(F32: np.ndarray, tau32: np.ndarray, C32: np.ndarray, *, trans: bool = False, ctx) -> np.ndarray:
    """Q C or Q^T C for (F, tau) in geqrf's layout, C (m, p)."""
    require(ctx)
    m, n = F32.shape
    k = tau32.shape[0]
    p = C32.shape[1]
    F = upload(ctx, F32, "the reflectors")
    tau = upload(ctx, np.asarray(tau32, np.float32).reshape(1, -1) if k else np.zeros((1, 1), np.float32), "tau")
    C = upload(ctx, C32, "C")
    try:
        _apply(ctx, F, tau, C, m, k, p, trans)
        return download(ctx, C)
    finally:
        F.give()
        tau.give()
        C.give()


class QRFactor:
    """A = QR (m >= n) kept on the GPU for the least-squares solvers: the reflectors
    and tau (for Q, Q^T) and R^T as a lower triangle (for the substitutions).
    Vectors go in and come out float64; the work is float32 on the GPU."""

    def __init__(self, A32: np.ndarray, *, ctx, watch=None):
        require(ctx)
        self.ctx = ctx
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.m, self.n = A32.shape
        self.F = self.tau = self.T = self.L = None
        try:
            A, sc = power_of_two_scale(A32)
            with self.watch("transfer"):
                self.F = upload(ctx, A, "A")
            with self.watch("factor"):
                self.tau, self.T = factor_buffer(ctx, self.F, self.m, self.n)
            with self.watch("transfer"):
                F = download(self.ctx, self.F)
                self.R = np.triu(F[:self.n]) * np.float32(sc)
                self.L = upload(ctx, np.ascontiguousarray(self.R.T), "R^T")
        except BaseException:
            self.release()
            raise

    def q(self, y: np.ndarray, *, trans: bool = False) -> np.ndarray:
        """Q y or Q^T y for an m-vector."""
        with self.watch("solve"):
            C = upload(self.ctx, np.asarray(y, np.float32).reshape(-1, 1), "y")
            try:
                _apply(self.ctx, self.F, self.tau, C, self.m, min(self.m, self.n), 1, trans)
                return download(self.ctx, C)[:, 0].astype(np.float64)
            finally:
                C.give()

    def solve_r(self, y: np.ndarray, *, trans: bool = False) -> np.ndarray:
        """R^-1 y, or R^-T y with trans=True (R^T is the lower triangle kept)."""
        with self.watch("solve"):
            Xt = upload(self.ctx, np.asarray(y, np.float32).reshape(1, -1), "y")
            try:
                solve_buffer(self.ctx, self.L, Xt, self.n, 1, [not trans])
                return download(self.ctx, Xt)[0].astype(np.float64)
            finally:
                Xt.give()

    def release(self) -> None:
        for b in (self.F, self.tau, self.T, self.L):
            if b is not None:
                b.give()
        self.F = self.tau = self.T = self.L = None
