"""Householder QR by drawing): the unblocked algorithm in the
style of the 2006 / 2008 papers -- float32 R32F textures, ping-pong, one small
kernel per stage -- for one matrix or for an atlas of many (`qr_batched`).

Per column k (figures/qr.py draws the rectangles; kernels in shaders/paper/qr_*):
  1. qr_column_dots   PART(c, j) = sum_{i>k in chunk c} A(i,k) A(i,j)   (reduction stage 1)
  2. qr_sum_chunks    G(j) = sum_c PART(c, j): sigma = G(k), dots for w (stage 2)
  3. qr_householder   one texel: beta, tau, 1/(alpha - beta)           (LAPACK slarfg)
  4. qr_update        A(k:m, k+1:n) -= tau v w^T and column k <- (beta; v)
This is Yeralan et al.'s `factorize` loop (section 3.2.1) with its merged
z = -tau v^T A(k:m, :) split into the reduction of draws 1-2.  The result is
LAPACK geqrf's layout: R on and above the diagonal, the reflectors' v below it
(v(k) = 1 implied), tau in a vector; Q = H_0 H_1 ... H_{s-1}.

Each matrix is scaled by a power of two (exact) so its largest entry is below 1:
sigma, a sum of squares in float32, then neither overflows nor (for sensible
data) underflows; R is scaled back on the host.
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..figures.qr import CHUNK, atlas_table, place, step_geometries
from ..layouts.scaling import power_of_two_scale, scale_r
from ..gl import Context, Stopwatch, engine
from .packing import upload_and_pack
from .triangular import substitute_texture


def _factor_steps(fronts, chunk):
    """(dots, sum, house, update) per step k = 0, 1, ... until no front is left."""
    steps, table = [], atlas_table(fronts)
    while (g := step_geometries(fronts, len(steps), chunk, table)) is not None:
        steps.append(g)
    return steps


def factor_atlas(tex, fronts, *, chunk: int = CHUNK, ctx: Context):
    """Factor every front of the atlas texture `tex` (consumed).  Returns
    (textures, hh): textures[f] holds front f's geqrf layout (its last step's
    target; fronts finish at different steps), hh the (beta, tau, s) texture."""
    ctx = engine(ctx)
    K = ctx.kernels
    W, H = tex.cols, tex.rows
    nch = max(f.chunks(chunk) for f in fronts)
    try:
        with ctx.pool.scope():              # a take that fails gives back those before it, and tex
            part = ctx.pool.take(nch, W, "QR partial dots")
            g = ctx.pool.take(1, W, "QR column dots")
            hh = ctx.pool.take(1, W, "QR Householder scalars", components=4)
            T = ctx.pool.take(H, W, "QR ping-pong")
    except BaseException:
        ctx.pool.give(tex)
        raise
    steps = ctx.geometry.cached_steps(("qr", tuple(fronts), chunk), lambda: _factor_steps(fronts, chunk))
    S = tex
    last = {}
    for k, (dots, sums, house, update) in enumerate(steps):
        u = {"u_k": k, "u_chunk": chunk}
        if dots is not None:
            K.draw("qr_column_dots", part, dots, {"V": S, "A": S}, u)
        K.draw("qr_sum_chunks", g, sums, {"PART": part}, u)
        K.draw("qr_householder", hh, house, {"A": S, "G": g}, {"u_k": k})
        K.draw("qr_update", T, update, {"A": S, "HH": hh, "G": g}, {"u_k": k})
        for f in fronts:
            if f.steps == k + 1:
                last[f] = T
        S, T = T, S
    ctx.pool.give(part, g)
    out = [last[f] for f in fronts]
    if T not in out:
        ctx.pool.give(T)
    if S not in out:          # pragma: no cover - the last step's target always holds a front
        ctx.pool.give(S)
    return out, hh


def _release(ctx, textures, hh):
    seen = []
    for t in textures:
        if all(t is not s for s in seen):
            seen.append(t)
    ctx.pool.give(*seen, hh)


def qr_batched(mats, *, chunk: int = CHUNK, ctx: Context, stairs=None):
    """[(F, tau), ...] for float32 matrices of any shapes, factored together: the
    matrices share one atlas (several when their widths pass the texture limit)
    and every draw covers all of them (many fronts per launch, as Yeralan et al. (2015) do).
    `stairs` (staircases, methods/contract.py) is not used: every row is factored."""
    ctx = engine(ctx)
    shapes = [a.shape for a in mats]
    out = [None] * len(mats)
    for atlas in place(shapes, ctx.max_texture_size):
        W = sum(f.n for _, f in atlas)
        H = max(f.m for _, f in atlas)
        ctx.check_size(H, W, f"the QR atlas ({len(atlas)} matrices, {H} x {W})")
        data = np.zeros((H, W), np.float32)
        scales = []
        for idx, f in atlas:
            a, s = power_of_two_scale(mats[idx])
            data[:f.m, f.ox:f.ox + f.n] = a
            scales.append(s)
        tex = ctx.pool.take(H, W, "QR atlas")
        tex.write(data)
        fronts = [f for _, f in atlas]
        textures, hh = factor_atlas(tex, fronts, chunk=chunk, ctx=ctx)
        try:
            reads = {}
            h = hh.read()
            for (idx, f), t, s in zip(atlas, textures, scales):
                full = reads.get(id(t))
                if full is None:
                    full = reads[id(t)] = t.read()
                F = full[:f.m, f.ox:f.ox + f.n].copy()
                if s != 1.0:
                    scale_r(F, s)
                out[idx] = (F, h[0, f.ox:f.ox + f.steps, 1].copy())
        finally:
            _release(ctx, textures, hh)
    return out


def qr_raw(A: np.ndarray, *, chunk: int = CHUNK, ctx: Context, amax: float | None = None):
    """(F, tau): LAPACK geqrf's output for one float32 matrix (the one-front atlas); amax
    (the contract's) is not needed: the atlas scales each front as it packs it."""
    return qr_batched([A], chunk=chunk, ctx=ctx)[0]


def apply_q_texture(f_tex, hh, s: int, S, *, trans: bool, chunk: int = CHUNK, ctx: Context):
    """Q S or Q^T S on the GPU for the reflectors in f_tex (geqrf layout) and hh
    (tau in .y); S (m x p texture) is consumed, the result returned.  Per
    reflector: its dots with S's columns (two reduction draws, as in factoring)
    and one reflection draw."""
    ctx = engine(ctx)
    K = ctx.kernels
    m, p = S.rows, S.cols
    T = ctx.pool.take(m, p, "QR ping-pong")
    part = ctx.pool.take(-(-m // chunk), p, "QR partial dots")
    g = ctx.pool.take(1, p, "QR column dots")
    steps = ctx.geometry.cached_steps(("qr-apply", m, p, s, chunk), lambda: geo.qr.apply_geometries(m, p, s, chunk))
    for k in (range(s) if trans else range(s - 1, -1, -1)):
        u = {"u_k": k, "u_chunk": chunk}
        dots, sums, refl = steps[k]
        if dots is not None:
            K.draw("qr_column_dots", part, dots, {"V": f_tex, "A": S}, u)
        K.draw("qr_sum_chunks", g, sums, {"PART": part}, u)
        K.draw("qr_apply", T, refl, {"F": f_tex, "HH": hh, "G": g, "B": S}, {"u_k": k})
        S, T = T, S
    ctx.pool.give(T, part, g)
    return S


def _upload_reflectors(ctx, F, tau):
    f_tex = ctx.pool.take(F.shape[0], F.shape[1], "QR reflectors")
    f_tex.write(F)
    s = tau.shape[0]
    hh = ctx.pool.take(1, max(s, 1), "QR tau", components=4)
    h = np.zeros((1, max(s, 1), 4), np.float32)
    h[0, :s, 1] = tau
    hh.write(h)
    return f_tex, hh


def apply_q(F: np.ndarray, tau: np.ndarray, C: np.ndarray, *, trans: bool = False, chunk: int = CHUNK,
            ctx: Context) -> np.ndarray:
    """Q C (trans=False) or Q^T C for Q = H_0 ... H_{s-1} stored as (F, tau);
    C is (m, p) float32.  Returns float32 (m, p)."""
    ctx = engine(ctx)
    f_tex, hh = _upload_reflectors(ctx, F, tau)
    S = ctx.pool.take(C.shape[0], C.shape[1], "QR right-hand sides")
    S.write(C)
    try:
        S = apply_q_texture(f_tex, hh, tau.shape[0], S, trans=trans, chunk=chunk, ctx=ctx)
        return S.read()
    finally:
        ctx.pool.give(f_tex, hh, S)


class QRFactor:
    """A = QR (m >= n) factored on the GPU and kept there for solves: the
    reflectors and tau (for Q and Q^T) and R^T as a lower triangle (for the
    substitutions of paper/triangular.py).  Vectors go in and come out float64;
    the work is float32 on the GPU.  The least-squares solvers use it."""

    def __init__(self, A32: np.ndarray, *, ctx: Context, watch=None):
        self.ctx = ctx = engine(ctx)
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.m, self.n = A32.shape
        self.f_tex = self.hh = self.l_tex = None
        with self.watch("factor"):
            self.F, self.tau = qr_raw(A32, ctx=ctx)
        self.R = np.triu(self.F[:self.n])
        try:
            with self.watch("transfer"):
                self.f_tex, self.hh = _upload_reflectors(ctx, self.F, self.tau)
                self.l_tex = upload_and_pack(self.R.T, False, ctx, "R^T")
        except BaseException:
            self.release()
            raise

    def _column(self, v, rows):
        t = self.ctx.pool.take(rows, 1, "QR vector")
        t.write(np.asarray(v, np.float32).reshape(rows, 1))
        return t

    def q(self, y: np.ndarray, *, trans: bool = False) -> np.ndarray:
        """Q y (or Q^T y) for an m-vector y."""
        with self.watch("solve"):
            t = apply_q_texture(self.f_tex, self.hh, self.tau.shape[0], self._column(y, self.m), trans=trans,
                                ctx=self.ctx)
            out = t.read()[:, 0].astype(np.float64)
            self.ctx.pool.give(t)
        return out

    def solve_r(self, y: np.ndarray, *, trans: bool = False) -> np.ndarray:
        """R^-1 y (trans=False, back substitution) or R^-T y (forward), n-vectors."""
        with self.watch("solve"):
            t = substitute_texture(self.l_tex, self.n, self._column(y, self.n), packed=False,
                                   backward=not trans, ctx=self.ctx)
            out = t.read()[:, 0].astype(np.float64)
            self.ctx.pool.give(t)
        return out

    def release(self) -> None:
        self.ctx.pool.give(self.f_tex, self.hh, self.l_tex)
        self.f_tex = self.hh = self.l_tex = None
