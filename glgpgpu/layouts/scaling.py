"""Exact power-of-two scaling before upload: multiplying by 2^-e changes no bit
of a float32 mantissa, so a kernel can work on data of size about 1 (sums of
squares neither overflow nor underflow) and the host scales results back."""
from __future__ import annotations

import numpy as np


def power_of_two_scale(A: np.ndarray):
    """(A * 2^-e as float32, 2^e) with max |A| 2^-e in [0.5, 1); (A, 1.0) for a zero matrix."""
    amax = float(np.max(np.abs(A))) if A.size else 0.0
    if amax == 0.0:
        return A, 1.0
    e = int(np.frexp(amax)[1])
    return (A * np.float32(np.ldexp(1.0, -e))).astype(np.float32), float(np.ldexp(1.0, e))


def scale_r(F: np.ndarray, scale: float) -> np.ndarray:
    """Multiply the upper trapezoid of F (R of a QR in geqrf's layout) by `scale`, in
    place, row by row: exact for a power of two, and without np.triu_indices's index
    arrays (tens of ms for a 384 x 6144 F on the GPU machine's host)."""
    s = np.float32(scale)
    for i in range(min(F.shape)):
        F[i, i:] *= s
    return F
