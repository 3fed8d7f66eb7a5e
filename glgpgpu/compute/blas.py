"""The compute method's building blocks: storage, the general product and the
triangular kernels, each one dispatch (shaders/compute/)."""
from __future__ import annotations

import numpy as np

from ..gl.buffers import MatrixBuffer

BM = BN = 128          # the tile of C one workgroup of gemm.comp owns (16 x 16 threads, 8 x 8 each)
NB = 64                # the order of a diagonal block (potrf.comp, trsm_rows.comp, trsm_rhs.comp)


def require(ctx) -> None:
    """Refuse a driver without compute shaders (GL 4.3), naming what is missing."""
    if not ctx.caps.compute_shaders:
        raise RuntimeError(f"method='compute' needs OpenGL 4.3 compute shaders; {ctx.caps.renderer} offers "
                           f"{ctx.caps.version}. Use method='paper' (OpenGL 3.3).")


def upload(ctx, M: np.ndarray, what: str = "matrix") -> MatrixBuffer:
    """A pooled buffer holding M (float32, row-major); give it back."""
    M = np.asarray(M, np.float32)
    rows, cols = M.shape
    _check_bytes(ctx, rows, cols, what)
    return ctx.buffers.take(rows, cols, what).write(M)


def take(ctx, rows: int, cols: int, what: str = "matrix") -> MatrixBuffer:
    _check_bytes(ctx, rows, cols, what)
    return ctx.buffers.take(rows, cols, what)


def _check_bytes(ctx, rows, cols, what):
    need = 4 * rows * (-(-cols // 4) * 4)
    lim = ctx.caps.max_storage_block
    if lim and need > lim:
        raise ValueError(f"{what} ({rows} x {cols}) needs {need} bytes in one storage buffer, but this GPU's "
                         f"limit is {lim} ({ctx.caps.renderer}); larger matrices go as tiles")


def gemm(ctx, C: MatrixBuffer, A: MatrixBuffer, B: MatrixBuffer, *, m: int, n: int, k: int,
         alpha: float = 1.0, beta: float = 0.0, a_at=(0, 0), b_at=(0, 0), c_at=(0, 0),
         trans_b: bool = False, lower: bool = False, d: MatrixBuffer | None = None,
         dist2: bool = False, kernel: dict | None = None) -> None:
    """C[c_at + (i, j)] = beta C + alpha sum_l A[a_at + (i, l)] d_l op(B)[j, l] for the
    m x n block of C: op(B)[j, l] = B[b_at + (j, l)], or B[b_at + (l, j)] with trans_b.
    lower: only j <= i.  dist2: (A - B)^2 summed instead.  kernel: the LS-SVM kernel
    function's uniforms (u_kind, u_gamma, u_coef0, u_degree, u_diag) applied on store."""
    if m <= 0 or n <= 0:
        return
    defines = {}
    if trans_b:
        defines["TRANS_B"] = 1
    if lower:
        defines["LOWER"] = 1
    if d is not None:
        defines["USE_D"] = 1
    if dist2:
        defines["DIST2"] = 1
    uniforms = {"u_m": m, "u_n": n, "u_k": k, "u_lda": A.ld, "u_ldb": B.ld, "u_ldc": C.ld,
                "u_aoff": a_at[0] * A.ld + a_at[1], "u_boff": b_at[0] * B.ld + b_at[1],
                "u_coff": c_at[0] * C.ld + c_at[1], "u_alpha": float(alpha), "u_beta": float(beta)}
    if kernel is not None:
        defines["KERNEL"] = 1
        uniforms.update(kernel)
    buffers = {0: A.buf, 1: B.buf, 2: C.buf}
    if d is not None:
        buffers[3] = d.buf
    ctx.kernels.dispatch("gemm", (-(-n // BN), -(-m // BM)), uniforms=uniforms, buffers=buffers,
                         defines=defines or None, work=m * n * max(k, 1) // 4096)


def potrf_block(ctx, A: MatrixBuffer, k0: int, nb: int, *, pivot_floor=None, regularize=False) -> None:
    """Factor the nb x nb diagonal block at (k0, k0) in place (one workgroup)."""
    ctx.kernels.dispatch("potrf", (1, 1, 1), buffers={0: A.buf}, defines={"NB": NB},
                         uniforms={"u_off": k0 * A.ld + k0, "u_ld": A.ld, "u_nb": nb,
                                   "u_floor": -1.0 if pivot_floor is None else float(pivot_floor),
                                   "u_regularize": int(bool(regularize))})


def trsm_rows(ctx, A: MatrixBuffer, k0: int, nb: int, r0: int, rows: int) -> None:
    """A[r0:r0+rows, k0:k0+nb] := that block times L11^-T, L11 = the factored block at (k0, k0)."""
    if rows <= 0:
        return
    ctx.kernels.dispatch("trsm_rows", (-(-rows // 64), 1, 1), buffers={0: A.buf}, defines={"NB": NB},
                         uniforms={"u_loff": k0 * A.ld + k0, "u_aoff": r0 * A.ld + k0, "u_ld": A.ld,
                                   "u_nb": nb, "u_rows": rows})


def trsm_rhs(ctx, L: MatrixBuffer, Xt: MatrixBuffer, k0: int, nb: int, nrhs: int, backward: bool) -> None:
    """The diagonal-block step of a solve on X^T (one right-hand side per row)."""
    ctx.kernels.dispatch("trsm_rhs", (-(-nrhs // 64), 1, 1), buffers={0: L.buf, 1: Xt.buf},
                         defines={"NB": NB, **({"BACKWARD": 1} if backward else {})},
                         uniforms={"u_loff": k0 * L.ld + k0, "u_ldl": L.ld, "u_xoff": k0, "u_ldx": Xt.ld,
                                   "u_nb": nb, "u_nrhs": nrhs})


def zero_upper(ctx, A: MatrixBuffer, m: int) -> None:
    ctx.kernels.dispatch("zero_upper", (-(-m // 16), -(-m // 16)), buffers={0: A.buf},
                         uniforms={"u_m": m, "u_ld": A.ld})


def diagonal(ctx, A: MatrixBuffer, m: int) -> np.ndarray:
    """A's diagonal (the pivots of a factor), float32."""
    d = ctx.buffers.take(1, m, "diagonal")
    try:
        ctx.kernels.dispatch("diagonal", (-(-m // 256), 1, 1), buffers={0: A.buf, 1: d.buf},
                             uniforms={"u_m": m, "u_ld": A.ld})
        return d.read()[0]
    finally:
        d.give()
