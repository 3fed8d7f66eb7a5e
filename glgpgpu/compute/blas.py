"""The compute method's building blocks: storage, the general product and the
triangular kernels, each one dispatch (shaders/compute/)."""
from __future__ import annotations

import numpy as np

from ..gl.buffers import MatrixBuffer, leading
from ..gl.staging import StagingUnavailable

BM = BN = 128          # the tile of C one workgroup of gemm.comp owns (16 x 16 threads, 8 x 8 each)
NB = 64                # the order of a diagonal block (potrf.comp, trsm_rows.comp, trsm_rhs.comp)
#: float32 products with aligned row-major operands by gemm_rows.comp (False: all by gemm.comp)
ROW_TILES = True
ROW_TILE_K = 16        # gemm_rows.comp's slice of the sum (its BK)
#: rows of one band of download_lower: band [r0, r1) reads columns 0 .. r1, so the bytes read
#: above the diagonal are about m * LOWER_BAND_ROWS / 2
LOWER_BAND_ROWS = 256


class Pooled:
    """A matrix kept in a pooled storage buffer (`_mb`, its GL buffer `buf`): cleared on the
    GPU, given back once (Float64Matrix, chain.Vector32)."""

    _mb = buf = None

    def clear(self, ctx):
        """Every number 0 (padding too), on the GPU."""
        fill(ctx, self._mb, 0.0)
        return self

    def give(self) -> None:
        if self._mb is not None:
            self._mb.give()
            self._mb = self.buf = None


def require(ctx) -> None:
    """Make ctx current on this thread; refuse a driver without compute shaders (GL 4.3),
    naming what is missing."""
    ctx.make_current()
    if not ctx.caps.compute_shaders:
        raise RuntimeError(f"method='compute' needs OpenGL 4.3 compute shaders; {ctx.caps.renderer} offers "
                           f"{ctx.caps.version}. Use method='paper' (OpenGL 3.3).")


def upload(ctx, M: np.ndarray, what: str = "matrix") -> MatrixBuffer:
    """A pooled buffer holding M (float32, row-major, padded row stride); give it back.
    M goes to the driver as it is (no host copy for C-contiguous float32) and is laid
    out at the padded stride on the GPU."""
    M = np.ascontiguousarray(M, np.float32)
    rows, cols = M.shape
    ctx.make_current()
    check_bytes(ctx, rows, cols, what)
    out = ctx.buffers.take(rows, cols, what)
    write(ctx, out, M)
    return out


def _staged_or_direct(ctx, staged, direct) -> None:
    """Through the context's mapped staging ring on a hardware driver (gl/staging.py),
    else (or once the ring is found unavailable) the driver's own copy."""
    ctx.make_current()
    stager = ctx.stager
    if stager is not None:
        try:
            staged(stager)
            return
        except StagingUnavailable:
            ctx.staging = False
    direct()


def _put(ctx, buf, M: np.ndarray) -> None:
    """Compact rows of M into a buffer."""
    _staged_or_direct(ctx, lambda st: st.upload_buffer(buf.glo, M), lambda: buf.write(np.ascontiguousarray(M)))


def _get(ctx, buf, out: np.ndarray) -> None:
    _staged_or_direct(ctx, lambda st: st.read_buffer(buf.glo, out), lambda: _read_direct(buf, out))


def _read_direct(buf, out: np.ndarray) -> None:
    """The driver's read, into one contiguous array (then copied where out's rows lie apart)."""
    if out.flags.c_contiguous:
        buf.read_into(out, size=out.nbytes)
    else:
        tmp = np.empty(out.shape, np.float32)
        buf.read_into(tmp, size=tmp.nbytes)
        out[...] = tmp


def write(ctx, dst: MatrixBuffer, M: np.ndarray) -> None:
    """M (rows x cols, or fewer: the top left block) into dst, through a compact buffer
    and one copy on the GPU.  M may be a strided view (the staged copy reads it as it is)."""
    M = np.asarray(M, np.float32)
    if M.ndim == 1:
        M = M.reshape(dst.rows, dst.cols)
    rows, cols = M.shape
    if dst.ld == cols and rows <= dst.rows:
        _put(ctx, dst.buf, M)
        return
    tmp = ctx.buffers.take(rows, cols, "a transfer", ld=cols)
    try:
        _put(ctx, tmp.buf, M)
        _copy(ctx, tmp, dst, rows, cols)
    finally:
        tmp.give()


def download(ctx, src: MatrixBuffer, out: np.ndarray | None = None, rows: int | None = None,
             cols: int | None = None) -> np.ndarray:
    """The top left rows x cols (all of src by default) as float32, compacted on the GPU
    and read straight into out (which may be a view whose rows lie apart: the staging
    ring copies band by band; the driver's own read needs one contiguous array)."""
    rows, cols = rows or src.rows, cols or src.cols
    if out is None:
        out = np.empty((rows, cols), np.float32)
    if src.ld == cols:
        _get(ctx, src.buf, out)
        return out
    tmp = ctx.buffers.take(rows, cols, "a transfer", ld=cols)
    try:
        _copy(ctx, src, tmp, rows, cols)
        _get(ctx, tmp.buf, out)
    finally:
        tmp.give()
    return out


def _lower_bands(m: int) -> tuple:
    """The row bands of a lower triangle packed one after another: [(r0, r1, columns, where
    the band starts in the packed buffer, in floats)] -- band [r0, r1) of LOWER_BAND_ROWS
    rows carries columns 0 .. r1 -- and the packed floats in all."""
    bands, at = [], 0
    for r0 in range(0, m, LOWER_BAND_ROWS):
        r1 = min(m, r0 + LOWER_BAND_ROWS)
        bands.append((r0, r1, r1, at))
        at += (r1 - r0) * r1
    return bands, at


def _move_lower_bands(ctx, packed: MatrixBuffer, matrix: MatrixBuffer, bands, into: bool) -> None:
    """Each band between the packed buffer and its rows of matrix (into: packed -> matrix), on the GPU."""
    for r0, r1, cols, start in bands:
        src, src0, lds, out, dst0, ldd = ((packed, start, cols, matrix, r0 * matrix.ld, matrix.ld) if into else
                                          (matrix, r0 * matrix.ld, matrix.ld, packed, start, cols))
        ctx.kernels.dispatch("copy_ld", (-(-cols // 16), -(-(r1 - r0) // 16)), buffers={0: src.buf, 1: out.buf},
                             uniforms={"u_rows": r1 - r0, "u_cols": cols, "u_lds": lds, "u_ldd": ldd,
                                       "u_src0": src0, "u_dst0": dst0})


def upload_lower(ctx, M: np.ndarray, what: str = "matrix") -> MatrixBuffer:
    """A pooled m x m buffer holding M's lower triangle (band [r0, r1) of LOWER_BAND_ROWS rows:
    columns 0 .. r1), about half the bytes of `upload`; above the bands the buffer keeps
    whatever it held -- for kernels that read the lower triangle only (dense.factor).
    Give it back."""
    M = np.asarray(M, np.float32)
    m = M.shape[0]
    ctx.make_current()
    check_bytes(ctx, m, m, what)
    bands, floats = _lower_bands(m)
    out = ctx.buffers.take(m, m, what)
    try:
        packed = ctx.buffers.take(1, floats, "a triangle's transfer", ld=floats)
        try:
            def direct():
                packed.buf.write(np.concatenate([M[r0:r1, :cols].reshape(-1) for r0, r1, cols, _ in bands]))
            byte_bands = [(r0, r1, cols, 4 * start) for r0, r1, cols, start in bands]
            _staged_or_direct(ctx, lambda st: st.write_blocks(packed.buf.glo, M, byte_bands), direct)
            _move_lower_bands(ctx, packed, out, bands, into=True)
        finally:
            packed.give()
    except BaseException:
        out.give()
        raise
    return out


def download_lower(ctx, src: MatrixBuffer, m: int, out: np.ndarray) -> np.ndarray:
    """src's leading m x m lower triangle into out, reading about half the bytes of
    `download`: row band [r0, r1) (LOWER_BAND_ROWS rows) carries columns 0 .. r1 only, the
    bands packed one after another in a compact buffer on the GPU, then read band by
    band.  out[r0:r1, r1:] is not written: out must hold zeros there (a zeroed array),
    and src must hold zeros above the diagonal within each band (zero_upper)."""
    bands, floats = _lower_bands(m)
    packed = ctx.buffers.take(1, floats, "a triangle's transfer", ld=floats)
    try:
        _move_lower_bands(ctx, packed, src, bands, into=False)

        def direct():
            flat = np.empty(floats, np.float32)
            _read_direct(packed.buf, flat)
            for r0, r1, cols, start in bands:
                out[r0:r1, :cols] = flat[start:start + (r1 - r0) * cols].reshape(r1 - r0, cols)
        byte_bands = [(r0, r1, cols, 4 * start) for r0, r1, cols, start in bands]
        _staged_or_direct(ctx, lambda st: st.read_blocks(packed.buf.glo, out, byte_bands), direct)
    finally:
        packed.give()
    return out


def _copy(ctx, src: MatrixBuffer, dst: MatrixBuffer, rows: int | None = None, cols: int | None = None) -> None:
    """The top left rows x cols (src's all by default) from src into dst, on the GPU."""
    rows, cols = rows or src.rows, cols or src.cols
    copy_block(ctx, src, 0, dst, 0, rows, cols)


def copy_block(ctx, src, src_col: int, dst, dst_col: int, rows: int, cols: int) -> None:
    """rows x cols from src's columns src_col.. into dst's columns dst_col.., on the GPU (each
    buffer at its own row stride `ld`; src_col and dst_col count numbers from the buffer's start,
    so r * ld + c starts at row r, column c).  Four numbers a thread where every count and offset
    is a multiple of 4."""
    w = 4 if all(v % 4 == 0 for v in (cols, src.ld, dst.ld, src_col, dst_col)) else 1
    ctx.kernels.dispatch("copy_ld", (-(-cols // (16 * w)), -(-rows // 16)), buffers={0: src.buf, 1: dst.buf},
                         uniforms={"u_rows": rows, "u_cols": cols, "u_lds": src.ld, "u_ldd": dst.ld,
                                   "u_src0": src_col, "u_dst0": dst_col}, defines={"VEC4": 1} if w == 4 else None)


#: workgroups along x before spread() folds a 1-D grid into y: GL guarantees 65,535 a dimension
SPREAD_GROUPS = 65535


def spread(count: int) -> tuple:
    """Workgroups for `count` items, 256 a workgroup, folded into y past the MAX_GROUPS one
    dimension may hold (a kernel's item: x + y * gl_NumWorkGroups.x * 256)."""
    groups = -(-count // 256)
    most = SPREAD_GROUPS
    return min(groups, most), -(-groups // most), 1


def fill(ctx, A: MatrixBuffer, value: float = 0.0) -> MatrixBuffer:
    """Every float of A (padding included) set to value, on the GPU."""
    count = A.rows * A.ld
    ctx.kernels.dispatch("fill", spread(count), buffers={0: A.buf}, uniforms={"u_count": count, "u_value": float(value)})
    return A


def transpose(ctx, A: MatrixBuffer, n: int) -> MatrixBuffer:
    """A new n x n buffer holding A's leading n x n transposed; give it back."""
    out = ctx.buffers.take(n, n, "a transposed tile")
    ctx.kernels.dispatch("transpose", (-(-n // 16), -(-n // 16)), buffers={0: A.buf, 1: out.buf},
                         uniforms={"u_n": n, "u_lds": A.ld, "u_ldd": out.ld})
    return out


def take(ctx, rows: int, cols: int, what: str = "matrix") -> MatrixBuffer:
    ctx.make_current()
    check_bytes(ctx, rows, cols, what)
    return ctx.buffers.take(rows, cols, what)


def check_bytes(ctx, rows, cols, what):
    """ValueError naming `what` where a rows x cols float32 matrix exceeds one storage buffer."""
    need = 4 * rows * leading(cols)
    lim = ctx.max_storage_block
    if lim and need > lim:
        raise ValueError(f"{what} ({rows} x {cols}) needs {need} bytes in one storage buffer, but this GPU's "
                         f"limit is {lim} ({ctx.caps.renderer}); larger matrices go as tiles")


def gemm(ctx, C: MatrixBuffer, A: MatrixBuffer, B: MatrixBuffer, *, m: int, n: int, k: int,
         alpha: float = 1.0, beta: float = 0.0, a_at=(0, 0), b_at=(0, 0), c_at=(0, 0),
         trans_b: bool = False, lower: bool = False, d: MatrixBuffer | None = None,
         dist2: bool = False, kernel: dict | None = None, fp64: bool = False) -> None:
    """C[c_at + (i, j)] = beta C + alpha sum_l A[a_at + (i, l)] d_l op(B)[j, l] for the
    m x n block of C: op(B)[j, l] = B[b_at + (j, l)], or B[b_at + (l, j)] with trans_b.
    lower: the tiles on and below the diagonal only (the diagonal tiles whole: callers
    zero or ignore what lies above the diagonal).  dist2: (A - B)^2 summed instead.  kernel: the LS-SVM kernel
    function's uniforms (u_kind, u_gamma, u_coef0, u_degree, u_diag) applied on store.
    fp64: the buffers hold float64 (Float64Matrix), the sums run in float64."""
    if m <= 0 or n <= 0:
        return
    defines = {"FP64": 1} if fp64 else {}
    if trans_b:
        defines["TRANS_B"] = 1
    if lower:
        if m != n:
            raise ValueError(f"a lower product needs a square block of C, not {m} x {n}")
        defines["LOWER"] = 1
    if d is not None:
        defines["USE_D"] = 1
    aoff, boff = a_at[0] * A.ld + a_at[1], b_at[0] * B.ld + b_at[1]
    aligned = A.ld % 4 == 0 and B.ld % 4 == 0 and aoff % 4 == 0 and boff % 4 == 0
    # float32, aligned, B row-major: the row-major tiles (gemm_rows.comp), else gemm.comp
    shader = "gemm_rows" if aligned and not fp64 and not trans_b and ROW_TILES else "gemm"
    if aligned and shader == "gemm":
        defines["VEC4"] = 1
    if dist2:
        defines["DIST2"] = 1
    uniforms = {"u_m": m, "u_n": n, "u_k": k, "u_lda": A.ld, "u_ldb": B.ld, "u_ldc": C.ld,
                "u_aoff": aoff, "u_boff": boff,
                "u_coff": c_at[0] * C.ld + c_at[1], "u_alpha": float(alpha), "u_beta": float(beta)}
    if shader == "gemm_rows":
        uniforms["u_full"] = k - k % ROW_TILE_K
    if kernel is not None:
        defines["KERNEL"] = 1
        uniforms.update(kernel)
    buffers = {0: A.buf, 1: B.buf, 2: C.buf}
    if d is not None:
        buffers[3] = d.buf
    tiles = -(-m // BM)
    groups = (tiles * (tiles + 1) // 2, 1) if lower else (-(-n // BN), tiles)
    ctx.kernels.dispatch(shader, groups, uniforms=uniforms, buffers=buffers,
                         defines=defines or None, work=m * n * max(k, 1) // 4096)


def _nb(fp64: bool) -> dict:
    return {"NB": NB, "FP64": 1} if fp64 else {"NB": NB}


def potrf_block(ctx, A: MatrixBuffer, k0: int, nb: int, *, pivot_floor=None, regularize=False,
                fp64: bool = False) -> None:
    """Factor the nb x nb diagonal block at (k0, k0) in place (one workgroup)."""
    ctx.kernels.dispatch("potrf", (1, 1, 1), buffers={0: A.buf}, defines=_nb(fp64),
                         uniforms={"u_off": k0 * A.ld + k0, "u_ld": A.ld, "u_nb": nb,
                                   "u_floor": -1.0 if pivot_floor is None else float(pivot_floor),
                                   "u_regularize": int(bool(regularize))})


def syrk64(ctx, A, r0: int, k0: int, nb: int, n: int, listed=None) -> None:
    """The float64 factor's trailing update A[r0:r0+n, r0:r0+n] -= A[r0:, k0:k0+nb]
    A[r0:, k0:k0+nb]^T on the tiles on or below the diagonal (syrk64.comp: the same
    sums as gemm's, in tiles that suit float64).  listed: (buffer, offset, count) -- only
    the pairs of those `count` tile rows (counted from r0) at `offset` in the int buffer."""
    if n <= 0:
        return
    t = -(-n // 64) if listed is None else listed[2]
    buffers, uniforms, defines = {0: A.buf}, {"u_n": n, "u_k": nb, "u_ld": A.ld, "u_aoff": r0 * A.ld + k0,
                                              "u_coff": r0 * A.ld + r0}, None
    if listed is not None:
        buffers[1], uniforms["u_list"], defines = listed[0].buf, int(listed[1]), {"LISTED": 1}
    ctx.kernels.dispatch("syrk64", (t * (t + 1) // 2, 1, 1), buffers=buffers, uniforms=uniforms, defines=defines)


def trsm_rows(ctx, A: MatrixBuffer, k0: int, nb: int, r0: int, rows: int, L: MatrixBuffer | None = None,
              fp64: bool = False, listed=None) -> None:
    """A[r0:r0+rows, k0:k0+nb] := that block times L11^-T, L11 = the factored block at
    (k0, k0) of L (A itself by default).  listed: (buffer, offset, count) -- only those
    `count` tile rows of NB rows (counted from r0) at `offset` in the int buffer."""
    if rows <= 0:
        return
    L = A if L is None else L
    buffers, defines = {0: A.buf, 1: L.buf}, _nb(fp64)
    uniforms = {"u_loff": k0 * L.ld + k0, "u_ldl": L.ld, "u_aoff": r0 * A.ld + k0, "u_ld": A.ld, "u_nb": nb,
                "u_rows": rows}
    if listed is not None:
        buffers[2], uniforms["u_list"], defines = listed[0].buf, int(listed[1]), {**defines, "LISTED": 1}
    ctx.kernels.dispatch("trsm_rows", (-(-rows // 64) if listed is None else listed[2], 1, 1), buffers=buffers,
                         defines=defines, uniforms=uniforms)


def trsm_rhs(ctx, L: MatrixBuffer, Xt: MatrixBuffer, k0: int, nb: int, nrhs: int, backward: bool) -> None:
    """The diagonal-block step of a solve on X^T (one right-hand side per row)."""
    ctx.kernels.dispatch("trsm_rhs", (-(-nrhs // 64), 1, 1), buffers={0: L.buf, 1: Xt.buf},
                         defines={"NB": NB, **({"BACKWARD": 1} if backward else {})},
                         uniforms={"u_loff": k0 * L.ld + k0, "u_ldl": L.ld, "u_xoff": k0, "u_ldx": Xt.ld,
                                   "u_nb": nb, "u_nrhs": nrhs})


def zero_upper(ctx, A: MatrixBuffer, m: int) -> None:
    ctx.kernels.dispatch("zero_upper", (-(-m // 16), -(-m // 16)), buffers={0: A.buf},
                         uniforms={"u_m": m, "u_ld": A.ld})


def lower_by_columns(ctx, L: MatrixBuffer, m: int) -> np.ndarray:
    """L's leading m x m lower triangle read back by columns: an F-ordered float32
    array, upper part zero (transposed on the GPU, so the host copies nothing)."""
    U = ctx.buffers.take(m, m, "L by columns", ld=m)
    try:
        ctx.kernels.dispatch("lower_columns", (-(-m // 16), -(-m // 16)), buffers={0: L.buf, 1: U.buf},
                             uniforms={"u_m": m, "u_lds": L.ld})
        return download(ctx, U, rows=m, cols=m).T
    finally:
        U.give()


def diagonal(ctx, A: MatrixBuffer, m: int) -> np.ndarray:
    """A's diagonal (the pivots of a factor), float32."""
    d = ctx.buffers.take(1, m, "diagonal")
    try:
        ctx.kernels.dispatch("diagonal", (-(-m // 256), 1, 1), buffers={0: A.buf, 1: d.buf},
                             uniforms={"u_m": m, "u_ld": A.ld})
        return download(ctx, d)[0]
    finally:
        d.give()
