"""Blocked Householder QR: seed 004's tile algorithm on the fragment pipeline
(issue 16, step 2), in place on RGBA32F storage through image load/store.

For each panel of NB columns (seed 004's 32-column tile; `bench qr` measures others):
  Factorize  the panel ping-pongs between two m x NB/4 textures and its columns stay
             unscaled until it ends, so each column k costs two dependent draws:
             bqr_dots_reflect (apply reflection k-1 to the panel while summing, per
             chunk of rows, column k's dots against every panel column) and
             bqr_house (sum the chunks, the Householder scalars, z: w for the columns
             right of k, seed 004's merged column of T for those left of it).  At the
             panel's end bqr_panel_store writes R, beta and v = s U into A (geqrf's
             layout) and one draw builds T (larft), T(1:k-1, k) = T(1:k-1, 1:k-1) z(1:k-1)^T.
             (The first version took four draws per column -- dots, house, reflect,
             scale in place; on the H100 each dependent draw costs 17-28 us of GPU
             time, benchmarks/qr_draw_costs.py, so halving the draws is the lever.)
  Apply      the block reflector to the columns right of the panel,
             C -= V T^T V^T C, as three products: W1 = V^T C (split over row
             chunks, then summed by a draw of its own), W2 = T^T W1, C -= V W2
             (4 x 4 outputs per fragment).
The bundle of seed 004 is limited to three row tiles by a GPU's shared memory;
here a panel's reductions run across passes, so a bundle is every row tile
below the panel and one bucket-scheduler round is one panel: Factorize draws of
round p, then the Apply that lets round p + 1 start.  The result is the same
geqrf layout as paper/qr.py, and the same QRFactor operation.
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..layouts.scaling import power_of_two_scale, scale_r
from ..gl import Context, Stopwatch, resolve
from ..layouts.rgba import padded
from ..layouts.transfer import read_rgba, upload_rgba
from .tiles import P_PANEL, require
from .triangular import substitute_texture

NB = 32          # panel width: seed 004's tile (a multiple of 4, at most 32 here: the T kernel's array)
CHUNK = None     # rows per fragment in the chunked reductions: chunk_for(m) unless given


def chunk_for(m: int) -> int:
    """The row chunk by height (benchmarks/qr_chunk_sweep.py, H100, 2026-11-23: 384 rows
    fastest at 16, 2048 at 32, 4096 and 6144 at 64; 256 and 512 were 1.5-3x slower): a
    short chunk gives many fragments and short loops in bqr_dots_reflect / bqr_vtc, but
    long chains in the passes that sum the chunks."""
    return 16 if m <= 512 else 32 if m <= 2048 else 64


def _apply_tables(m, nq, kb, nch, nb):
    """The Apply's rectangles (on block grids) for the panel at kb: V^T C by chunks,
    their sum and T^T W1 (both NB x nq), C -= V W2."""
    rows4 = -(-(m - kb) // 4)
    return (geo.rectangle(0, 0, nq, nch * nb // 4), geo.rectangle(0, 0, nq, nb), geo.rectangle(0, 0, nq, rows4))


def _factor_tables(m, n, nq, nb, chunk):
    """Per column: (dots_reflect, house); per panel: (store, T, Apply's three | None).
    Built once per shape (Kernels.cached_steps)."""
    s = min(m, n)
    nch = -(-m // chunk)
    steps = []
    for kb in range(0, s, nb):
        bw = min(nb, s - kb)
        nbq = -(-bw // 4)
        for k in range(kb, kb + bw):
            steps.append((geo.rectangle(0, kb // chunk, nbq, nch), geo.rectangle(0, k - kb, bw, k - kb + 1)))
        q0 = (kb + bw) >> 2
        apply = _apply_tables(m, nq - q0, kb, nch, nb) if kb + bw < n else (None, None, None)
        steps.append((geo.rectangle(0, kb, nbq, m), geo.rectangle(kb, 0, kb + bw, bw)) + apply)
    return steps


class _Scratch:
    """The per-call work textures, taken from the pool once per factorization."""

    def __init__(self, K, m, ncols_q, nb, chunk, panel: bool = False):
        self.K, self.nb, self.chunk = K, nb, chunk
        self.nch = nch = -(-m // chunk)
        self.defines = {"NB": nb}
        self.w1p = K.pool.take(nch * nb, max(ncols_q, 1), "QR V^T C partial", components=4)
        self.w1 = K.pool.take(nb, max(ncols_q, 1), "QR V^T C", components=4)
        self.w2 = K.pool.take(nb, max(ncols_q, 1), "QR T V^T C", components=4)
        self.part = self.yz = None
        self.panels = ()
        if panel:                                  # the Factorize's own: partial dots, scalars, the panel pair
            self.part = K.pool.take(nch, nb // 4, "QR partial dots", components=4)
            self.yz = K.pool.take(nb, nb, "QR z and scalars", components=4)
            self.panels = (K.pool.take(m, nb // 4, "QR panel", components=4),
                           K.pool.take(m, nb // 4, "QR panel", components=4))

    def give(self):
        self.K.pool.give(self.part, self.yz, self.w1p, self.w1, self.w2, *self.panels)


def apply_block(K, a_tex, c_tex, tt, sc, kb, bw, m, q0, j0, nq, spans, *, trans: bool):
    """C(:, texel columns q0 .. q0+nq-1) -= V T' V^T C for the panel at kb (width bw);
    T' = T^T (trans, Q^T C) or T (Q C).  Columns left of j0 stay.  spans: the
    three rectangles of _apply_tables."""
    nch, nb, D = sc.nch, sc.nb, sc.defines
    u = {"u_kb": kb, "u_bw": bw, "u_m": m, "u_chunk": sc.chunk, "u_q0": q0}
    vtc, tw, cvw = spans
    K.draw("bqr_vtc", K.grid(nq, nch * nb // 4), vtc, {"V": a_tex, "C": c_tex}, u,
           images={"W1PART": sc.w1p}, defines=D)
    K.draw("bqr_w1sum", sc.w1, tw, {"W1PART": sc.w1p}, {"u_nch": nch}, defines=D)
    K.draw("bqr_tw", K.grid(nq, nb), tw, {"TT": tt, "W1": sc.w1},
           {"u_kb": kb, "u_bw": bw, "u_trans": int(trans)}, images={"W2": sc.w2}, defines=D)
    K.draw("bqr_cvw", K.grid(nq, -(-(m - kb) // 4)), cvw, {"V": a_tex}, dict(u, u_j0=j0),
           images={"C": c_tex, "W2": sc.w2}, defines=D)


def _check_nb(nb, chunk, m):
    """The panel width checked, and the row chunk (chunk_for(m) when None)."""
    chunk = chunk_for(m) if chunk is None else chunk
    if nb % 4 or not 4 <= nb <= 32 or chunk < 1:
        raise ValueError(f"the QR panel width must be a multiple of 4 in 4..32 (got {nb}) and chunk >= 1 (got {chunk})")
    return chunk


def factor_texture(a_tex, m: int, n: int, *, nb: int = NB, chunk: int = CHUNK, ctx: Context | None = None):
    """Factor the RGBA matrix (m x n, n padded to a multiple of 4 in the texture)
    in place; returns TT (NB x s texture: the panels' T, tau on its diagonal)."""
    ctx = resolve(ctx)
    require(ctx)
    K = ctx.kernels
    s = min(m, n)
    chunk = _check_nb(nb, chunk, m)
    nq = a_tex.cols
    tt = K.pool.take(nb, padded(s, nb), "QR T factors")
    sc = _Scratch(K, m, nq, nb, chunk, panel=True)
    steps = iter(K.cached_steps(("bqr3", m, n, nq, nb, chunk), lambda: _factor_tables(m, n, nq, nb, chunk)))
    nbq = nb // 4
    try:
        for kb in range(0, s, nb):
            bw = min(nb, s - kb)
            src, (P, Q) = a_tex, sc.panels
            for k in range(kb, kb + bw):
                dots_reflect, house = next(steps)
                u = {"u_k": k, "u_kb": kb, "u_m": m, "u_chunk": chunk}
                K.draw("bqr_dots_reflect", K.grid(nbq, sc.nch), dots_reflect, {"S": src, "YZ": sc.yz},
                       dict(u, u_bw=bw, u_sq0=(kb >> 2) if src is a_tex else 0, u_first=int(k == kb)),
                       images={"T": P, "PART": sc.part})
                K.draw("bqr_house", K.grid(nb, nb), house, {"P": P, "PART": sc.part}, u, images={"YZ": sc.yz})
                src, P, Q = P, Q, P
            store, tri, *apply = next(steps)
            K.draw("bqr_panel_store", K.grid(nbq, m), store, {"P": src, "YZ": sc.yz}, {"u_kb": kb, "u_bw": bw},
                   images={"A": a_tex})
            K.draw("bqr_t", tt, tri, {"YZ": sc.yz}, {"u_kb": kb}, defines=sc.defines)
            j0 = kb + bw
            if j0 < n:
                q0 = j0 >> 2
                apply_block(K, a_tex, a_tex, tt, sc, kb, bw, m, q0, j0, nq - q0, apply, trans=True)
    finally:
        sc.give()
    return tt


def _tau(tt, s, nb):
    T = tt.read()
    return np.array([T[k % nb, k] for k in range(s)], np.float32)


def qr_raw(A: np.ndarray, *, nb: int = NB, chunk: int = CHUNK, ctx: Context | None = None):
    """(F, tau) in geqrf's layout for a float32 matrix, by the tile algorithm.
    Scaled by a power of two first, as paper/qr.py (exact)."""
    ctx = resolve(ctx)
    require(ctx)
    K = ctx.kernels
    m, n = A.shape
    np4 = padded(n, 4)
    ctx.check_size(m, np4 // 4, f"A ({m} x {n}, blocked)")
    A, sc = power_of_two_scale(A)
    a_tex = upload_rgba(ctx, A, m, np4, "A")
    tt = None
    try:
        tt = factor_texture(a_tex, m, n, nb=nb, chunk=chunk, ctx=ctx)
        F = np.ascontiguousarray(read_rgba(a_tex, m, n))        # a fresh array: no copy unless padded
        tau = _tau(tt, min(m, n), nb)
    finally:
        K.pool.give(a_tex, tt)
    if sc != 1.0:
        scale_r(F, sc)
    return F, tau


def apply_q_texture(a_tex, tt, m: int, s: int, c_tex, p: int, *, trans: bool, nb: int = NB, chunk: int = CHUNK,
                    ctx: Context | None = None):
    """Q C or Q^T C in place on the RGBA texture c_tex (m x p) by the block
    reflectors of a factored a_tex and its TT: three Apply products per panel."""
    ctx = resolve(ctx)
    K = ctx.kernels
    nq = c_tex.cols
    chunk = _check_nb(nb, chunk, m)
    sc = _Scratch(K, m, nq, nb, chunk)
    panels = list(range(0, s, nb))
    tables = K.cached_steps(("bqr-apply2", m, nq, s, nb, chunk),
                            lambda: [_apply_tables(m, nq, kb, sc.nch, nb) for kb in panels])
    try:
        for i in (range(len(panels)) if trans else range(len(panels) - 1, -1, -1)):
            kb = panels[i]
            apply_block(K, a_tex, c_tex, tt, sc, kb, min(nb, s - kb), m, 0, 0, nq, tables[i], trans=trans)
    finally:
        sc.give()
    return c_tex


def _upload_factor(ctx, F, tau, nb):
    """F (geqrf layout) as RGBA, and TT rebuilt from (F, tau) on the host (larft)."""
    m, n = F.shape
    s = tau.shape[0]
    a_tex = upload_rgba(ctx, F, m, padded(n, 4), "QR reflectors")
    T = np.zeros((nb, padded(max(s, 1), nb)), np.float32)
    V = np.tril(F[:, :s].astype(np.float64), -1)
    V[np.arange(s), np.arange(s)] = 1.0
    for kb in range(0, s, nb):
        bw = min(nb, s - kb)
        Vb = V[:, kb:kb + bw]
        t = np.zeros((bw, bw))
        for i in range(bw):
            t[i, i] = tau[kb + i]
            if i:
                t[:i, i] = -tau[kb + i] * t[:i, :i] @ (Vb[:, :i].T @ Vb[:, i])
        T[:bw, kb:kb + bw] = t
    tt = ctx.kernels.pool.take(nb, T.shape[1], "QR T factors")
    tt.write(T)
    return a_tex, tt


def apply_q(F: np.ndarray, tau: np.ndarray, C: np.ndarray, *, trans: bool = False, nb: int = NB,
            chunk: int = CHUNK, ctx: Context | None = None) -> np.ndarray:
    """Q C or Q^T C for (F, tau) from any QR (geqrf layout), C (m, p) float32."""
    ctx = resolve(ctx)
    require(ctx)
    K = ctx.kernels
    m, p = C.shape
    _check_nb(nb, chunk, m)
    a_tex, tt = _upload_factor(ctx, F, tau, nb)
    c_tex = upload_rgba(ctx, C, m, padded(p, 4), "C")
    try:
        apply_q_texture(a_tex, tt, m, tau.shape[0], c_tex, p, trans=trans, nb=nb, chunk=chunk, ctx=ctx)
        return np.ascontiguousarray(read_rgba(c_tex, m, p))
    finally:
        K.pool.give(a_tex, tt, c_tex)


class QRFactor:
    """A = QR (m >= n) by the tile algorithm, kept on the GPU for solves: the
    factored texture and TT (for Q, Q^T) and R^T in the blocked solves' layout.
    The same operation as paper.qr.QRFactor (float64 vectors in and out)."""

    def __init__(self, A32: np.ndarray, *, ctx: Context | None = None, watch=None, nb: int = NB,
                 chunk: int = CHUNK):
        self.ctx = ctx = resolve(ctx)
        require(ctx)
        self.nb, self.chunk = nb, chunk
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.m, self.n = A32.shape
        self.a_tex = self.tt = self.l_tex = None
        try:
            A, sc = power_of_two_scale(A32)
            with self.watch("transfer"):
                self.a_tex = upload_rgba(ctx, A, self.m, padded(self.n, 4), "A")
            with self.watch("factor"):
                self.tt = factor_texture(self.a_tex, self.m, self.n, nb=nb, chunk=chunk, ctx=ctx)
            with self.watch("transfer"):
                F = read_rgba(self.a_tex, self.m, self.n)
                self.R = np.triu(F[:self.n]) * np.float32(sc)
                self.mp = padded(self.n, P_PANEL)
                self.l_tex = upload_rgba(ctx, self.R.T, self.mp, self.mp, "R^T")
        except BaseException:
            self.release()
            raise

    def q(self, y: np.ndarray, *, trans: bool = False) -> np.ndarray:
        """Q y or Q^T y for an m-vector."""
        K = self.ctx.kernels
        with self.watch("solve"):
            c = upload_rgba(self.ctx, np.asarray(y, np.float32).reshape(-1, 1), self.m, 4, "y")
            apply_q_texture(self.a_tex, self.tt, self.m, self.n, c, 1, trans=trans, nb=self.nb, chunk=self.chunk,
                            ctx=self.ctx)
            out = read_rgba(c, self.m, 1)[:, 0].astype(np.float64)
            K.pool.give(c)
        return out

    def solve_r(self, y: np.ndarray, *, trans: bool = False) -> np.ndarray:
        """R^-1 y, or R^-T y with trans=True (the scale of A is in R already)."""
        K = self.ctx.kernels
        with self.watch("solve"):
            t = K.pool.take(self.mp, 1, "QR vector")
            col = np.zeros((self.mp, 1), np.float32)
            col[:self.n, 0] = y
            t.write(col)
            t = substitute_texture(self.l_tex, self.n, t, backward=not trans, ctx=self.ctx)
            out = t.read()[:self.n, 0].astype(np.float64)
            K.pool.give(t)
        return out

    def release(self) -> None:
        self.ctx.kernels.pool.give(self.a_tex, self.tt, self.l_tex)
        self.a_tex = self.tt = self.l_tex = None
