"""The LS-SVM's products K Z in float64 on the GPU, K never stored (kernel_product64.comp):
X (N x d) goes up once in float64 and stays; each product uploads Z (N x k), sums chunks of
the columns side by side (a workgroup row a chunk: rows x chunks fill the chip), adds the
chunks' partial sums in order (sum_slabs.comp), and reads K Z back.  The refinement's residuals are then exact to
float64 rounding, with O(N k) host work, where forming K in float64 on the host costs
N^2 memory (28.8 GB at N = 60,000) and N^2 exponentials every step."""
from __future__ import annotations

import numpy as np

from .blas import require, spread
from ..methods.contract import KERNELS
from .float64 import Float64Matrix

#: the most loop iterations one invocation runs (columns x (features + right-hand sides)):
#: llvmpipe ends a shader loop past 65,535, nested loops counted together
TERMS = 65_535
#: the right-hand sides one dispatch carries (its accumulators are named registers)
MOST_COLUMNS = 16
#: the points one prediction pass takes (their K(T, X) Z rows in one buffer)
ROWS_AT_ONCE = 1 << 16
#: workgroups (of 64 rows) x chunks a product aims for: the H100 holds about 4,000 at once
AIM_GROUPS = 8192
#: bytes of the chunks' partial sums one pass keeps (more chunks: more passes)
PART_BYTES = 64 << 20
#: features up to which each row's point is held in registers (a compile-time loop)
REGISTER_FEATURES = 64


def _triple(v: float) -> tuple:
    """v as float32 hi + mid + lo (the shader adds them in float64: all of v's 53 bits)."""
    hi = float(np.float32(v))
    mid = float(np.float32(v - hi))
    return hi, mid, float(np.float32(v - hi - mid))


class KernelProducts:
    """K Z for the kernel of X, on the GPU in float64.  Release when done."""

    def __init__(self, X: np.ndarray, *, kernel: str, gamma: float, degree: int, coef0: float, ctx):
        require(ctx)
        self.ctx = ctx
        X = np.ascontiguousarray(X, np.float64)
        self.N, self.d = X.shape
        self.uniforms = {"u_kind": KERNELS[kernel], "u_gamma": _triple(gamma), "u_coef0": _triple(coef0),
                         "u_degree": int(degree), "u_n": self.N, "u_d": self.d}
        self.X = Float64Matrix(ctx, self.N, self.d, "X in float64")
        try:
            self.X.put(ctx, X)
        except BaseException:
            self.release()
            raise

    def __call__(self, Z: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """K Z, float64 (N x k), for Z (N x k) or (N,); with rows (M x d, other points T:
        prediction) K(T, X) Z, M x k -- T in blocks of ROWS_AT_ONCE points."""
        Z = np.asarray(Z, np.float64)
        flat = Z.ndim == 1
        Z = Z.reshape(self.N, -1)
        T = None if rows is None else np.ascontiguousarray(rows, np.float64).reshape(-1, self.d)
        out = np.concatenate([self._product(Z[:, c:c + MOST_COLUMNS], T)
                              for c in range(0, Z.shape[1], MOST_COLUMNS)], axis=1)
        return out[:, 0] if flat else out

    def _product(self, Z: np.ndarray, T: np.ndarray | None) -> np.ndarray:
        """K Z (T None) or K(T, X) Z for at most MOST_COLUMNS columns of Z: Z uploaded once,
        T's blocks of ROWS_AT_ONCE points one after another."""
        ctx, k = self.ctx, Z.shape[1]
        Zb = Float64Matrix(ctx, self.N, k, "the LS-SVM's right-hand sides")
        try:
            Zb.put(ctx, Z)
            if T is None:
                return self._rows(Zb, k, self.N, None)
            return np.concatenate([self._rows(Zb, k, len(block), block)
                                   for block in (T[r:r + ROWS_AT_ONCE] for r in range(0, T.shape[0], ROWS_AT_ONCE))]
                                  or [np.zeros((0, k))])
        finally:
            Zb.give()

    def _rows(self, Zb, k: int, M: int, T: np.ndarray | None) -> np.ndarray:
        """The M rows of the product for the points T (X's own where None): the columns j of
        X in chunks of at most TERMS loop iterations per invocation, as many chunks as keep
        about AIM_GROUPS workgroups busy, each pass's chunks summed side by side into slabs
        of P and then added to the result in column order."""
        ctx = self.ctx
        groups = -(-M // 64)
        most = max(1, TERMS // (self.d + k + 1))                  # columns one invocation may sum
        step = max(1, min(most, -(-self.N // max(1, AIM_GROUPS // groups))))
        chunks = -(-self.N // step)
        per_pass = max(1, min(chunks, PART_BYTES // (8 * M * k), TERMS // 2))
        Yb = Float64Matrix(ctx, M, k, "K Z")
        Pb = Float64Matrix(ctx, per_pass * M, k, "the chunks' partial sums of K Z")
        Tb = None if T is None else Float64Matrix(ctx, M, self.d, "the points to predict")
        try:
            buffers, defines = {0: self.X.buf, 1: Zb.buf, 2: Pb.buf}, {"KCOLS": k}
            if self.d <= REGISTER_FEATURES:
                defines["D"] = self.d
            if Tb is not None:
                Tb.put(ctx, T)
                buffers[3], defines["ROWS"] = Tb.buf, 1
            Yb.clear(ctx)
            count, slab = M * Yb.ld, M * Pb.ld                     # Z, P and Y: k columns, one stride
            for c0 in range(0, chunks, per_pass):
                parts = min(per_pass, chunks - c0)
                j0 = c0 * step
                ctx.kernels.dispatch("kernel_product64", (groups, parts, 1), buffers=buffers, defines=defines,
                                     uniforms=dict(self.uniforms, u_n=M, u_ldx=self.X.ld, u_ldz=Zb.ld, u_j0=j0,
                                                   u_j1=min(self.N, j0 + parts * step), u_step=step),
                                     work=M * min(parts * step, self.N - j0))
                ctx.kernels.dispatch("sum_slabs", spread(count), buffers={0: Pb.buf, 1: Yb.buf},
                                     defines={"FP64": 1}, uniforms={"u_count": count, "u_slabs": parts,
                                                                    "u_slab": slab})
            return Yb.get(ctx)
        finally:
            for b in (Yb, Pb, Tb):
                if b is not None:
                    b.give()

    def release(self) -> None:
        if self.X is not None:
            self.X.give()
            self.X = None
