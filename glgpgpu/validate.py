"""Input checks, one module for every public function: clear errors that name
the argument and say what to pass instead.

Data: numeric arrays of an exact number of dimensions, finite, within float32's
range; complex, boolean, string and object data are refused (TypeError), never
silently cast.  Options: bools must be bools, choices must be listed, numbers
range-checked.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import parallel
from .errors import NonFiniteResultError, SingularMatrixError

F32_MAX = float(np.finfo(np.float32).max)


def array(x, name: str, ndim: int | tuple, dtype=np.float32, magnitude: list | None = None,
          any_range: bool = False) -> np.ndarray:
    """`x` as an array of `dtype` with ndim in `ndim`; refuses what would be lost.

    float32 input comes back as is (no copy); other real dtypes are converted once.
    magnitude: a list to append max |x| to, found by the same pass as finiteness
    (adat bounds its result with it).
    """
    if x is None:
        raise TypeError(f"{name} is None; pass a numeric array")
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(f"{name} is a masked array; its mask would be ignored. Pass {name}.filled(value) or "
                        "drop the masked entries first")
    arr = x if isinstance(x, np.ndarray) else _as_array(x, name)
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(f"{name} is complex ({arr.dtype}); glgpgpu computes in real float32. "
                        f"Pass {name}.real if the imaginary part is zero")
    if kind == "b":
        raise TypeError(f"{name} is boolean; pass a numeric array ({name}.astype(float) if you mean 0/1)")
    if kind not in "iuf":
        raise TypeError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    dims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if arr.ndim not in dims:
        want = " or ".join(f"{d}-D" for d in dims)
        raise ValueError(f"{name} must be {want}, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if kind == "f":
        top = finite_magnitude(arr)            # float32 cannot exceed float32's range: one pass
        if top is None:
            raise _non_finite(arr, name)
        if top > F32_MAX and not any_range:    # every array here reaches the GPU in float32 (any_range:
                                               # the caller scales by powers of two first)
            raise ValueError(f"{name} holds values beyond float32's range (|x| > {F32_MAX:.3g}); "
                             "scale the problem before solving it in single precision")
    else:
        top = max(abs(int(arr.min())), abs(int(arr.max())))
        if top > F32_MAX:
            raise ValueError(f"{name} holds integers beyond float32's range")
    if magnitude is not None:
        magnitude.append(float(top))
    return arr.astype(dtype, copy=False)


#: elements from which the finiteness pass runs in threads (numpy's reductions release the GIL)
PARALLEL_FROM = 1 << 20


def _extremes(piece: np.ndarray) -> tuple:
    return float(piece.min()), float(piece.max())      # NaN propagates through both; +-inf shows


def finite_magnitude(arr: np.ndarray) -> float | None:
    """max |x| of arr, or None when it holds a NaN or an inf: the min and max of a few
    pieces (in threads for a large contiguous array -- the check is on every public
    call's path; each piece is read from memory once and from cache the second time),
    no temporary array."""
    flat = arr.reshape(-1) if arr.flags.c_contiguous else None
    if flat is not None and arr.size >= PARALLEL_FROM:
        ends = parallel.map_pieces(_extremes, np.array_split(flat, parallel.workers()))
    else:
        ends = [_extremes(arr)]
    if not all(np.isfinite(lo) and np.isfinite(hi) for lo, hi in ends):    # per piece: Python's min
        return None                                                          # and max drop a NaN
    return max(max(-lo, hi) for lo, hi in ends)


def all_finite(arr: np.ndarray) -> bool:
    """No NaN or inf in arr (finite_magnitude's one pass)."""
    return finite_magnitude(arr) is not None


def _non_finite(arr: np.ndarray, name: str) -> ValueError:
    bad = np.argwhere(~np.isfinite(arr))[0]
    return ValueError(f"{name} holds a non-finite value (first at index {tuple(int(b) for b in bad)})")


def _as_array(x, name):
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array: {exc}") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a real numeric array, got objects such as "
                            f"{type(arr.flat[0]).__name__}") from None
    return arr


def square(x, name: str, dtype=np.float32, magnitude: list | None = None) -> np.ndarray:
    arr = array(x, name, 2, dtype, magnitude=magnitude)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square, got shape {arr.shape}")
    return arr


def rhs(B, m: int, name: str = "B", dtype=np.float32, magnitude: list | None = None):
    """Right-hand side(s): (m,) or (m, k). Returns (2-D array, was_1d)."""
    arr = array(B, name, (1, 2), dtype, magnitude=magnitude)
    if arr.shape[0] != m:
        raise ValueError(f"{name} has {arr.shape[0]} rows but the matrix has order {m}")
    return (arr[:, None], True) if arr.ndim == 1 else (arr, False)


def flag(x, name: str) -> bool:
    """A yes/no option: True or False (numpy's bool too), nothing else."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    raise TypeError(f"{name} must be True or False, got {x!r}")


def choice(x, name: str, options) -> str:
    if not isinstance(x, str) or x not in options:
        raise ValueError(f"{name} must be one of {tuple(options)}, not {x!r}")
    return x


def integer(x, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """A whole number (not a bool, not a float) within [lo, hi]."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {x!r}")
    x = int(x)
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]" if lo is not None else f"<= {hi}"
        raise ValueError(f"{name} must be {rng}, got {x}")
    return x


def real(x, name: str, lo: float, hi: float, *, open_lo: bool = True, open_hi: bool = True) -> float:
    """A finite real number in the interval (lo, hi) (ends open unless said)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {x!r}")
    x = float(x)
    ok = np.isfinite(x) and (x > lo if open_lo else x >= lo) and (x < hi if open_hi else x <= hi)
    if not ok:
        raise ValueError(f"{name} must be in {'(' if open_lo else '['}{lo:g}, {hi:g}{')' if open_hi else ']'}, "
                         f"got {x!r}")
    return x


def sums_of_products_bounded(amax: float, dmax: float, n: int) -> bool:
    """Can no sum of n products a_ik a_jk d_k with |a| <= amax, |d| <= dmax (and no
    partial sum, rounded in float32: (1 + u)^n <= 2 for n u <= 1/2) reach float32's
    overflow?  Then A diag(d) A^T computed from finite input is finite, and its result
    needs no finiteness pass: one pass fewer over m^2 numbers)."""
    return n * 2.0 ** -24 <= 0.5 and 2.0 * n * amax * amax * dmax < F32_MAX


def finite_result(X: np.ndarray, what: str) -> np.ndarray:
    """Raise if a result computed from finite input holds inf or NaN (float32 overflow)."""
    if X.size and not all_finite(X):
        bad = tuple(int(b) for b in np.argwhere(~np.isfinite(X))[0])
        raise NonFiniteResultError(
            f"{what} overflows float32 (first non-finite entry at {bad}) although the input is finite: "
            "the problem is too badly scaled or conditioned for single precision; scale it first")
    return X


def _strict_lower_empty(M: np.ndarray) -> bool:
    """No nonzero below the diagonal?  The first column decides at once in the usual case
    (data there); only a matrix whose first column is zero below the diagonal is scanned."""
    m = M.shape[0]
    if m < 2 or np.any(M[1:, 0]):
        return m < 2
    return not any(np.any(M[i, :i]) for i in range(2, m))


def data_in_lower(M: np.ndarray, name: str, what: str, hint: str, lower: bool = True) -> None:
    """Refuse a matrix whose data sit only on the side of the diagonal that is not read
    (an upper factor passed as L, np.triu(A) to cholesky): the call would otherwise read
    a diagonal matrix and give a wrong answer in silence.  lower: the triangle read."""
    R = M if lower else M.T
    if R.shape[0] > 1 and _strict_lower_empty(R) and not _strict_lower_empty(np.ascontiguousarray(R.T)):
        have, read = ("above", "lower") if lower else ("below", "upper")
        raise ValueError(f"{name} holds data only {have} its diagonal, but {what} reads its {read} triangle; {hint}")


def nonsingular_triangle(T: np.ndarray, name: str = "L") -> None:
    """Raise SingularMatrixError at the first zero diagonal entry of a triangular matrix."""
    d = np.diagonal(T)
    zero = np.flatnonzero(d == 0)
    if zero.size:
        raise SingularMatrixError(int(zero[0]), 0.0, name)


def context(ctx):
    """None (the calling thread's default context) or a glgpgpu Context."""
    if ctx is not None and not hasattr(ctx, "make_current"):
        raise TypeError(f"ctx must be a glgpgpu Context or None, got {type(ctx).__name__}")
    return ctx


# The names the modules used before (kept for the paper's LU comparator and older callers).
as_float_array = array
as_square = square
as_rhs = rhs


def column_weights(d2, n: int, magnitude: list | None = None) -> np.ndarray:
    """d2 of A diag(d2) A^T: a float32 vector of A's n columns (exact shapes: no (1, n) or (n, 1)
    silently ravelled)."""
    d2 = array(d2, "d2", (1, 2), magnitude=magnitude)
    if d2.ndim != 1:
        raise ValueError(f"d2 must be a vector (the diagonal of D^2, one entry per column of A), got shape {d2.shape}")
    if d2.shape[0] != n:
        raise ValueError(f"d2 has length {d2.shape[0]} but A has {n} columns (A is m x n, d2 has n entries)")
    return d2


def kernel_inputs(X, kernel: str, gamma, degree, coef0):
    """kernel_matrix's arguments checked and its points made safe for float32: (X float32,
    kernel, gamma, degree, coef0, None), or (.., K) with K the exact lower triangle where no float32
    Gram matrix resolves the distances (rbf with gamma past 2^64).  glgpgpu.kernel_matrix's
    and glgpgpu.distributed.kernel_matrix's, so both form K from the same points."""
    kernel = choice(kernel, "kernel", ("linear", "poly", "rbf"))
    X64 = array(X, "X", 2, np.float64)
    gamma = 1.0 / X64.shape[1] if gamma is None else real(gamma, "gamma", 0.0, np.inf)
    if kernel == "rbf":
        # exp(-gamma |x - y|^2) does not change when every point moves by the same vector:
        # centred data (in float64, before the float32 cast) keeps |x|^2 + |y|^2 - 2 x.y
        # from cancelling for data far from the origin
        X64 = X64 - X64.mean(axis=0)
    if kernel != "linear":
        # gamma x.y is (gamma s^2)(x/s).(y/s): points whose squared norms would over- or
        # underflow float32 are divided by a power of two s first (exact), gamma times s^2
        top = float(np.sqrt(np.einsum("ij,ij->i", X64, X64).max(initial=0.0)))
        if top > 0 and not 2.0 ** -50 <= top <= 2.0 ** 50:
            s = 2.0 ** np.round(np.log2(top))
            X64, gamma = X64 / s, gamma * s * s
        if kernel == "rbf" and gamma > 2.0 ** 64:
            # exp(-gamma d^2) is 0 in float32 unless d^2 < 104 / gamma, a distance no float32
            # Gram matrix resolves (points ~1e20 apart: K = I): computed from exact
            # differences in float64 on the host instead
            from scipy.spatial.distance import cdist
            K = np.tril(np.exp(-gamma * cdist(X64, X64, "sqeuclidean"))).astype(np.float32)
            return X64.astype(np.float32), kernel, gamma, degree, coef0, K
        if gamma > float(np.finfo(np.float32).max):
            raise ValueError(f"gamma times the data's squared scale is {gamma:.3g}, beyond float32; scale X or gamma")
    X = X64.astype(np.float32)          # validated (finite, within float32) by array above
    degree = integer(degree, "degree", 1, 64)
    coef0 = real(coef0, "coef0", -np.inf, np.inf)
    return X, kernel, gamma, degree, coef0, None
