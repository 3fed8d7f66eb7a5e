"""Where the interior-point method's vectors live: in GPU textures (the paper's
design) or in numpy arrays (a float64 or float32 reference for tests and
comparison).  Both offer the same named-slot operations, so `ipm.py` is one
algorithm.  Slot names are strings; `out` may name one of the inputs."""
from __future__ import annotations

import numpy as np

from ....dispatch import choose, implementation
from ....gl import MatrixTexture, resolve
from ....vectors import Vectors


class NumpyBackend:
    """The same operations in numpy; dtype float64 or float32."""

    name = "numpy"

    def __init__(self, A, dtype=np.float64, cholesky="outer", packed=False):
        self.dt = np.dtype(dtype)
        self.A = np.asarray(A, self.dt)
        self.m, self.n = self.A.shape
        self.v = {}
        self.L = None

    def put(self, name, arr):
        self.v[name] = np.asarray(arr, self.dt).copy()

    def get(self, name):
        return self.v[name].astype(np.float64)

    def axpy(self, out, alpha, x, y=None):
        r = self.dt.type(alpha) * self.v[x]
        self.v[out] = r + self.v[y] if y is not None else r

    def mul(self, out, x, y):
        self.v[out] = self.v[x] * self.v[y]

    def div(self, out, x, y):
        self.v[out] = self.v[x] / self.v[y]

    def scaling(self, out, x, s, lo, hi):
        self.v[out] = np.clip(self.v[x] / self.v[s], lo, hi).astype(self.dt)

    def dot(self, x, y):
        return float(self.v[x] @ self.v[y])

    def norm_inf(self, x):
        return float(np.abs(self.v[x]).max())

    def vmin(self, x):
        return float(self.v[x].min())

    def vsum(self, x):
        return float(self.v[x].sum())

    def max_step(self, x, dx):
        xv, d = self.v[x], self.v[dx]
        neg = d < 0
        if not neg.any():
            return 1.0, None
        ratio = np.where(neg, -xv / np.where(neg, d, 1), np.inf)
        i = int(np.argmin(ratio))
        return (1.0, None) if ratio[i] > 1 else (float(ratio[i]), i)

    def element(self, x, i):
        return float(self.v[x][i])

    def Ax(self, out, x):
        self.v[out] = self.A @ self.v[x]

    def Aty(self, out, y):
        self.v[out] = self.A.T @ self.v[y]

    def factor(self, d2, pivot_rel):
        C = (self.A * self.v[d2]) @ self.A.T
        self.L, dropped = _chol_floor(C, pivot_rel * max(np.diag(C).max(), 1e-300))
        return dropped

    def solve(self, out, r):
        import scipy.linalg as sla

        y = sla.solve_triangular(self.L, self.v[r], lower=True)
        self.v[out] = sla.solve_triangular(self.L, y, lower=True, trans=1).astype(self.dt)

    def release(self):
        self.v.clear()


def _chol_floor(C, floor):
    """Right-looking Cholesky with the tiny-pivot rule of sqrt_floor.frag."""
    L = np.tril(C).copy()
    m = L.shape[0]
    dropped = 0
    for k in range(m):
        p = L[k, k]
        if p > floor:
            L[k, k] = np.sqrt(p)
        else:
            L[k, k] = 1e30
            dropped += 1
        L[k + 1:, k] /= L[k, k]
        L[k + 1:, k + 1:] -= np.tril(np.outer(L[k + 1:, k], L[k + 1:, k]))
    return L, dropped


class GPUBackend:
    """Vectors in n x 1 textures, A in an m x n texture, the normal equations
    formed (Algorithm 3) and factored (Algorithm 5 or the inner-product form) on
    the GPU; only reductions and single elements come back."""

    name = "gpu"

    def __init__(self, A, ctx=None, cholesky="outer", packed=False, method="auto"):
        self.ctx = resolve(ctx)
        self.method = choose(method, self.ctx, packed=packed, variant=cholesky)
        self.V = Vectors(self.ctx)
        self.m, self.n = A.shape
        self.ctx.check_size(self.m, self.n, f"the constraint matrix A ({self.m} x {self.n})")
        A32 = np.asarray(A, np.float32)
        self.v = {}
        self.normal = None
        self.A = MatrixTexture(self.ctx, self.m, self.n, A32, what="A")
        self.A.name = "A"
        # every texture the solver takes is given back by release(), also after a failure
        self._scope = self.ctx.pool.scope()
        self._scope.__enter__()
        try:
            # the normal equations A X S^-1 A^T, formed, factored and solved where the vectors live
            self.normal = implementation(self.method).resident_normal(self.V, self.A, A32, packed=packed,
                                                                     variant=cholesky)
        except BaseException as exc:
            self.release(exc)
            raise

    def put(self, name, arr):
        old = self.v.get(name)
        self.v[name] = self.V.upload(arr, name)
        if old is not None:
            self.V.free(old)

    def get(self, name):
        return self.V.read(self.v[name]).astype(np.float64)

    def _out(self, out, size, *inputs):
        cur = self.v.get(out)
        ins = [self.v[i] for i in inputs if i is not None]
        if cur is not None and all(cur is not t for t in ins):
            return cur, None
        return self.V.new(size, out), cur

    def _store(self, out, t, old):
        self.v[out] = t
        if old is not None:
            self.V.free(old)

    def axpy(self, out, alpha, x, y=None):
        t, old = self._out(out, self.v[x].rows, x, y)
        self.V.saxpy(t, alpha, self.v[x], self.v[y] if y is not None else None)
        self._store(out, t, old)

    def mul(self, out, x, y):
        t, old = self._out(out, self.v[x].rows, x, y)
        self.V.mul(t, self.v[x], self.v[y])
        self._store(out, t, old)

    def div(self, out, x, y):
        t, old = self._out(out, self.v[x].rows, x, y)
        self.V.div(t, self.v[x], self.v[y])
        self._store(out, t, old)

    def scaling(self, out, x, s, lo, hi):
        t, old = self._out(out, self.n, x, s)
        self.V.K.draw("ipm_scaling", t, self.V._rect(self.n), {"x": self.v[x], "s": self.v[s]},
                      {"u_lo": float(lo), "u_hi": float(hi)})
        self._store(out, t, old)

    def dot(self, x, y):
        return self.V.dot(self.v[x], self.v[y])

    def norm_inf(self, x):
        return self.V.norm_inf(self.v[x])

    def vmin(self, x):
        return self.V.reduce("min", self.v[x])

    def vsum(self, x):
        return self.V.reduce("sum", self.v[x])

    def max_step(self, x, dx):
        return self.V.max_step(self.v[x], self.v[dx], with_index=True)

    def element(self, x, i):
        return self.V.element(self.v[x], i)

    def Ax(self, out, x):
        t, old = self._out(out, self.m, x)
        self.V.matvec(t, self.A, self.v[x])
        self._store(out, t, old)

    def Aty(self, out, y):
        t, old = self._out(out, self.n, y)
        self.V.matvec_t(t, self.A, self.v[y])
        self._store(out, t, old)

    def factor(self, d2, pivot_rel):
        self.normal.factor(self.v[d2], pivot_rel)
        return 0

    def solve(self, out, r):
        t = self.normal.solve(self.v[r])
        old = self.v.get(out)
        self.v[out] = t
        if old is not None and old is not t:
            self.V.free(old)

    def release(self, exc: BaseException | None = None):
        for t in self.v.values():
            self.V.free(t)
        self.v.clear()
        if self.normal is not None:
            self.normal.release()
        self.A.release()
        # an exception anywhere in the solve: give back whatever is still out
        self._scope.__exit__(type(exc) if exc else RuntimeError, exc, None)
