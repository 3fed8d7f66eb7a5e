"""Where the interior-point method's vectors live: in GPU textures (the paper's
design) or in numpy arrays (a float64 or float32 reference for tests and
comparison).  Both offer the same named-slot operations, so `ipm.py` is one
algorithm.  Slot names are strings; `out` may name one of the inputs."""
from __future__ import annotations

import numpy as np


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
        from .. import blocked
        from ..context import resolve
        from ..textures import MatrixTexture
        from ..vectors import Vectors

        self.ctx = resolve(ctx)
        self.method = blocked.choose(method, self.ctx, packed=packed, variant=cholesky)
        self.V = Vectors(self.ctx)
        self.m, self.n = A.shape
        self.ctx.check_size(self.m, self.n, f"the constraint matrix A ({self.m} x {self.n})")
        self.A = MatrixTexture(self.ctx, self.m, self.n, np.asarray(A, np.float32), what="A")
        self.A.name = "A"
        self.variant, self.packed = cholesky, packed
        self.v = {}
        self.L = None
        self.A4 = None
        if self.method == "blocked":
            self.n4 = -(-self.n // 4) * 4
            self.mp = blocked.padded(self.m)
            self.A4 = blocked.upload(self.ctx, np.asarray(A, np.float32), self.m, self.n4, "A")

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

    def _factor_blocked(self, d2, pivot_rel):
        from .. import blocked
        from ..geometry import rectangle

        K = self.ctx.kernels
        drow = K.pool.take(1, self.n4 // 4, components=4)
        K.draw("pack4", drow, rectangle(0, 0, self.n4 // 4, 1), {"S": self.v[d2]}, {"u_len": self.n})
        c_tex = blocked.adat_texture(self.A4, drow, self.m, mp=self.mp, ctx=self.ctx)
        K.pool.give(drow)
        dg = K.pool.take(1, self.m)
        K.draw("blocked_diagonal", dg, rectangle(0, 0, self.m, 1), {"L": c_tex}, {"u_m": self.m})
        col = K.pool.take(self.m, 1)
        self.V.transpose(col, dg)
        cmax = self.V.reduce("max", col)
        K.pool.give(dg, col)
        self.L = blocked.factor_texture(c_tex, self.m, pivot_floor=pivot_rel * max(cmax, 1e-30), ctx=self.ctx)
        return 0

    def factor(self, d2, pivot_rel):
        from ..assemble import assemble_resident
        from ..cholesky import factor_texture
        from ..geometry import rectangle

        K = self.ctx.kernels
        if self.L is not None:
            K.pool.give(self.L)
            self.L = None
        if self.method == "blocked":
            return self._factor_blocked(d2, pivot_rel)
        row = K.pool.take(1, self.n)
        self.V.transpose(row, self.v[d2])
        c_tex = assemble_resident(self.A, row, packed=self.packed, ctx=self.ctx)
        K.pool.give(row)
        diag = K.pool.take(self.m, 1)
        # the diagonal of C, for a pivot floor relative to its largest entry
        drow = K.pool.take(1, self.m)
        K.draw("diagonal", drow, rectangle(0, 0, self.m, 1), {"L": c_tex},
               {"u_m": self.m, "u_packed": int(self.packed)})
        self.V.transpose(diag, drow)
        cmax = self.V.reduce("max", diag)
        K.pool.give(drow, diag)
        self.L = factor_texture(c_tex, self.m, packed=self.packed, variant=self.variant, ctx=self.ctx,
                                pivot_floor=pivot_rel * max(cmax, 1e-30))
        return 0

    def solve(self, out, r):
        from ..triangular import substitute_texture

        K = self.ctx.kernels
        if self.method == "blocked":
            from .. import blocked

            t = self.V.new(self.mp, "rhs")
            t.clear(0.0)
            K.draw("copy", t, self.V._rect(self.m), {"S": self.v[r]})
            for backward in (False, True):
                t = blocked.substitute_texture(self.L, self.m, t, backward=backward, ctx=self.ctx)
            res = self.V.new(self.m, out)
            K.draw("copy", res, self.V._rect(self.m), {"S": t})
            self.V.free(t)
            t = res
        else:
            t = self.V.new(self.m, "rhs")
            K.draw("copy", t, self.V._rect(self.m), {"S": self.v[r]})
            t = substitute_texture(self.L, self.m, t, packed=self.packed, backward=False, ctx=self.ctx)
            t = substitute_texture(self.L, self.m, t, packed=self.packed, backward=True, ctx=self.ctx)
        old = self.v.get(out)
        self.v[out] = t
        if old is not None and old is not t:
            self.V.free(old)

    def release(self):
        for t in self.v.values():
            self.V.free(t)
        self.v.clear()
        if self.L is not None:
            self.ctx.kernels.pool.give(self.L)
            self.L = None
        if self.A4 is not None:
            self.ctx.kernels.pool.give(self.A4)
        self.A.release()
