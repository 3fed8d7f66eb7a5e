"""The LS-SVM's products K Z in float64 on the GPU, K never stored (kernel_product64.comp):
X (N x d) goes up once in float64 and stays; each product uploads Z (N x k), runs the
column chunks, and reads K Z back.  The refinement's residuals are then exact to
float64 rounding, with O(N k) host work, where forming K in float64 on the host costs
N^2 memory (28.8 GB at N = 60,000) and N^2 exponentials every step."""
from __future__ import annotations

import numpy as np

from .blas import require
from ..methods.contract import KERNELS
from .float64 import Float64Matrix

#: the most loop iterations one invocation runs (columns x (features + right-hand sides)):
#: llvmpipe ends a shader loop past 65,535, nested loops counted together
TERMS = 65_535
#: the right-hand sides one dispatch carries (its accumulators are named registers)
MOST_COLUMNS = 16
#: the points one prediction pass takes (their K(T, X) Z rows in one buffer)
ROWS_AT_ONCE = 1 << 16


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
        """The M rows of the product for the points T (X's own where None), the columns j
        of X in chunks of at most TERMS loop iterations per invocation."""
        ctx = self.ctx
        Yb = Float64Matrix(ctx, M, k, "K Z")
        Tb = None if T is None else Float64Matrix(ctx, M, self.d, "the points to predict")
        try:
            buffers, defines = {0: self.X.buf, 1: Zb.buf, 2: Yb.buf}, {"KCOLS": k}
            if Tb is not None:
                Tb.put(ctx, T)
                buffers[3], defines["ROWS"] = Tb.buf, 1
            Yb.clear(ctx)
            step = max(1, TERMS // (self.d + k + 1))          # columns per dispatch
            for j0 in range(0, self.N, step):
                ctx.kernels.dispatch("kernel_product64", (-(-M // 64), 1, 1), buffers=buffers, defines=defines,
                                     uniforms=dict(self.uniforms, u_n=M, u_ldx=self.X.ld, u_ldz=Zb.ld, u_j0=j0,
                                                   u_j1=min(self.N, j0 + step)),
                                     work=M * min(step, self.N - j0))
            return Yb.get(ctx)
        finally:
            for b in (Yb, Tb):
                if b is not None:
                    b.give()

    def release(self) -> None:
        if self.X is not None:
            self.X.give()
            self.X = None
