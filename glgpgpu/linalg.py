"""scipy.linalg's signatures and conventions for what glgpgpu computes on the GPU.

    from glgpgpu import linalg
    c, low = linalg.cho_factor(A)              # like scipy.linalg.cho_factor
    x = linalg.cho_solve((c, low), b)

Conventions kept from scipy: `lower=False` by default (upper factors, upper triangular
solves), `trans` 0/1/2 or "N"/"T"/"C", `unit_diagonal`, `check_finite`, empty and
batched (n-D, looped over the leading axes) input, integer input computed in float64,
`qr`'s modes and return forms.  Precision is never lowered in silence: float32 in gives
float32 out; float64 in gives float64 out, and the solves (`cho_solve`,
`solve_triangular`, `solve`) are refined to float64 accuracy against the matrix given
(the 2008 paper's Algorithm 1: the GPU's float32 solve plus float64 residuals) --
`precision="single"` skips the refinement.  Factorizations (`cholesky`, `cho_factor`,
`qr`) are the GPU's float32 factors returned in the input's dtype: float32 accuracy,
backward error about 1e-7 relative.  Complex input raises ValueError (the kernels are
real); column pivoting (`pivoting=True`) raises NotImplementedError.
`overwrite_*` are accepted and ignored (nothing is overwritten).
"""
from __future__ import annotations

import warnings

import numpy as np

from . import api
from .solvers.lstsq import lstsq as _lstsq

REFINE_STEPS = 6


def _asarray(a, name: str, check_finite: bool) -> np.ndarray:
    arr = np.asarray(a)
    if np.iscomplexobj(arr):
        raise ValueError(f"{name} is complex; glgpgpu's kernels are real (use scipy.linalg for complex input)")
    if arr.dtype == object:
        arr = arr.astype(np.float64)
    if arr.dtype.kind in "biu":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind != "f":
        raise ValueError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if check_finite and arr.size and not np.isfinite(arr).all():
        raise ValueError(f"array must not contain infs or NaNs ({name})")
    return arr


def _out_dtype(*arrays) -> np.dtype:
    return np.result_type(np.float32, *[a.dtype for a in arrays])


def _batched(fn, a, *rest):
    """Apply fn to each matrix of an n-D array (leading axes looped) and stack."""
    if a.ndim == 2:
        return fn(a, *rest)
    outs = [_batched(fn, a[i], *[r[i] for r in rest]) for i in range(a.shape[0])]
    return _stack(outs) if outs else np.empty(a.shape, _out_dtype(a))


def _operands(a, b, name: str, check_finite: bool):
    """(a, b, the result's dtype) for a solve with the square (batch of) a: both checked,
    b's rows matching a's order."""
    a = _asarray(a, name, check_finite)
    b = _asarray(b, "b", check_finite)
    _square(a, name)
    if a.shape[-1] != b.shape[a.ndim - 2]:
        raise ValueError(f"incompatible dimensions: {name} {a.shape} and b {b.shape}")
    return a, b, _out_dtype(a, b)


def _square(a, name):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Expected a square matrix or batch of square matrices, got {name} of shape {a.shape}")


def cholesky(a, lower=False, overwrite_a=False, check_finite=True, *, method="auto", ctx=None):
    """The Cholesky factor of a symmetric positive definite matrix: upper U with U^T U = a
    (lower=False, scipy's default; the upper triangle of a is read) or lower L with
    L L^T = a (the lower triangle).  numpy.linalg.LinAlgError if not positive definite."""
    a = _asarray(a, "a", False)
    _square(a, "a")
    dt = _out_dtype(a)
    if a.shape[-1] == 0:
        return np.empty(a.shape, dt)

    def one(m):
        used = np.tril(m) if lower else np.triu(m).T        # only this triangle is read: NaN elsewhere is fine
        if check_finite and not np.isfinite(used).all():
            raise ValueError("array must not contain infs or NaNs (in the triangle of a that is read)")
        L = api.cholesky(used, method=method, ctx=ctx).astype(dt)
        return L if lower else np.ascontiguousarray(L.T)
    return _batched(one, a)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True, *, method="auto", ctx=None):
    """(c, lower) for cho_solve: c holds the factor in the chosen triangle (the other one
    zero, where scipy leaves the input's numbers)."""
    return cholesky(a, lower=lower, check_finite=check_finite, method=method, ctx=ctx), bool(lower)


def _refined(solve32, apply64, b, precision):
    """x with op(A) x = b: the GPU's float32 solve, then float64 corrections against
    apply64 (A's float64 product) until they stop shrinking."""
    x = solve32(b)
    if precision == "single" or b.dtype == np.float32:
        return x
    x = x.astype(np.float64)
    last = np.inf
    for _ in range(REFINE_STEPS):
        r = b - apply64(x)
        size = float(np.abs(r).max(initial=0.0))
        if size == 0.0 or size >= last:
            break
        last = size
        x = x + solve32(r).astype(np.float64)
    return x


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True, *, precision="refined", method="auto",
              ctx=None):
    """x with A x = b for A given by cho_factor's (c, lower): A = c^T c (lower=False) or
    c c^T (lower=True).  float64 b: refined to float64 accuracy against that A."""
    c, low = c_and_lower
    c, b, dt = _operands(c, b, "c", check_finite)
    if b.size == 0:
        return np.empty(b.shape, dt)

    def one(cm, bm):
        L = np.tril(cm) if low else np.triu(cm).T
        L64 = L.astype(np.float64)
        x = _refined(lambda r: api.cho_solve(L, r, method=method, ctx=ctx),
                     lambda x: L64 @ (L64.T @ x), bm.astype(dt), precision)
        return x.astype(dt)
    return _batched(one, c, b)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True, *,
                     precision="refined", method="auto", ctx=None):
    """x with op(a) x = b, a triangular (lower=False: its upper triangle, scipy's
    default); trans 0 / "N": a, 1 / "T" and 2 / "C": a^T; unit_diagonal: a's diagonal
    taken as ones.  float64 b: refined to float64 accuracy."""
    t = {0: False, 1: True, 2: True, "N": False, "T": True, "C": True}.get(trans)
    if t is None:
        raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', not {trans!r}")
    a, b, dt = _operands(a, b, "a", check_finite)
    if b.size == 0:
        return np.empty(b.shape, dt)

    def one(am, bm):
        T = np.tril(am) if lower else np.triu(am)
        if unit_diagonal:
            T = T.copy()
            np.fill_diagonal(T, 1.0)
        T64 = T.astype(np.float64)
        op64 = T64.T if t else T64
        x = _refined(lambda r: api.solve_triangular(T, r, lower=lower, trans=t, method=method, ctx=ctx),
                     lambda x: op64 @ x, bm.astype(dt), precision)
        return x.astype(dt)
    return _batched(one, a, b)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True, *, method="auto", ctx=None):
    """Householder QR on the GPU, scipy's forms: "full" (Q m x m, R m x n), "economic"
    (Q m x k, R k x n), "r" ((R,), R m x n), "raw" (((F, tau), R)) -- R's diagonal may be negative
    (LAPACK's signs)."""
    if pivoting:
        raise NotImplementedError("column pivoting is not done on the GPU; use scipy.linalg.qr(a, pivoting=True)")
    if mode not in ("full", "r", "economic", "raw"):
        raise ValueError(f"mode must be 'full', 'r', 'economic' or 'raw', not {mode!r}")
    a = _asarray(a, "a", check_finite)
    if a.ndim < 2:
        raise ValueError(f"expected a 2-D array or a batch of them, got shape {a.shape}")
    if a.ndim > 2:                     # a batch: each matrix in turn, the results stacked
        if a.shape[0] == 0:
            one = qr(np.zeros(a.shape[-2:], a.dtype), mode=mode, check_finite=False, method=method, ctx=ctx)
            return _stack([one], empty=True)
        return _stack([qr(a[i], mode=mode, check_finite=False, method=method, ctx=ctx) for i in range(a.shape[0])])
    dt = _out_dtype(a)
    m, n = a.shape
    k = min(m, n)
    if a.size == 0:
        R = np.empty((m if mode in ("full", "r") else k, n), dt)
        Q = np.eye(m, m if mode == "full" else k, dtype=dt)
        return {"r": (R,), "raw": ((np.empty((m, n), dt), np.empty(0, dt)), R)}.get(mode, (Q, R))
    if mode == "raw":
        F, tau = api.qr(a, mode="raw", method=method, ctx=ctx)
        return (F.astype(dt), tau.astype(dt)), np.triu(F[:k]).astype(dt)
    if mode == "r":                    # scipy's "r": the m x n R of the full form, as a 1-tuple
        F, _ = api.qr(a, mode="raw", method=method, ctx=ctx)
        return (np.triu(F).astype(dt),)
    Q, R = api.qr(a, mode=mode, method=method, ctx=ctx)
    return Q.astype(dt), R.astype(dt)


def _stack(results, empty=False):
    """Stack the like-shaped (nested tuple) results of a batch along a new first axis."""
    if isinstance(results[0], tuple):
        return tuple(_stack([r[k] for r in results], empty) for k in range(len(results[0])))
    out = np.stack(results)
    return out[:0] if empty else out


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False, overwrite_c=False, *,
                method="auto", ctx=None):
    """(Q c or c Q, R) for the economic QR of a without forming Q: mode "left" returns
    Q @ c (c has k = min(m, n) rows; given m rows, its first k are used, as scipy
    does), "right" c @ Q (c has m columns)."""
    if pivoting:
        raise NotImplementedError("column pivoting is not done on the GPU; use scipy.linalg.qr_multiply")
    if mode not in ("left", "right"):
        raise ValueError(f"mode must be 'left' or 'right', not {mode!r}")
    a = _asarray(a, "a", True)
    c = _asarray(c, "c", True)
    m, n = a.shape
    k = min(m, n)
    dt = _out_dtype(a, c)
    if a.size == 0:                             # Q is empty or the identity: c comes back as it is
        return c.astype(dt), np.empty((k, n), dt)
    one_d = c.ndim == 1
    C = c[:, None] if one_d and mode == "left" else (c[None, :] if one_d else c)
    if mode == "left" and C.shape[0] == m > k:
        C = C[:k]
    F, tau = api.qr(a, mode="raw", method=method, ctx=ctx)
    R = np.triu(F[:k]).astype(dt)
    if mode == "left":
        if C.shape[0] != k:
            raise ValueError(f"c must have {k} rows for mode='left', got {C.shape}")
        full = np.zeros((m, C.shape[1]), np.float32)
        full[:k] = C
        out = api.apply_q(F, tau, full, method=method, ctx=ctx)
    else:
        if C.shape[1] != m:
            raise ValueError(f"c must have {m} columns for mode='right', got {C.shape}")
        out = api.apply_q(F, tau, np.ascontiguousarray(C.T, np.float32), trans=True, method=method, ctx=ctx)[:k].T
    out = out.astype(dt)
    return (out.ravel() if one_d else out), R


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None, *,
          method="auto", ctx=None):
    """(x, residues, rank, s) as scipy's (m >= n): x from the GPU's QR refined to float64
    (glgpgpu.lstsq); for a rank-deficient a the minimum-norm x and the rank (computed
    on the host); s is None (no singular values are returned)."""
    a = _asarray(a, "a", check_finite)
    b = _asarray(b, "b", check_finite)
    m, n = a.shape
    cols = b[:, None] if b.ndim == 1 else b
    xs, res = [], []
    rank = n
    for j in range(cols.shape[1]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)      # the rank is returned, as scipy's
            x, info = _lstsq(a, cols[:, j], method=method, ctx=ctx)
        if info.status == "rank deficient":
            rank = info.rank
        elif not info.converged:
            raise np.linalg.LinAlgError(f"least squares did not converge ({info.status}): {info.message}")
        xs.append(x)
        res.append(float(np.sum((cols[:, j] - a @ x) ** 2)))
    X = np.column_stack(xs).astype(_out_dtype(a, b))
    residues = np.array(res) if m > n else np.empty(0)
    if rank < n:
        residues = np.empty(0)                                   # as scipy: none for a rank-deficient a
    return (X[:, 0] if b.ndim == 1 else X), (residues[:1] if b.ndim == 1 and residues.size else residues), rank, None


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
          transposed=False, *, method="auto", ctx=None):
    """x with a x = b: assume_a="pos" by the GPU's Cholesky (the lower or upper triangle
    as `lower` says) refined against a itself, otherwise by its QR (least squares of a
    square a, refined: glgpgpu.lstsq); float64 b: float64 accuracy."""
    a = _asarray(a, "a", check_finite)
    b = _asarray(b, "b", check_finite)
    _square(a, "a")
    if transposed:
        a = a.T
    if assume_a in ("pos", "positive definite"):
        c, low = cho_factor(a, lower=lower, method=method, ctx=ctx)
        L = c if low else np.ascontiguousarray(c.T)
        full = np.tril(a) + np.tril(a, -1).T if lower else np.triu(a) + np.triu(a, 1).T
        dt = _out_dtype(a, b)
        x = _refined(lambda r: api.cho_solve(L, r, method=method, ctx=ctx), lambda x: full @ x, b.astype(dt),
                     "refined")
        return x.astype(dt)
    if assume_a not in (None, "gen", "general", "sym", "symmetric"):
        raise ValueError(f"assume_a must be one of None, 'gen', 'sym', 'pos', not {assume_a!r}")
    return lstsq(a, b, method=method, ctx=ctx)[0]


__all__ = ["cho_factor", "cho_solve", "cholesky", "lstsq", "qr", "qr_multiply", "solve", "solve_triangular"]
