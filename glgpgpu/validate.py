"""Input checks shared by the public functions: clear errors naming the argument."""
from __future__ import annotations

import numpy as np


def as_float_array(x, name: str, ndim: int | tuple, dtype=np.float32) -> np.ndarray:
    """Convert to a float array of the given dimensionality; reject non-finite values."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric: {exc}") from None
    dims = (ndim,) if isinstance(ndim, int) else ndim
    if arr.ndim not in dims:
        want = " or ".join(f"{d}-D" for d in dims)
        raise ValueError(f"{name} must be {want}, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name} holds a non-finite value (first at index {tuple(int(b) for b in bad)})")
    return arr.astype(dtype, copy=False)


def as_square(x, name: str, dtype=np.float32) -> np.ndarray:
    arr = as_float_array(x, name, 2, dtype)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square, got shape {arr.shape}")
    return arr


def as_rhs(B, m: int, name: str = "B", dtype=np.float32):
    """Right-hand side(s): (m,) or (m, k). Returns (2-D array, was_1d)."""
    arr = as_float_array(B, name, (1, 2), dtype)
    if arr.shape[0] != m:
        raise ValueError(f"{name} has {arr.shape[0]} rows but the matrix has order {m}")
    return (arr[:, None], True) if arr.ndim == 1 else (arr, False)
