"""The PLSSVM thesis's test matrices for the tiled Cholesky), made and
checked without float64 ever holding all of L: its random L (diagonal in
[0.5, 2], lower part in [-1, 1], 003 section 7.1), made in row bands, and a
probed backward error ||L (L^T x) - A x|| / ||A x|| in float64, a band at a time."""
from __future__ import annotations

import numpy as np

from ..layouts.tiles import TileGrid


def thesis_factor(N: int, g: TileGrid) -> np.ndarray:
    """The thesis's L (float32 N x N), band I from seed 1000 + I: the same matrix for
    the same (N, tile) on every machine."""
    L = np.empty((N, N), np.float32)
    for I in range(g.count):
        s = g.span(I)
        r = np.random.default_rng(1000 + I)
        band = r.uniform(-1, 1, (s.stop - s.start, N)).astype(np.float32)
        rows = np.arange(s.start, s.stop)
        band[np.arange(len(rows)), rows] = r.uniform(0.5, 2.0, len(rows))
        band[np.arange(N)[None, :] > rows[:, None]] = 0.0
        L[s] = band
    return L


def llt_times(L: np.ndarray, x: np.ndarray, g: TileGrid) -> np.ndarray:
    """L (L^T x) in float64 (exact products of the float32 L), a row band at a time."""
    v = np.zeros(len(x))
    for I in range(g.count):
        s = g.span(I)
        v += L[s].T.astype(np.float64) @ x[s]
    out = np.empty(len(x))
    for I in range(g.count):
        s = g.span(I)
        out[s] = L[s].astype(np.float64) @ v
    return out


def probe_backward_error(L: np.ndarray, Lg: np.ndarray, jitter: float, g: TileGrid, seed: int = 5) -> float:
    """||Lg Lg^T x - (L L^T + jitter I) x|| / ||(L L^T + jitter I) x|| for a random x."""
    x = np.random.default_rng(seed).standard_normal(L.shape[0])
    ax = llt_times(L, x, g) + jitter * x
    return float(np.linalg.norm(llt_times(Lg, x, g) - ax) / np.linalg.norm(ax))
