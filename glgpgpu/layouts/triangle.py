"""Storage layouts of a lower-triangular m x m matrix in a texture.

Full format: element (i, j) sits at texel (x, y) = (j, i) of an m x m texture.

Rectangular packed format (2008 paper, section 3.3, Figs. 3 and 4): the lower
right triangle is rotated by 180 degrees into the unused upper corner, so the
texture is only w = ceil(m/2) wide and h = m + mod(m+1, 2) high::

    e = 1 if m is even else 0
    j <  w:  (i, j) -> texel (x, y) = (j, i + e)
    j >= w:  (i, j) -> texel (x, y) = (m - e - j, m - 1 - i)   # the rotated part

For even m every texel is used (w*h = m(m+1)/2); for odd m too.  (Fig. 3(a)'s
caption says 3x6 for m = 6; the formula, and Fig. 4(a), give 3x7.)
"""
from __future__ import annotations

import numpy as np


class FullLayout:
    """Element (i, j) at texel (j, i) of an m x m texture."""

    packed = False

    def __init__(self, m: int):
        self.m = int(m)
        self.width = self.height = self.m

    def texel(self, i, j):
        """(x, y) texel of element (i, j); works on numpy arrays too."""
        return j, i

    def __repr__(self):
        return f"FullLayout(m={self.m}, {self.width}x{self.height})"


class PackedLayout:
    """The rectangular packed format of Figs. 3 and 4."""

    packed = True

    def __init__(self, m: int):
        if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)) or m < 1:
            raise ValueError(f"m must be a positive integer (the matrix order), got {m!r}")
        self.m = m = int(m)
        self.w = self.width = (m + 1) // 2
        self.h = self.height = m + (m + 1) % 2
        self.e = 1 if m % 2 == 0 else 0

    def texel(self, i, j):
        """(x, y) texel of element (i, j), i >= j; works on numpy arrays too."""
        i = np.asarray(i)
        j = np.asarray(j)
        left = j < self.w
        x = np.where(left, j, self.m - self.e - j)
        y = np.where(left, i + self.e, self.m - 1 - i)
        if x.ndim == 0:
            return int(x), int(y)
        return x, y

    def __repr__(self):
        return f"PackedLayout(m={self.m}, {self.width}x{self.height})"


def layout_for(m: int, packed: bool):
    return PackedLayout(m) if packed else FullLayout(m)


def packed_shape(m: int):
    """(height, width) of the packed texture of an m x m matrix."""
    lay = PackedLayout(m)
    return lay.h, lay.w


def _lower_indices(m):
    return np.tril_indices(m)


def pack(L) -> np.ndarray:
    """Pack the lower triangle of a square matrix: returns an (h, w) array."""
    L = np.asarray(L)
    if L.ndim != 2 or L.shape[0] != L.shape[1]:
        raise ValueError(f"pack needs a square matrix, got shape {L.shape}")
    m = L.shape[0]
    lay = PackedLayout(m)
    out = np.zeros((lay.h, lay.w), dtype=L.dtype)
    i, j = _lower_indices(m)
    x, y = lay.texel(i, j)
    out[y, x] = L[i, j]
    return out


def unpack(P, m: int) -> np.ndarray:
    """Inverse of `pack`: an (m, m) lower-triangular array (upper part zero)."""
    P = np.asarray(P)
    lay = PackedLayout(m)
    if P.shape != (lay.h, lay.w):
        raise ValueError(f"a packed {m}x{m} matrix is {lay.h}x{lay.w} (rows x cols), got {P.shape}")
    out = np.zeros((m, m), dtype=P.dtype)
    i, j = _lower_indices(m)
    x, y = lay.texel(i, j)
    out[i, j] = P[y, x]
    return out
