"""Blocked Householder QR: Yeralan et al.'s tile algorithm on the fragment pipeline
, in place on RGBA32F storage through image load/store,
for one matrix or an atlas of many ("fronts", side by side, `qr_batched`) that
every draw covers at once -- each rectangle carries its front's parameters
(figures/qr.py, BlockedFront).

The rounds come from Yeralan et al.'s bucket scheduler (figures/buckets.py), one per
front, merged launch by launch.  A seed-004 bundle holds at most three 32-row
tiles because a thread block's shared memory holds five; a fragment shares
nothing with its neighbours and the reductions run across passes, so here a
bundle is every row tile of its bucket (bundle=None): the pipelined schedule of a
front is then one launch per panel of NB columns, each an Apply of the previous
panel's reflector and a Factorize of this one -- and with three-tile bundles a
6144 x 384 front would need 26 launches of 2 NB + 9 draws instead of 12
(figures/buckets.py counts them; tests/figures/test_buckets.py runs them).

Per launch, over every front that has it:
  Apply      the previous panel's block reflector to the columns right of it,
             C -= V T^T V^T C: W1 = V^T C by row chunks (bqr_vtc), their sum
             (bqr_w1sum), W2 = T^T W1 (bqr_tw), C -= V W2 (bqr_cvw, 4 x 4 outputs
             a fragment).
  Factorize  the panel ping-pongs between two textures and its columns stay
             unscaled until it ends, so each column k costs two dependent draws:
             bqr_dots_reflect (apply reflection k-1 to the panel while summing, per
             chunk of rows, column k's dots against every panel column) and
             bqr_house (sum the chunks, the Householder scalars, z: w for the columns
             right of k, Yeralan et al.'s merged column of T for those left of it).  At the
             panel's end bqr_panel_store writes R, beta and v = s U into A (geqrf's
             layout) and one draw builds T (larft), T(1:k-1, k) = T(1:k-1, 1:k-1) z(1:k-1)^T.
             (The first version took four draws per column -- dots, house, reflect,
             scale in place; benchmarks/qr_draw_costs.py, qr_chunk_sweep.py measure why
             and how much: a draw here waits on chains of dependent loads.)
The result is geqrf's layout, as paper/qr.py's, and the same QRFactor operation.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np

from .. import figures as geo
from ..scheduling import buckets
from ..figures.qr import BlockedFront, place_blocked
from ..layouts.scaling import power_of_two_scale, scale_r
from ..layouts.staircase import rows_reached
from ..gl import Context, Stopwatch, engine
from ..layouts.rgba import padded, to_rgba
from ..gl.transfer import read_rgba, upload_rgba
from .sizes import P_PANEL, require
from .triangular import substitute_texture

NB = 32          # panel width: Yeralan et al.'s tile (a multiple of 4, at most 32 here: the T kernel's array)
CHUNK = None     # rows per fragment in the chunked reductions: chunk_for(m) unless given


def chunk_for(m: int) -> int:
    """The row chunk by height (benchmarks/qr_chunk_sweep.py, H100, 2026-11-23: 384 rows
    fastest at 16, 2048 at 32, 4096 and 6144 at 64; 256 and 512 were 1.5-3x slower): a
    short chunk gives many fragments and short loops in bqr_dots_reflect / bqr_vtc, but
    long chains in the passes that sum the chunks."""
    return 16 if m <= 512 else 32 if m <= 2048 else 64


def _check_nb(nb, chunk, m):
    """The panel width checked, and the row chunk (chunk_for(m) when None)."""
    chunk = chunk_for(m) if chunk is None else chunk
    if nb % 4 or not 4 <= nb <= 32 or chunk < 1:
        raise ValueError(f"the QR panel width must be a multiple of 4 in 4..32 (got {nb}) and chunk >= 1 (got {chunk})")
    return chunk


def launches(fronts, nb: int):
    """The merged bucket-scheduler launches of the atlas's fronts (unlimited bundles)."""
    return buckets.merge([buckets.schedule(-(-fr.m // nb), -(-fr.n // nb), bundle=None, front=i)
                          for i, fr in enumerate(fronts)])


class _Scratch:
    """The work textures of one atlas, taken from the pool once: the panels' ping-pong
    pair and partial dots, the scalars YZ (factorization), and the Apply's W's."""

    def __init__(self, ctx, fronts, rows, texels, nb, factor: bool = True):
        self.ctx = ctx
        nch = max(fr.chunks() for fr in fronts)
        F = len(fronts)
        self.defines = {"NB": nb}
        self.w1p = self.w1 = self.w2 = self.part = self.yz = None
        self.panels = ()
        with ctx.pool.scope():              # a take that fails gives back those before it
            self.w1p = self.ctx.pool.take(nch * nb, texels, "QR V^T C partial", components=4)
            self.w1 = self.ctx.pool.take(nb, texels, "QR V^T C", components=4)
            self.w2 = self.ctx.pool.take(nb, texels, "QR T V^T C", components=4)
            if factor:
                self.part = self.ctx.pool.take(nch, F * nb // 4, "QR partial dots", components=4)
                self.yz = self.ctx.pool.take(nb, F * nb, "QR z and scalars", components=4)
                self.panels = (self.ctx.pool.take(rows, F * nb // 4, "QR panel", components=4),
                               self.ctx.pool.take(rows, F * nb // 4, "QR panel", components=4))

    def give(self):
        self.ctx.pool.give(self.part, self.yz, self.w1p, self.w1, self.w2, *self.panels)


def _apply(K, v_tex, c_tex, tt, sc, kb: int, spans, *, trans: bool, keep: bool) -> None:
    """C -= V T' V^T C for the panel at kb of every front in `spans` (the three
    rectangle sets of figures.qr.blocked_apply_rects); T' = T^T (Q^T C) or T (Q C);
    keep: a front's own panel columns stay (they hold R and V)."""
    vtc, sums, cvw = spans
    D = sc.defines
    u = {"u_kb": kb}
    K.draw("bqr_vtc", K.grid(c_tex.cols, sc.w1p.rows // 4), vtc, {"V": v_tex, "C": c_tex}, u,
           images={"W1PART": sc.w1p}, defines=D)
    K.draw("bqr_w1sum", sc.w1, sums, {"W1PART": sc.w1p}, None, defines=D)
    K.draw("bqr_tw", K.grid(c_tex.cols, sc.w1.rows), sums, {"TT": tt, "W1": sc.w1},
           dict(u, u_trans=int(trans)), images={"W2": sc.w2}, defines=D)
    K.draw("bqr_cvw", K.grid(c_tex.cols, -(-c_tex.rows // 4)), cvw, {"V": v_tex}, dict(u, u_keep=int(keep)),
           images={"C": c_tex, "W2": sc.w2}, defines=D)


@lru_cache(maxsize=64)
def _plan(fronts: tuple, nb: int) -> tuple:
    """The draws of an atlas's factorization, in order: ("apply", kb), ("column", kb, kl),
    ("end", kb).  The merged bucket-scheduler launches say which panel each launch
    factors; its block reflector is applied one launch later, as the schedule's
    Apply tasks are, to every front with columns right of the panel -- counted in
    columns, not tiles (a last panel with s < n inside its own column tile has
    columns to update that the tile schedule does not see).  Pure: cached per atlas."""
    plan, prev = [], None
    for tasks in launches(fronts, nb):
        cols = {t.factorized()[1] for t in tasks if t.factorized()}
        if len(cols) > 1:                            # pragma: no cover - unlimited bundles move in lockstep
            raise AssertionError(f"a launch factors several panels: {cols}")
        _apply_step(plan, fronts, nb, prev)
        prev = None
        if cols:
            prev = kb = nb * cols.pop()
            plan += [("column", kb, kl) for kl in range(max(fr.bw(kb, nb) for fr in fronts))]
            plan.append(("end", kb))
    _apply_step(plan, fronts, nb, prev)
    return tuple(plan)


def _apply_step(plan, fronts, nb, kb):
    """Apply panel kb if some front has columns right of it."""
    if kb is not None and any(0 < fr.bw(kb, nb) and kb + fr.bw(kb, nb) < fr.n for fr in fronts):
        plan.append(("apply", kb))


def _geometries(fronts, nb, plan):
    out, table = [], geo.qr.front_table(fronts, nb)          # the fronts as arrays, once per atlas
    columns = {}                                              # a panel's columns, built at once
    for op in plan:
        if op[0] == "apply":
            out.append(geo.qr.blocked_apply_rects(fronts, op[1], nb, table=table))
        elif op[0] == "column":
            if op[1] not in columns:
                columns = {op[1]: geo.qr.blocked_panel_columns(fronts, op[1], nb, table=table)}
            cols = columns[op[1]]
            out.append(cols[op[2]] if op[2] < len(cols) else None)
        else:
            out.append(geo.qr.blocked_panel_end_rects(fronts, op[1], nb, table=table))
    return out


def factor_atlas(a_tex, fronts, *, nb: int = NB, ctx: Context):
    """Factor every front of the RGBA atlas a_tex in place (geqrf's layout); returns TT
    (front f's T of the panel at kb in columns f NB.., rows kb..; tau on the diagonals)."""
    ctx = engine(ctx)
    require(ctx)
    K = ctx.kernels
    tt = ctx.pool.take(max(-(-fr.steps // nb) * nb for fr in fronts), len(fronts) * nb, "QR T factors")
    try:
        sc = _Scratch(ctx, fronts, a_tex.rows, a_tex.cols, nb)
    except BaseException:
        ctx.pool.give(tt)
        raise
    plan = _plan(tuple(fronts), nb)
    spans = ctx.geometry.cached_steps(("bqr-atlas", tuple(fronts), nb), lambda: _geometries(fronts, nb, plan))
    D = sc.defines
    try:
        for op, geoms in zip(plan, spans):
            if op[0] == "apply":
                _apply(K, a_tex, a_tex, tt, sc, op[1], geoms, trans=True, keep=True)
            elif op[0] == "column":
                (kb, kl), (dots_reflect, house) = op[1:], geoms
                if kl == 0:                          # a panel starts from A; its steps ping-pong
                    src, (P, Q) = a_tex, sc.panels
                u = {"u_kb": kb, "u_kl": kl}
                K.draw("bqr_dots_reflect", K.grid(sc.part.cols, sc.part.rows), dots_reflect, {"S": src, "YZ": sc.yz},
                       dict(u, u_first=int(kl == 0)), images={"T": P, "PART": sc.part}, defines=D)
                K.draw("bqr_house", K.grid(sc.yz.cols, sc.yz.rows), house, {"P": P, "PART": sc.part}, u,
                       images={"YZ": sc.yz}, defines=D)
                src, P, Q = P, Q, P
            else:
                store, tri = geoms
                K.draw("bqr_panel_store", K.grid(a_tex.cols, a_tex.rows), store,
                       {"P0": sc.panels[0], "P1": sc.panels[1], "YZ": sc.yz}, {"u_kb": op[1]}, images={"A": a_tex},
                       defines=D)
                K.draw("bqr_t", tt, tri, {"YZ": sc.yz}, {"u_kb": op[1]}, defines=D)
    except BaseException:
        ctx.pool.give(tt)
        raise
    finally:
        sc.give()
    return tt


def _front(m: int, n: int, nb: int, chunk) -> BlockedFront:
    return BlockedFront(0, m, n, 0, _check_nb(nb, chunk, m))


def qr_texture(a_tex, m: int, n: int, *, nb: int = NB, chunk: int = CHUNK, ctx: Context):
    """Factor the RGBA matrix (m x n, n padded to a multiple of 4 in the texture)
    in place: the one-front atlas.  Returns TT (the panels' T, tau on their diagonals).
    A should be scaled to max |A| ~ 1 (power_of_two_scale): bqr_house treats sums of
    squares under 2^-80 as zero."""
    nb = panel_width(engine(ctx), nb)
    return factor_atlas(a_tex, [_front(m, n, nb, chunk)], nb=nb, ctx=ctx)


def _tau(T: np.ndarray, f: int, s: int, nb: int):
    """tau_k: the diagonal of front f's T factors (panel kb's T at rows kb.., columns f nb..)."""
    k = np.arange(s)
    return T[k, f * nb + k % nb].astype(np.float32)


def panel_width(ctx, nb: int = NB) -> int:
    """nb, or less on a GPU whose textures are narrower than a front's NB-column slot
    (the tests' 16-texel contexts): a multiple of 4."""
    return max(4, min(nb, ctx.max_texture_size // 4 * 4))


def _with_reach(fr: BlockedFront, leftmost, nb: int) -> BlockedFront:
    """fr with the rows each of its panels reaches on its staircase (None: all)."""
    if leftmost is None:
        return fr
    return replace(fr, reach=tuple(rows_reached(fr.m, kb + fr.bw(kb, nb), leftmost) for kb in range(0, fr.steps, nb)))


def qr_batched(mats, *, nb: int = NB, chunk: int = CHUNK, ctx: Context, stairs=None) -> list:
    """[(F, tau), ...] for float32 matrices of any shapes: fronts side by side in one
    RGBA atlas (several when the texture limit says so), every launch's draws
    covering all of them (many fronts per launch, as Yeralan et al. (2015) do, Fig. 5).  Each result
    is what qr_raw gives for that matrix alone, bit for bit (its own chunk, the same
    sums in the same order)."""
    ctx = engine(ctx)
    require(ctx)
    nb = panel_width(ctx, nb)
    out = [None] * len(mats)
    for atlas in place_blocked([a.shape for a in mats], ctx.max_texture_size, nb,
                               lambda m: _check_nb(nb, chunk, m)):
        if stairs is not None:
            atlas = [(idx, _with_reach(fr, stairs[idx], nb)) for idx, fr in atlas]
        fronts = [fr for _, fr in atlas]
        W = max(fr.ox + fr.texels for fr in fronts)
        H = max(fr.m for fr in fronts)
        scaled = [power_of_two_scale(mats[idx]) for idx, _ in atlas]
        scales = [s for _, s in scaled]
        if len(atlas) == 1:                          # the atlas is the matrix: no second host copy
            data = to_rgba(scaled[0][0], H, 4 * W)
        else:
            data = np.zeros((H, W, 4), np.float32)
            for (a, _), fr in zip(scaled, fronts):
                data[:fr.m, fr.ox:fr.ox + fr.texels] = to_rgba(a, fr.m, 4 * fr.texels)
        a_tex = ctx.pool.take(H, W, "QR atlas", components=4)
        tt = None
        try:
            a_tex.write(data)
            tt = factor_atlas(a_tex, fronts, nb=nb, ctx=ctx)
            full = a_tex.read().reshape(H, 4 * W)
            T = tt.read()
            for (idx, fr), s in zip(atlas, scales):
                F = np.ascontiguousarray(full[:fr.m, 4 * fr.ox:4 * fr.ox + fr.n])
                if s != 1.0:
                    scale_r(F, s)
                out[idx] = (F, _tau(T, fr.f, fr.steps, nb))
        finally:
            ctx.pool.give(a_tex, tt)
    return out


def qr_raw(A: np.ndarray, *, nb: int = NB, chunk: int = CHUNK, ctx: Context, amax: float | None = None):
    """(F, tau) in geqrf's layout for a float32 matrix, by the tile algorithm (the
    one-front atlas).  Scaled by a power of two first, as paper/qr.py (exact); amax
    (the contract's) is not needed: the atlas scales each front as it packs it."""
    return qr_batched([A], nb=nb, chunk=chunk, ctx=ctx)[0]


def apply_q_texture(a_tex, tt, m: int, s: int, c_tex, p: int, *, trans: bool, nb: int = NB, chunk: int = CHUNK,
                    ctx: Context):
    """Q C or Q^T C in place on the RGBA texture c_tex (m x p) by the block
    reflectors of a factored a_tex and its TT: the Apply's draws per panel."""
    ctx = engine(ctx)
    K = ctx.kernels
    fr = BlockedFront(0, m, s, 0, _check_nb(nb, chunk, m))       # the reflectors: s of them
    sc = _Scratch(ctx, [fr], m, c_tex.cols, nb, factor=False)
    panels = list(range(0, s, nb))
    tables = ctx.geometry.cached_steps(("bqr-apply3", fr, c_tex.cols, nb), lambda: [
        geo.qr.blocked_apply_rects([fr], kb, nb, c_texels=c_tex.cols) for kb in panels])
    try:
        for i in (range(len(panels)) if trans else range(len(panels) - 1, -1, -1)):
            if tables[i] is not None:
                _apply(K, a_tex, c_tex, tt, sc, panels[i], tables[i], trans=trans, keep=False)
    finally:
        sc.give()
    return c_tex


def _upload_factor(ctx, F, tau, nb):
    """F (geqrf layout) as RGBA, and TT rebuilt from (F, tau) on the host (larft), in
    factor_atlas's layout for one front: panel kb's T at rows kb.., columns 0..nb."""
    m, n = F.shape
    s = tau.shape[0]
    a_tex = upload_rgba(ctx, F, m, padded(n, 4), "QR reflectors")
    T = np.zeros((padded(max(s, 1), nb), nb), np.float32)
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
        T[kb:kb + bw, :bw] = t
    tt = ctx.pool.take(T.shape[0], nb, "QR T factors")
    tt.write(T)
    return a_tex, tt


def apply_q(F: np.ndarray, tau: np.ndarray, C: np.ndarray, *, trans: bool = False, nb: int = NB,
            chunk: int = CHUNK, ctx: Context) -> np.ndarray:
    """Q C or Q^T C for (F, tau) from any QR (geqrf layout), C (m, p) float32."""
    ctx = engine(ctx)
    require(ctx)
    m, p = C.shape
    nb = panel_width(ctx, nb)
    _check_nb(nb, chunk, m)
    a_tex, tt = _upload_factor(ctx, F, tau, nb)
    c_tex = upload_rgba(ctx, C, m, padded(p, 4), "C")
    try:
        apply_q_texture(a_tex, tt, m, tau.shape[0], c_tex, p, trans=trans, nb=nb, chunk=chunk, ctx=ctx)
        return np.ascontiguousarray(read_rgba(c_tex, m, p))
    finally:
        ctx.pool.give(a_tex, tt, c_tex)


class QRFactor:
    """A = QR (m >= n) by the tile algorithm, kept on the GPU for solves: the
    factored texture and TT (for Q, Q^T) and R^T in the blocked solves' layout.
    The same operation as paper.qr.QRFactor (float64 vectors in and out)."""

    def __init__(self, A32: np.ndarray, *, ctx: Context, watch=None, nb: int = NB,
                 chunk: int = CHUNK):
        self.ctx = ctx = engine(ctx)
        require(ctx)
        self.nb, self.chunk = panel_width(ctx, nb), chunk
        self.watch = watch or Stopwatch(ctx, enabled=False)
        self.m, self.n = A32.shape
        self.a_tex = self.tt = self.l_tex = None
        try:
            A, sc = power_of_two_scale(A32)
            with self.watch("transfer"):
                self.a_tex = upload_rgba(ctx, A, self.m, padded(self.n, 4), "A")
            with self.watch("factor"):
                self.tt = qr_texture(self.a_tex, self.m, self.n, nb=self.nb, chunk=chunk, ctx=ctx)
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
        with self.watch("solve"):
            c = upload_rgba(self.ctx, np.asarray(y, np.float32).reshape(-1, 1), self.m, 4, "y")
            apply_q_texture(self.a_tex, self.tt, self.m, self.n, c, 1, trans=trans, nb=self.nb, chunk=self.chunk,
                            ctx=self.ctx)
            out = read_rgba(c, self.m, 1)[:, 0].astype(np.float64)
            self.ctx.pool.give(c)
        return out

    def solve_r(self, y: np.ndarray, *, trans: bool = False) -> np.ndarray:
        """R^-1 y, or R^-T y with trans=True (the scale of A is in R already)."""
        with self.watch("solve"):
            t = self.ctx.pool.take(self.mp, 1, "QR vector")
            col = np.zeros((self.mp, 1), np.float32)
            col[:self.n, 0] = y
            t.write(col)
            t = substitute_texture(self.l_tex, self.n, t, backward=not trans, ctx=self.ctx)
            out = t.read()[:self.n, 0].astype(np.float64)
            self.ctx.pool.give(t)
        return out

    def release(self) -> None:
        self.ctx.pool.give(self.a_tex, self.tt, self.l_tex)
        self.a_tex = self.tt = self.l_tex = None
