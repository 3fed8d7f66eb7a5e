"""Exact power-of-two scaling before upload: multiplying by 2^-e changes no bit
of a float32 mantissa, so a kernel can work on data of size about 1 (sums of
squares neither overflow nor underflow) and the host scales results back."""
from __future__ import annotations

import numpy as np

from ..validate import finite_magnitude


def power_of_two_exponent(A: np.ndarray, amax: float | None = None) -> int:
    """e with max |A| 2^-e in [0.5, 1); 0 for a zero matrix.  amax: max |A| if known."""
    if amax is None:
        amax = finite_magnitude(A) if A.size else 0.0
    if amax is None:                                   # a NaN or inf: the caller's checks say so
        amax = float(np.max(np.abs(A)))
    return int(np.frexp(amax)[1]) if amax else 0


def power_of_two_scale(A: np.ndarray, e: int | None = None):
    """(A * 2^-e as float32, 2^e) with max |A| 2^-e in [0.5, 1); (A, 1.0) for a zero matrix.
    e: power_of_two_exponent(A), where the caller has it."""
    e = power_of_two_exponent(A) if e is None else e
    if e == 0:
        return A, 1.0
    if A.dtype == np.float32 and -126 <= -e <= 127:    # 2^-e a normal float32: the product is exact
        return A * np.float32(np.ldexp(1.0, -e)), float(np.ldexp(1.0, e))      # (or rounds as ldexp)
    # scaled in float64: 2^-e itself passes float32's range for data near its ends (1e-45)
    return np.ldexp(np.asarray(A, np.float64), -e).astype(np.float32), float(np.ldexp(1.0, e))


def scale_r(F: np.ndarray, scale: float) -> np.ndarray:
    """Multiply the upper trapezoid of F (R of a QR in geqrf's layout) by `scale`, in
    place, row by row: exact for a power of two, and without np.triu_indices's index
    arrays (tens of ms for a 384 x 6144 F on the GPU machine's host)."""
    if scale == 1:
        return F
    if F.dtype == np.float32 and np.float32(scale) == scale:   # a float32 power of two: exact
        s32 = np.float32(scale)                                 # (or inf where R leaves the range)
        with np.errstate(over="ignore"):
            for i in range(min(F.shape)):
                F[i, i:] *= s32
        return F
    shift = int(np.frexp(scale)[1]) - 1
    for i in range(min(F.shape)):               # in float64: the scale may pass float32's range
        F[i, i:] = np.ldexp(F[i, i:].astype(np.float64), shift)
    return F


#: magnitudes inside this range go to float32 as they are: their products and sums stay
#: normal; outside it the operations scale by an exact power of two first
SAFE_RANGE = (2.0 ** -40, 2.0 ** 40)


def exponent(amax: float, even: bool = False) -> int:
    """e with amax 2^-e in [0.5, 1) (amax > 0); even=True rounds e up to even (a power
    of 4, for a factor whose square root must stay exact).  0 for a magnitude inside
    SAFE_RANGE or zero: no scaling needed."""
    if not amax or SAFE_RANGE[0] <= amax <= SAFE_RANGE[1]:
        return 0
    e = int(np.frexp(amax)[1])
    return e + (e % 2) if even else e


def scaled(x: np.ndarray, e: int) -> np.ndarray:
    """x 2^-e as float32 (exact for every entry that stays a normal number); x itself when e = 0."""
    return x if e == 0 else np.ldexp(x, -e).astype(np.float32)


def unscaled(x: np.ndarray, e: int) -> np.ndarray:
    """x 2^e in x's dtype, in place where it can be (exact unless it leaves float32's range)."""
    if e == 0:
        return x
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(x, e, out=x) if x.flags.writeable else np.ldexp(x, e).astype(x.dtype)


def pow2_solve(solve, r: np.ndarray) -> np.ndarray:
    """solve(r) for a linear solve that runs in float32, with r scaled by an exact power
    of two to size about 1 first and the answer scaled back: a refinement's residuals
    shrink towards float32's underflow (1e-45) long before they reach float64's."""
    amax = float(np.max(np.abs(r), initial=0.0))
    if amax == 0.0 or not np.isfinite(amax):
        return solve(r)
    e = int(np.frexp(amax)[1])
    return np.ldexp(solve(np.ldexp(r, -e)), e)
