"""Householder QR by compute shaders, blocked: per panel of NBQ columns, the panel
factored column by column as LAPACK's geqr2 -- by one workgroup (qr_panel.comp) when
it is short, by one dispatch a column over chunks of its rows (qr_panel_rows.comp)
when it is tall, where one workgroup would leave the chip idle -- its
compact WY factor T (qr_t.comp), and the Apply of Yeralan et al. (2015, section 3.2)
to the columns on its right as GEMM-shaped work: W = V^T C (qr_vtc.comp), C -= V T^T W
(qr_update.comp).  Results in LAPACK geqrf's layout, numpy in and out."""
from __future__ import annotations

import numpy as np

from ..gl import Stopwatch
from ..parallel import Prefaulted
from ..layouts.scaling import power_of_two_exponent, power_of_two_scale, scale_r
from ..layouts.staircase import rows_reached
from .blas import download, require, take, upload
from .dense import solve_buffer
from .float64 import Float64Matrix

NBQ = 32
#: workgroups the Apply's V^T C aims for (its chunks of rows times its columns' groups)
APPLY_GROUPS = 512
#: panels with at least this many rows are spread over workgroups, a dispatch per column
PANEL_ROWS = 256
#: the chunks a tall panel's rows are split into, about one per SM of a large GPU
PANEL_CHUNKS = 128
#: the fewest rows one chunk of the Apply's V^T C sums (a multiple of 16)
CHUNK_ROWS = 256


def _panels(k: int):
    return [(j0, min(NBQ, k - j0)) for j0 in range(0, k, NBQ)]


def _most_chunks(rows: int, groups: int) -> int:
    """The chunks a product over `rows` rows is cut into, whose other dimension takes
    `groups` workgroups: enough to give the chip about APPLY_GROUPS workgroups, none
    under CHUNK_ROWS rows.  Never fewer for more rows (the partial sums' sizing needs that)."""
    return max(1, min(-(-APPLY_GROUPS // groups), -(-rows // CHUNK_ROWS)))


def _chunks(rows: int, groups: int, span: int | None = None) -> tuple:
    """(rows per chunk, chunks) for a product over `rows` rows: the chunk size chosen for
    `span` rows (default: rows), a multiple of 16 (qr_vtc's step).  A staircase panel
    passes its dense rows as span, so its chunks are the dense panel's first ones: the
    rows it skips only add zeros there, and both give the same bits."""
    span = max(rows, span or 0)
    per = 16 * -(-span // (16 * _most_chunks(span, groups)))
    return per, -(-max(rows, 1) // per)


def _partial_floats(rows: int, nc: int) -> int:
    """Floats one V^T C over at most `rows` rows and `nc` columns of C leaves as chunk
    partials: bounded by _most_chunks, which (unlike the chunks counted after rounding
    the chunk size) never drops as the rows grow."""
    return NBQ * nc * _most_chunks(rows, -(-nc // 64)) if nc > 0 else 0


def _partials(m: int, n: int, k: int, cols: int | None = None) -> int:
    """Floats the chunk partials need over a whole run: every panel's Gram matrix V^T V
    and its Apply to the `cols` columns of C, or (cols None) to the n - j0 - kb columns
    right of the panel.  The maximum over the panels, not the first panel's: as the
    columns left shrink, each takes more chunks (up to APPLY_GROUPS workgroups), and
    nc x chunks can grow past the first panel's."""
    need = 1
    for j0, kb in _panels(k):
        rows = m - j0                         # a staircase's panels reach fewer: fewer chunks
        nc = n - j0 - kb if cols is None else cols
        need = max(need, _partial_floats(rows, NBQ), _partial_floats(rows, nc))
    return need


def _check_partials(work, floats: int, what: str) -> None:
    """The chunk partials must fit work.P: a kernel writing past a storage buffer's end
    writes nothing (or another buffer), a silent wrong answer."""
    if floats > work.P.rows * work.P.cols:
        raise RuntimeError(f"internal error: the QR's {what} needs {floats} floats of chunk partials, "
                           f"but {work.P.rows * work.P.cols} were reserved (compute/qr.py's _partials)")


def _take(ctx, rows: int, cols: int, what: str, fp64: bool):
    """A float32 matrix buffer, or (fp64) a float64 one: the same kernels in double."""
    return Float64Matrix(ctx, rows, cols, what) if fp64 else take(ctx, rows, cols, what)


class _Work:
    """One factorization's scratch: the chunk partials, W2 = op(T) V^T C, T, and the
    tall panels' partial sums (at most PANEL_CHUNKS chunks, two columns' worth).
    fp64: every buffer float64 and every kernel compiled with FP64 (`defs`)."""

    def __init__(self, ctx, rows: int, n: int, k: int, factoring: bool = True, cols: int | None = None,
                 fp64: bool = False):
        self.P = self.W = self.T = self.PP = None
        self.defs = {"NBQ": NBQ, "FP64": 1} if fp64 else {"NBQ": NBQ}
        try:
            self.P = _take(ctx, 1, _partials(rows, n, k, cols), "QR partial sums", fp64)
            self.W = _take(ctx, NBQ, max(n, 1), "QR W", fp64)
            self.T = _take(ctx, max(1, -(-k // NBQ)) * NBQ, NBQ, "QR T", fp64)
            if factoring and rows >= PANEL_ROWS:
                self.PP = _take(ctx, 2 * PANEL_CHUNKS, 2 * NBQ + 2, "QR panel partial sums", fp64)
        except BaseException:
            self.give()
            raise

    def give(self, keep_t: bool = False) -> None:
        for b in (self.P, self.W, self.PP) + (() if keep_t else (self.T,)):
            if b is not None:
                b.give()


def _apply_panel(ctx, F, C, work, m, j0, kb, c0, nc, trans: bool, span: int | None = None) -> None:
    """C[:, c0:c0+nc] (rows j0..m) := (I - V op(T) V^T) C, op(T) = T^T when trans:
    W = V^T C by chunks of rows, W2 = op(T) W, C -= V W2."""
    if nc <= 0:
        return
    gx = -(-nc // 64)
    per, nch = _chunks(m - j0, gx, span)
    _check_partials(work, NBQ * nc * nch, "Apply")
    base = {"u_m": m, "u_ld": F.ld, "u_j0": j0, "u_kb": kb, "u_ldc": C.ld, "u_c0": c0, "u_nc": nc}
    ctx.kernels.dispatch("qr_vtc", (gx, nch, 1), buffers={0: F.buf, 1: C.buf, 2: work.P.buf},
                         uniforms=dict(base, u_rows=per), defines=work.defs, work=(m - j0) * nc * kb // 4096)
    ctx.kernels.dispatch("qr_wsum", (-(-nc // NBQ), 1, 1), buffers={0: work.P.buf, 1: work.T.buf, 2: work.W.buf},
                         defines=work.defs, work=nc * nch // 64,
                         uniforms={"u_kb": kb, "u_nc": nc, "u_nch": nch, "u_toff": (j0 // NBQ) * NBQ * NBQ,
                                   "u_trans": int(trans)})
    buffers, defs = {0: F.buf, 1: C.buf, 2: work.W.buf}, work.defs
    if "FP64" not in defs and C.ld % 4 == 0 and c0 % 4 == 0:     # C's rows by vec4 (C bound again)
        buffers, defs = {**buffers, 3: C.buf}, dict(defs, VEC4_STORES=1)
    ctx.kernels.dispatch("qr_update", (gx, -(-(m - j0) // 64), 1), buffers=buffers, defines=defs,
                         uniforms=base, work=(m - j0) * nc * kb // 4096)


def _factor_panel(ctx, F, tau, work, m, j0, kb) -> None:
    """Householder QR of F's panel (rows j0..m, columns j0..j0+kb)."""
    rows = m - j0
    if rows < PANEL_ROWS:
        ctx.kernels.dispatch("qr_panel", (1, 1, 1), buffers={0: F.buf, 1: tau.buf}, defines=work.defs,
                             uniforms={"u_m": m, "u_ld": F.ld, "u_j0": j0, "u_kb": kb},
                             work=rows * kb * kb // 64)
        return
    per = 128 * -(-rows // (128 * PANEL_CHUNKS))
    nch = -(-rows // per)                     # at most PANEL_CHUNKS: work.PP holds them
    ctx.kernels.dispatch_steps("qr_panel_rows", (nch, 1, 1), "u_jj", range(-1, kb),
                               buffers={0: F.buf, 1: tau.buf, 2: work.PP.buf}, defines=work.defs,
                               work=rows * kb // 64, uniforms={"u_m": m, "u_ld": F.ld, "u_j0": j0, "u_kb": kb,
                                                               "u_rows": per, "u_nch": nch})


def _build_t(ctx, F, tau, work, m, j0, kb, span: int | None = None) -> None:
    """The panel's T from V^T V, summed over chunks of rows (qr_vtc's GRAM form)."""
    per, nch = _chunks(m - j0, 1, span)
    _check_partials(work, NBQ * kb * nch, "Gram matrix")
    ctx.kernels.dispatch("qr_vtc", (1, nch, 1), buffers={0: F.buf, 2: work.P.buf}, defines={**work.defs, "GRAM": 1},
                         uniforms={"u_m": m, "u_ld": F.ld, "u_j0": j0, "u_kb": kb, "u_ldc": 0, "u_c0": 0,
                                   "u_nc": kb, "u_rows": per}, work=(m - j0) * kb * kb // 4096)
    ctx.kernels.dispatch("qr_t", (1, 1, 1), buffers={0: work.P.buf, 1: tau.buf, 2: work.T.buf},
                         defines=work.defs,
                         uniforms={"u_j0": j0, "u_kb": kb, "u_nch": nch, "u_toff": (j0 // NBQ) * NBQ * NBQ})


def factor_buffer(ctx, F, m: int, n: int, leftmost=None, fp64: bool = False):
    """Householder QR of the m x n matrix in F, in place; returns the (tau, T) buffers.
    leftmost: the rows' leftmost nonzero columns when they form a staircase (each
    panel then stops at the rows it reaches: the same F and tau, fewer flops).
    fp64: F is a Float64Matrix, the factorization runs in double."""
    k = min(m, n)
    tau = _take(ctx, 1, max(k, 1), "QR tau", fp64)
    try:
        work = _Work(ctx, m, n, k, fp64=fp64)
    except BaseException:
        tau.give()
        raise
    try:
        for j0, kb in _panels(k):
            mp = rows_reached(m, j0 + kb, leftmost)
            _factor_panel(ctx, F, tau, work, mp, j0, kb)
            _build_t(ctx, F, tau, work, mp, j0, kb, span=m - j0)
            _apply_panel(ctx, F, F, work, mp, j0, kb, j0 + kb, n - j0 - kb, trans=True, span=m - j0)
    except BaseException:
        tau.give()
        work.give()
        raise
    work.give(keep_t=True)
    return tau, work.T


def _scale(ctx, M, rows: int, cols: int, e: int, upper: bool = False) -> None:
    """M (rows x cols) times 2^e on the GPU, in place (scale.comp); upper: R's trapezoid only."""
    ctx.kernels.dispatch("scale", (-(-cols // 16), -(-rows // 16)), buffers={0: M.buf},
                         uniforms={"u_rows": rows, "u_cols": cols, "u_ld": M.ld, "u_s": float(np.ldexp(1.0, e))},
                         defines={"UPPER": 1} if upper else None)


def qr_raw(A32: np.ndarray, *, ctx, leftmost=None, amax: float | None = None):
    """(F, tau) in geqrf's layout; A scaled by a power of two first (exact), as the
    other methods -- on the GPU where 2^-e and 2^e are normal float32 numbers (one pass
    there, none over the host's copy; R scaled back there too), else on the host.
    leftmost: its rows' staircase, if it has one (factor_buffer).  amax: max |A| if known."""
    require(ctx)
    m, n = A32.shape
    e = power_of_two_exponent(A32, amax)
    on_gpu = 0 < e <= 126                               # the usual case: max |A| of 1 to 2^126
    A, sc = (A32, 1.0) if on_gpu or e == 0 else power_of_two_scale(A32, e)
    F = upload(ctx, A, "the QR factorization")
    try:
        if on_gpu:
            _scale(ctx, F, m, n, -e)
        out = Prefaulted((m, n))                    # its pages faulted in while the GPU factors
        tau, T = factor_buffer(ctx, F, m, n, leftmost)
        try:
            if on_gpu:
                _scale(ctx, F, min(m, n), n, e, upper=True)
            out = download(ctx, F, out.array)
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


def _apply(ctx, F, tau, C, m, k, p, trans: bool, fp64: bool = False) -> None:
    work = _Work(ctx, m, max(p, NBQ), k, factoring=False, cols=p, fp64=fp64)
    try:
        panels = _panels(k)
        for j0, kb in panels:
            _build_t(ctx, F, tau, work, m, j0, kb)
        for j0, kb in (panels if trans else reversed(panels)):
            _apply_panel(ctx, F, C, work, m, j0, kb, 0, p, trans)
    finally:
        work.give()


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


def qr_raw64(A: np.ndarray, *, ctx, rhs: np.ndarray | None = None, trans: bool = False):
    """(F, tau) in geqrf's layout, float64 throughout (the same kernels in double); with
    rhs (m, p): (F, tau, Q rhs or Q^T rhs) from the reflectors while they are on the GPU (no
    second upload of F).  A far from 1 in size is scaled by a power of two first (exact)."""
    require(ctx)
    m, n = A.shape
    A = np.asarray(A, np.float64)
    amax = float(np.abs(A).max(initial=0.0))
    e = int(np.frexp(amax)[1]) if amax > 0 and not 2.0 ** -400 < amax < 2.0 ** 400 else 0
    F = Float64Matrix(ctx, m, n, "the float64 QR factorization")
    C = None
    try:
        F.put(ctx, np.ldexp(A, -e) if e else A)
        tau, T = factor_buffer(ctx, F, m, n, fp64=True)
        try:
            out = F.get(ctx)
            taus = tau.get(ctx)[0, :min(m, n)].copy()
            if rhs is not None:
                rhs = np.asarray(rhs, np.float64)
                C = Float64Matrix(ctx, m, rhs.shape[1], "C")
                C.put(ctx, rhs)
                _apply(ctx, F, tau, C, m, min(m, n), rhs.shape[1], trans, fp64=True)
                rhs = C.get(ctx)
        finally:
            tau.give()
            T.give()
    finally:
        F.give()
        if C is not None:
            C.give()
    if e:
        for i in range(min(m, n)):
            out[i, i:] = np.ldexp(out[i, i:], e)
    return (out, taus) if rhs is None else (out, taus, rhs)


def apply_q64(F64: np.ndarray, tau64: np.ndarray, C64: np.ndarray, *, trans: bool = False, ctx) -> np.ndarray:
    """Q C or Q^T C in float64 for (F, tau) in geqrf's layout, C (m, p)."""
    require(ctx)
    m, n = F64.shape
    k, p = tau64.shape[0], C64.shape[1]
    F = Float64Matrix(ctx, m, n, "the float64 reflectors")
    tau = Float64Matrix(ctx, 1, max(k, 1), "tau")
    C = Float64Matrix(ctx, m, p, "C")
    try:
        F.put(ctx, F64)
        tau.put(ctx, np.asarray(tau64, np.float64).reshape(1, -1) if k else np.zeros((1, 1)))
        C.put(ctx, C64)
        _apply(ctx, F, tau, C, m, k, p, trans, fp64=True)
        return C.get(ctx)
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
