"""scipy.linalg's signatures and conventions for what glgpgpu computes on the GPU.

    from glgpgpu import linalg
    c, low = linalg.cho_factor(A)              # like scipy.linalg.cho_factor
    x = linalg.cho_solve((c, low), b)

Precision: the input's dtype and its accuracy.  float32 in, float32 out: the
factorizations (`cholesky`, `cho_factor`, `qr`, `qr_multiply`) run the float32 kernels
of `method` ("paper", "blocked", "compute"; the papers' own API, glgpgpu.cholesky and
friends, is float32 throughout).  float64 (or integer) in, float64 out with float64
accuracy: the factorizations run the compute method's Cholesky and Householder QR
kernels in double on the GPU (GLSL's double: textures have no float64 format, so `method`
does not apply), the host's LAPACK where the driver has no compute shaders (with a
warning).  `solve` and `lstsq` factor in float64 whatever the input (one factorization
for all right-hand sides) and return the input's dtype.  The O(n^2) triangular solves
against a matrix the caller holds (`cho_solve`, `solve_triangular` in float64) run where
that matrix is, on the host's LAPACK: its upload alone would cost more.

Conventions kept from scipy: `lower=False` by default (upper factors, upper triangular
solves), `trans` 0/1/2 or "N"/"T"/"C", `unit_diagonal`, `check_finite`, `assume_a`
(the chosen triangle only, for "sym" and "pos"), empty input, batched input (leading
axes of a and b broadcast; a 1-D b is one vector for every matrix), integer input
computed in float64, `qr`'s modes and return forms, `lstsq`'s `cond` and the shapes of
`residues` and `rank` (`s` is None, as scipy's QR-based driver gelsy returns it).  A
singular system raises numpy.linalg.LinAlgError ("singular matrix"); an ill-conditioned
one warns scipy's LinAlgWarning.  Complex input raises ValueError (the kernels are
real); column pivoting (`pivoting=True`) raises NotImplementedError.  `overwrite_*`
are accepted and ignored (nothing is overwritten).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as _sla
import scipy.linalg.lapack as _lapack

from . import api
from .solvers.normal_equations import refined_normal_solve, warn_ill as _warn_ill

REFINE_STEPS = 6
_EPS = np.finfo(np.float64).eps


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
    elif arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)           # float16, longdouble: computed in float64
    if arr.ndim > 2:        # a batch: its results are arrays as large as it (a broadcast input's too)
        api.require_host(2 * arr.size * max(arr.itemsize, 4), f"{name} of shape {arr.shape}")
    # a broadcast input (stride 0) is checked on the data it repeats, not through a mask of its full size
    distinct = arr[tuple(slice(0, 1) if st == 0 else slice(None) for st in arr.strides)] if arr.ndim else arr
    if check_finite and arr.size and not np.isfinite(distinct).all():
        raise ValueError(f"array must not contain infs or NaNs ({name})")
    return arr


def _out_dtype(*arrays) -> np.dtype:
    return np.result_type(np.float32, *[a.dtype for a in arrays])


def _single(dt) -> bool:
    return np.dtype(dt) == np.float32


def _square(a, name):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Expected a square matrix or batch of square matrices, got {name} of shape {a.shape}")


def _each(fn, a, out_dtype=None):
    """fn on each matrix of an n-D a (leading axes looped), the results stacked."""
    if a.ndim == 2:
        return fn(a)
    batch = a.shape[:-2]
    outs = [fn(a[i]) for i in np.ndindex(batch)]
    if not outs:
        return np.empty(a.shape, out_dtype or _out_dtype(a))
    return np.stack(outs).reshape(batch + outs[0].shape)


def _pairs(fn, a, b, name: str):
    """fn(a_i, b_i) over the batch, scipy's rule: a 1-D b is one vector (for every matrix of
    a), else b's last two axes are (n, k); the leading axes of a and b broadcast."""
    n = a.shape[-1]
    vector = b.ndim == 1
    core = b.shape[-1:] if vector else b.shape[-2:]
    if core[0] != n:
        raise ValueError(f"incompatible dimensions: {name} {a.shape} and b {b.shape} "
                         f"(b must have {n} rows)")
    try:
        batch = np.broadcast_shapes(a.shape[:-2], () if vector else b.shape[:-2])
    except ValueError:
        raise ValueError(f"the batch dimensions of {name} {a.shape} and b {b.shape} do not broadcast") from None
    if not batch:
        return fn(a, b)
    if not int(np.prod(batch)):                          # an empty batch: nothing to solve
        return np.empty(batch + (n,) + core[1:], _out_dtype(a, b))
    A = np.broadcast_to(a, batch + a.shape[-2:])
    B = np.broadcast_to(b, batch + core)
    outs = [fn(A[i], B[i]) for i in np.ndindex(batch)]
    return np.stack(outs).reshape(batch + outs[0].shape)


def _empty_solution(a, b, dt) -> np.ndarray:
    """The solution of a x = b where there is nothing to solve: the batch of a and b broadcast,
    b's core shape (a 1-D b is one vector)."""
    core = b.shape[-1:] if b.ndim == 1 else b.shape[-2:]
    return np.empty(np.broadcast_shapes(a.shape[:-2], () if b.ndim == 1 else b.shape[:-2]) + core, dt)


def _stack(results, empty=False):
    """Stack the like-shaped (nested tuple) results of a batch along a new first axis."""
    if isinstance(results[0], tuple):
        return tuple(_stack([r[k] for r in results], empty) for k in range(len(results[0])))
    out = np.stack(results)
    return out[:0] if empty else out


# -- Cholesky ---------------------------------------------------------------------------

def cholesky(a, lower=False, overwrite_a=False, check_finite=True, *, method="auto", ctx=None):
    """The Cholesky factor of a symmetric positive definite matrix: upper U with U^T U = a
    (lower=False, scipy's default; the upper triangle of a is read) or lower L with
    L L^T = a (the lower triangle).  float32: `method`'s kernels; float64: the kernels in
    double on the GPU.  numpy.linalg.LinAlgError if not positive definite."""
    a = _asarray(a, "a", False)
    _square(a, "a")
    dt = _out_dtype(a)
    if a.shape[-1] == 0 or a.size == 0:
        return np.empty(a.shape, dt)

    def one(m):
        if check_finite and not np.isfinite(m).all():      # only the triangle read must be finite
            if not np.isfinite(np.tril(m) if lower else np.triu(m)).all():
                raise ValueError("array must not contain infs or NaNs (in the triangle of a that is read)")
        if not _single(dt):
            return api.cholesky64(m, lower=bool(lower), ctx=ctx)
        used = np.tril(m) if lower else np.triu(m).T
        L = api.cholesky(used, method=method, ctx=ctx)
        return L if lower else np.ascontiguousarray(L.T)
    return _each(one, a, dt)


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
    c c^T (lower=True).  float32: the GPU's substitutions; float64: float64 substitutions
    against c (LAPACK's potrs, where c is).  precision="single": the GPU's float32
    substitutions for float64 too (no refinement)."""
    c, low = c_and_lower
    c = _asarray(c, "c", check_finite)
    b = _asarray(b, "b", check_finite)
    _square(c, "c")
    dt = _out_dtype(c, b)
    if b.size == 0 or c.shape[-1] == 0:
        return _empty_solution(c, b, dt)

    def one(cm, bm):
        if _single(dt) or precision == "single":
            L = np.tril(cm) if low else np.triu(cm).T
            L64 = L.astype(np.float64)
            x = _refined(lambda r: api.cho_solve(L, r, method=method, ctx=ctx),
                         lambda x: L64 @ (L64.T @ x), bm.astype(dt), precision)
            return x.astype(dt)
        # LAPACK's potrs reads only the factor's triangle; c's bytes in Fortran order are c^T,
        # whose other triangle holds the same factor: no copy
        return _sla.cho_solve((np.asarray(cm, np.float64).T, not low), np.asarray(bm, np.float64),
                              check_finite=False)
    return _pairs(one, c, b, "c")


# -- triangular solves --------------------------------------------------------------------

def _singular_diagonal(T: np.ndarray, unit: bool) -> None:
    if unit:
        return
    d = np.diagonal(T)
    bad = np.flatnonzero(d == 0)
    if bad.size:
        raise np.linalg.LinAlgError(f"singular matrix: resolution failed at diagonal {int(bad[0])}")


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True, *,
                     precision="refined", method="auto", ctx=None):
    """x with op(a) x = b, a triangular (lower=False: its upper triangle, scipy's
    default); trans 0 / "N": a, 1 / "T" and 2 / "C": a^T; unit_diagonal: a's diagonal
    taken as ones.  float32: the GPU's substitution; float64: LAPACK's trtrs against a,
    where a is.  LinAlgError for a zero on the diagonal."""
    t = {0: False, 1: True, 2: True, "N": False, "T": True, "C": True}.get(trans)
    if t is None:
        raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', not {trans!r}")
    a = _asarray(a, "a", check_finite)
    b = _asarray(b, "b", check_finite)
    _square(a, "a")
    dt = _out_dtype(a, b)
    if b.size == 0 or a.shape[-1] == 0:
        return _empty_solution(a, b, dt)

    def one(am, bm):
        if not (_single(dt) or precision == "single"):      # LAPACK's trtrs reads the triangle only
            _singular_diagonal(am, unit_diagonal)
            return _sla.solve_triangular(np.asarray(am, np.float64), np.asarray(bm, np.float64), trans=int(t),
                                         lower=lower, unit_diagonal=unit_diagonal, check_finite=False)
        T = np.tril(am) if lower else np.triu(am)
        if unit_diagonal:
            T = T.copy()
            np.fill_diagonal(T, 1.0)
        _singular_diagonal(T, False)
        if _single(dt) or precision == "single":
            T64 = T.astype(np.float64)
            op64 = T64.T if t else T64
            x = _refined(lambda r: api.solve_triangular(T.astype(np.float32), r, lower=lower, trans=t,
                                                        method=method, ctx=ctx),
                         lambda x: op64 @ x, bm.astype(dt), precision)
            return x.astype(dt)
    return _pairs(one, a, b, "a")


# -- QR -----------------------------------------------------------------------------------

def _qr_raw(a: np.ndarray, method, ctx):
    """(F, tau) in the dtype's precision: float32 kernels of `method`, or in double."""
    if _single(a.dtype):
        return api.qr(a, mode="raw", method=method, ctx=ctx)
    return api.qr_raw64(a, ctx=ctx)


def _apply_q(F, tau, C, trans, dt, method, ctx):
    if _single(dt):
        return api.apply_q(F, tau, np.asarray(C, np.float32), trans=trans, method=method, ctx=ctx)
    return api.apply_q64(F, tau, C, trans=trans, ctx=ctx)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True, *, method="auto", ctx=None):
    """Householder QR on the GPU, scipy's forms: "full" (Q m x m, R m x n), "economic"
    (Q m x k, R k x n), "r" ((R,), R m x n), "raw" (((F, tau), R)) -- R's diagonal may be negative
    (LAPACK's signs).  float64 in: the kernels in double, float64 accuracy."""
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
    a = a.astype(dt, copy=False)
    m, n = a.shape
    k = min(m, n)
    if a.size == 0:
        R = np.empty((m if mode in ("full", "r") else k, n), dt)
        Q = np.eye(m, m if mode == "full" else k, dtype=dt)
        return {"r": (R,), "raw": ((np.empty((m, n), dt), np.empty(0, dt)), R)}.get(mode, (Q, R))
    if mode in ("economic", "full") and not _single(dt):     # Q formed while the reflectors are on the GPU
        F, tau, Q = api.qr_raw64(a, rhs=np.eye(m, m if mode == "full" else k), ctx=ctx)
        return Q, np.triu(F if mode == "full" else F[:k])
    F, tau = _qr_raw(a, method, ctx)
    if mode == "raw":
        return (F.astype(dt), tau.astype(dt)), np.triu(F[:k]).astype(dt)
    if mode == "r":                    # scipy's "r": the m x n R of the full form, as a 1-tuple
        return (np.triu(F).astype(dt),)
    R = np.triu(F if mode == "full" else F[:k]).astype(dt)
    Q = _apply_q(F, tau, np.eye(m, m if mode == "full" else k, dtype=dt), False, dt, method, ctx)
    return Q.astype(dt), R


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False, overwrite_c=False, *,
                method="auto", ctx=None):
    """(Q c or c Q, R) for the economic QR of a without forming Q: mode "left" returns
    Q @ c (c has k = min(m, n) rows; given m rows, its first k are used, as scipy
    does), "right" c @ Q (c has m columns).  A batch of a (and of c) is looped."""
    if pivoting:
        raise NotImplementedError("column pivoting is not done on the GPU; use scipy.linalg.qr_multiply")
    if mode not in ("left", "right"):
        raise ValueError(f"mode must be 'left' or 'right', not {mode!r}")
    a = _asarray(a, "a", True)
    c = _asarray(c, "c", True)
    if a.ndim > 2 or c.ndim > 2:        # c's core: a vector (1-D) or a matrix; the batch dims broadcast
        core = 1 if c.ndim == 1 else 2
        batch = np.broadcast_shapes(a.shape[:-2], c.shape[:c.ndim - core])
        A = np.broadcast_to(a, batch + a.shape[-2:])
        Cb = np.broadcast_to(c, batch + c.shape[c.ndim - core:])
        outs = [qr_multiply(A[i], Cb[i], mode=mode, method=method, ctx=ctx) for i in np.ndindex(batch)]
        return tuple(np.stack([o[k] for o in outs]).reshape(batch + outs[0][k].shape) for k in range(2))
    m, n = a.shape
    k = min(m, n)
    dt = _out_dtype(a, c)
    if a.size == 0:                             # Q is empty or the identity: c comes back as it is
        return c.astype(dt), np.empty((k, n), dt)
    one_d = c.ndim == 1
    C = c[:, None] if one_d and mode == "left" else (c[None, :] if one_d else c)
    if mode == "left" and C.shape[0] == m > k:
        C = C[:k]
    F, tau = _qr_raw(a.astype(dt, copy=False), method, ctx)
    R = np.triu(F[:k]).astype(dt)
    if mode == "left":
        if C.shape[0] != k:
            raise ValueError(f"c must have {k} rows for mode='left', got {C.shape}")
        full = np.zeros((m, C.shape[1]), dt)
        full[:k] = C
        out = _apply_q(F, tau, full, False, dt, method, ctx)
    else:
        if C.shape[1] != m:
            raise ValueError(f"c must have {m} columns for mode='right', got {C.shape}")
        out = _apply_q(F, tau, np.ascontiguousarray(C.T, dt), True, dt, method, ctx)[:k].T
    out = out.astype(dt)
    return (out.ravel() if one_d else out), R


# -- least squares and general solves: one float64 factorization for every right-hand side

def _rank_cut(R: np.ndarray, cond, m: int, n: int) -> float:
    d = np.abs(np.diagonal(R))
    tol = cond if cond is not None and cond > 0 else _EPS * max(m, n)
    return float(d.max(initial=0.0)) * tol


def _lstsq_one(A: np.ndarray, B: np.ndarray, cond, ctx):
    """(X, residues, rank) of min ||A X - B|| for a float64 A (m, n) and B (m, p): the QR of
    A (m >= n) or of A^T (m < n, the minimum-norm X) in double on the GPU; where R has a
    diagonal entry under cond (or eps max(m, n)) times its largest, A counts as rank
    deficient and LAPACK's gelsy (QR with column pivoting) gives the minimum-norm X and rank."""
    m, n = A.shape
    k = min(m, n)
    tall = m >= n
    if tall:                                    # Q^T B from the same pass as the factor
        F, tau, QtB = api.qr_raw64(A, rhs=B, trans=True, ctx=ctx)
    else:
        F, tau = api.qr_raw64(np.ascontiguousarray(A.T), ctx=ctx)
    R = np.triu(F[:k, :k])
    d = np.abs(np.diagonal(R))
    if k == 0 or d.min() <= _rank_cut(R, cond, m, n):
        X, res, rank, _ = _sla.lstsq(A, B, cond=cond, lapack_driver="gelsy", check_finite=False)
        return X, np.empty(0), int(rank)
    if tall:
        X = _sla.solve_triangular(R, QtB[:n], lower=False, check_finite=False)
        res = np.sum(QtB[n:] ** 2, axis=0) if m > n else np.empty(0)
        return X, res, n
    Y = _sla.solve_triangular(R, B, trans=1, lower=False, check_finite=False)     # R^T Y = B
    full = np.zeros((n, B.shape[1]))
    full[:m] = Y
    return api.apply_q64(F, tau, full, trans=False, ctx=ctx), np.empty(0), m


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None, *,
          method="auto", ctx=None):
    """(x, residues, rank, s) as scipy's: x minimises ||b - a x|| (the minimum-norm one
    where a is wide or rank deficient), from one float64 QR of a on the GPU for all of b's
    columns; residues: the squared residual norms where a is tall and of full rank (empty
    otherwise; a 1-D b gives a 0-d one, as scipy); rank: a's effective rank with `cond`
    the cutoff relative to the largest (default eps max(m, n)); s: None, as scipy's
    QR-based driver (gelsy) returns it.  A batch of a (..., m, n) loops."""
    if lapack_driver not in (None, "gelsd", "gelsy", "gelss"):
        raise ValueError(f"lapack_driver must be None, 'gelsd', 'gelsy' or 'gelss', not {lapack_driver!r}")
    a = _asarray(a, "a", check_finite)
    b = _asarray(b, "b", check_finite)
    if a.ndim < 2:
        raise ValueError(f"a must be at least 2-D, got shape {a.shape}")
    m, n = a.shape[-2:]
    vector = b.ndim == 1
    if b.shape[-1 if vector else -2] != m:
        raise ValueError(f"Shape mismatch: a and b should have the same number of rows ({m} != "
                         f"{b.shape[-1 if vector else -2]}).")
    dt = _out_dtype(a, b)

    def one(am, bm):
        B = (bm[:, None] if vector else bm).astype(np.float64)
        if am.size == 0 or B.size == 0:
            X = np.zeros((n, B.shape[1]))
            res = np.sum(B ** 2, axis=0) if m > n == 0 else np.empty(0)
            return X, res, 0
        return _lstsq_one(am.astype(np.float64), B, cond, ctx)
    batch = np.broadcast_shapes(a.shape[:-2], () if vector else b.shape[:-2])
    A = np.broadcast_to(a, batch + (m, n))
    B = np.broadcast_to(b, batch + ((m,) if vector else b.shape[-2:]))
    xs, rs, ranks = [], [], []
    for i in np.ndindex(batch):
        X, res, rank = one(A[i], B[i])
        xs.append(X[:, 0] if vector else X)
        rs.append(res)
        ranks.append(rank)
    x = np.stack(xs).reshape(batch + xs[0].shape).astype(dt)
    if any(r.size == 0 for r in rs):
        res = np.empty(batch + (0,), dt)
    else:
        res = np.stack(rs).reshape(batch + rs[0].shape).astype(dt)
        if vector:
            res = res[..., 0]
    rank = np.array(ranks).reshape(batch) if batch else ranks[0]
    return x, res, rank, None


def _trcon(T: np.ndarray, lower: bool = False, norm: str = "1") -> float:
    """The reciprocal condition number of a triangular T in the 1-norm (norm="I": the
    infinity norm, so a C-ordered R passed as its Fortran-ordered R^T costs no copy),
    estimated: LAPACK's trcon where the installed scipy wraps it (1.12 on), else Hager's
    estimator (onenormest) on T^-1 by triangular solves -- O(n^2) either way."""
    uplo = "L" if lower else "U"
    trcon = getattr(_lapack, "strcon" if T.dtype == np.float32 else "dtrcon", None)
    if trcon is not None:
        return float(trcon(T, norm=norm, uplo=uplo)[0])
    if norm == "I":                                    # ||T||_inf = ||T^T||_1
        T, lower = T.T, not lower
    from scipy.sparse.linalg import LinearOperator, onenormest
    n = T.shape[0]
    if n == 0:
        return 1.0
    Tt = np.tril(T) if lower else np.triu(T)
    if not np.all(np.diagonal(Tt)):
        return 0.0
    inv = LinearOperator((n, n), dtype=np.float64,
                         matvec=lambda x: _sla.solve_triangular(Tt, x, lower=lower, check_finite=False),
                         rmatvec=lambda x: _sla.solve_triangular(Tt, x, lower=lower, trans=1, check_finite=False))
    return float(1.0 / (np.abs(Tt).sum(axis=0).max() * onenormest(inv)))


_BAND = 1024          # rows a band: the host's passes over one triangle keep their temporaries small


def _sym_norm(A: np.ndarray, lower: bool) -> float:
    """||S||_1 (= ||S||_inf) of the symmetric S whose `lower` (or upper) triangle is A's,
    reading that triangle once by bands of rows (LAPACK's dlansy)."""
    T = A if lower else A.T
    n = A.shape[0]
    sums = np.zeros(n)
    for r0 in range(0, n, _BAND):
        r1 = min(n, r0 + _BAND)
        block = np.abs(T[r0:r1, :r1])
        block[:, r0:] = np.tril(block[:, r0:])            # the triangle only
        sums[r0:r1] += block.sum(axis=1)
        np.fill_diagonal(block[:, r0:], 0.0)
        sums[:r1] += block.sum(axis=0)
    return float(sums.max(initial=0.0))


def _solve_general(A: np.ndarray, B: np.ndarray, ctx) -> np.ndarray:
    """A X = B, A square float64: the refined normal equations where they get to float64's
    backward error (solvers.normal_equations), else A's Householder QR in double on the GPU, Q^T B there,
    R's substitution on the host.  (LAPACK's dsgesv refines a float32 LU instead; the GPU has
    none, and the float64 QR is twice LU's flops: benchmarks/RESULTS.md.)
    Singular (a zero pivot of A's LU, as LAPACK's gesv finds it, checked where R's
    condition estimate is below eps): LinAlgError; ill-conditioned: LinAlgWarning."""
    X = refined_normal_solve(A, B, lambda M, d: api.gram_cholesky64(M, d, ctx=ctx))
    if X is not None:
        return X
    n = A.shape[0]
    F, tau, QtB = api.qr_raw64(A, rhs=B, trans=True, ctx=ctx)      # Q^T B while the reflectors are there
    U = F.T                     # R's bytes in Fortran order (no copy): the lower triangle of F^T is R^T
    rcond = _trcon(U, lower=True, norm="I") if n else 1.0                    # ||R||_1 = ||R^T||_inf
    if not rcond >= _EPS:
        lu, piv, info = _lapack.dgetrf(A)
        if info > 0 or not np.all(np.diagonal(F)):
            raise np.linalg.LinAlgError("A singular matrix detected.")
        _warn_ill(rcond)
    return _sla.solve_triangular(U, QtB, trans=1, lower=True, check_finite=False)


def _solve_pos(A: np.ndarray, B: np.ndarray, lower: bool, ctx) -> np.ndarray:
    """A X = B, A symmetric positive definite given by its `lower` (or upper) triangle: its
    Cholesky in double on the GPU (read from that triangle), LAPACK's potrs on the host
    (cho_factor + cho_solve's path: the quicker at the H100's float64 rate);
    LinAlgWarning where ill-conditioned (pocon), LinAlgError where not positive definite."""
    try:
        L = api.cholesky64(A, lower=lower, ctx=ctx)
    except np.linalg.LinAlgError as exc:
        raise np.linalg.LinAlgError(f"{exc} The matrix is singular or indefinite; assume_a='pos' needs a "
                                    "positive definite one.") from None
    F = L.T                         # the factor's bytes in Fortran order (no copy): U = L^T, or U^T
    rcond = float(_lapack.dpocon(F, _sym_norm(A, lower), uplo="U" if lower else "L")[0]) if A.shape[0] else 1.0
    _warn_ill(rcond)
    return _sla.cho_solve((F, not lower), B, check_finite=False)


ASSUME_A = {None: "gen", "gen": "gen", "general": "gen", "sym": "sym", "symmetric": "sym", "her": "sym",
            "hermitian": "sym", "pos": "pos", "positive definite": "pos", "diagonal": "diagonal",
            "tridiagonal": "gen", "banded": "gen", "upper triangular": "upper", "lower triangular": "lower"}


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
          transposed=False, *, method="auto", ctx=None):
    """x with a x = b (a^T x = b with transposed=True), scipy's rules: assume_a "gen"
    (default) by a's QR in double on the GPU; "sym" the symmetric matrix of a's `lower`
    (or upper) triangle; "pos" its Cholesky in double on the GPU; "diagonal", "upper
    triangular", "lower triangular" as named ("tridiagonal" and "banded" as "gen").
    One factorization for all of b's columns.  numpy.linalg.LinAlgError for a singular a
    (or one not positive definite with "pos"); LinAlgWarning for an ill-conditioned one."""
    if assume_a not in ASSUME_A:
        raise ValueError(f"assume_a must be one of {sorted(k for k in ASSUME_A if k)} or None, not {assume_a!r}")
    kind = ASSUME_A[assume_a]
    a = _asarray(a, "a", check_finite)
    b = _asarray(b, "b", check_finite)
    dt = _out_dtype(a, b)
    if a.ndim == 0 or (a.shape == (1, 1) and b.ndim <= 1):     # scipy: a scalar (or 1 x 1) a divides b
        if a.ravel()[0] == 0:
            raise np.linalg.LinAlgError("A singular matrix detected.")
        return (b / a.ravel()[0]).astype(dt)
    _square(a, "a")
    if b.ndim == 0:
        b = b.reshape(1)
    if b.size == 0 or a.shape[-1] == 0:
        return _empty_solution(a, b, dt)

    def one(am, bm):
        A = np.asarray(am, np.float64)
        B = (bm[:, None] if bm.ndim == 1 else bm).astype(np.float64)
        if transposed and kind == "gen":
            A = A.T
        if kind == "pos":
            X = _solve_pos(A, B, lower, ctx)
        elif kind == "sym":
            S = np.tril(A) + np.tril(A, -1).T if lower else np.triu(A) + np.triu(A, 1).T
            X = _solve_general(S, B, ctx)
        elif kind == "diagonal":
            d = np.abs(np.diagonal(A))
            if not np.all(d):
                raise np.linalg.LinAlgError("A singular matrix detected.")
            _warn_ill(float(d.min() / d.max()))
            X = B / np.diagonal(A)[:, None]
        elif kind in ("upper", "lower"):
            T = np.tril(A) if kind == "lower" else np.triu(A)
            _singular_diagonal(T, False)
            _warn_ill(_trcon(T, lower=kind == "lower"))
            X = _sla.solve_triangular(T, B, trans=int(bool(transposed)), lower=kind == "lower", check_finite=False)
        else:
            X = _solve_general(A, B, ctx)
        return X.reshape(bm.shape).astype(dt)
    return _pairs(one, a, b, "a")


__all__ = ["cho_factor", "cho_solve", "cholesky", "lstsq", "qr", "qr_multiply", "solve", "solve_triangular"]
