"""Level-1 and level-2 kernels on vectors held as n x 1 column textures
(Jung 2006, section 4.2): saxpy and its element-wise variants, multipass
reductions (sum / dot, max, min, infinity norm), the line-search kernels, and
matrix-vector products in the inner-product form.

Outputs must be textures other than the inputs (no texture is read and written
at once); `Vectors` hands out pooled scratch textures and the callers swap.
Only reductions come back to the host, as one float each.
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import engine


class Vectors:
    def __init__(self, ctx):
        self.ctx = engine(ctx)
        self.K = self.ctx.kernels
        self.pool = self.ctx.pool

    # -- storage ------------------------------------------------------------------
    def upload(self, arr, name="v"):
        a = np.ascontiguousarray(np.asarray(arr, np.float32).reshape(-1, 1))
        self.ctx.check_size(a.shape[0], 1, f"vector {name} (length {a.shape[0]})")
        t = self.pool.take(a.shape[0], 1)
        t.write(a)
        t.name = name
        return t

    def new(self, n, name="v"):
        t = self.pool.take(n, 1)
        t.name = name
        return t

    def read(self, t) -> np.ndarray:
        return t.read()[:, 0]

    def free(self, *ts):
        self.pool.give(*ts)

    def _rect(self, rows, cols=1):
        return self.ctx.geometry.cached_store(("rect", cols, rows), lambda: [geo.rectangle(0, 0, cols, rows)])[0]

    # -- element-wise (single pass) ------------------------------------------------
    def saxpy(self, out, alpha, x, y=None):
        """out = alpha * x + y   (y None: out = alpha * x)."""
        self.K.draw("saxpy", out, self._rect(out.rows), {"x": x, "y": y if y is not None else x},
                    {"u_alpha": float(alpha), "u_has_y": int(y is not None)})
        return out

    def mul(self, out, x, y):
        self.K.draw("vmul", out, self._rect(out.rows), {"x": x, "y": y})
        return out

    def div(self, out, x, y):
        self.K.draw("vdiv", out, self._rect(out.rows), {"x": x, "y": y})
        return out

    def transpose(self, out, x):
        """An n x 1 column into a 1 x n row (or back)."""
        self.K.draw("transpose", out, self._rect(out.rows, out.cols), {"S": x})
        return out

    # -- reductions (multipass, smaller rectangle each pass) -------------------------
    def reduce(self, op: str, x) -> float:
        """op in sum, max, min, absmax; x is n x 1."""
        kernel = f"reduce_{op}"
        n = x.rows
        src, owned = x, []
        while n > 1:
            m = (n + 3) // 4
            dst = self.pool.take(m, 1)
            self.K.draw(kernel, dst, self._rect(m), {"S": src}, {"u_len": n})
            owned.append(dst)
            src, n = dst, m
        if src is x:        # n == 1: apply the op once so absmax of one value is |v|
            dst = self.pool.take(1, 1)
            self.K.draw(kernel, dst, self._rect(1), {"S": src}, {"u_len": 1})
            owned.append(dst)
            src = dst
        value = float(src.read_region(0, 0, 1, 1)[0, 0])
        self.free(*owned)
        return value

    def dot(self, x, y) -> float:
        t = self.pool.take(x.rows, 1)
        self.mul(t, x, y)
        v = self.reduce("sum", t)
        self.free(t)
        return v

    def norm_inf(self, x) -> float:
        return self.reduce("absmax", x)

    def max_step(self, x, dx, *, with_index: bool = False):
        """Largest alpha in [0, 1] with x + alpha dx >= 0 (ratio kernel + min reduction).
        with_index: also the blocking element (None if nothing blocks before 1)."""
        r = self.pool.take(x.rows, 1)
        self.K.draw("step_ratio", r, self._rect(x.rows), {"x": x, "dx": dx})
        amax = self.reduce("min", r)
        alpha = min(1.0, amax)
        idx = None
        if with_index and amax <= 1.0:
            t = self.pool.take(x.rows, 1)
            self.K.draw("blocking_index", t, self._rect(x.rows), {"ratio": r}, {"u_alpha": float(amax)})
            idx = int(self.reduce("min", t))
            self.free(t)
        self.free(r)
        return (alpha, idx) if with_index else alpha

    def element(self, x, i: int) -> float:
        return float(x.read_region(0, i, 1, 1)[0, 0])

    # -- level 2 -------------------------------------------------------------------------
    def matvec(self, out, A, x):
        """out (m x 1) = A (m x n texture) x (n x 1)."""
        self.K.draw("matvec", out, self._rect(out.rows), {"A": A, "x": x}, {"u_n": A.cols})
        return out

    def symv_lower(self, out, L, x, *, packed: bool = False):
        """out (m x 1) = S x for symmetric S stored as its lower triangle L (full or packed)."""
        m = out.rows
        self.K.draw("symv_lower", out, self._rect(m), {"L": L, "x": x}, {"u_m": m, "u_packed": int(packed)})
        return out

    def matvec_t(self, out, A, y):
        """out (n x 1) = A^T y (y m x 1)."""
        self.K.draw("matvec_t", out, self._rect(out.rows), {"A": A, "x": y}, {"u_m": A.rows})
        return out
