"""Matrices larger than one texture): a grid of t x t tiles.

Tile (I, J) holds rows I t .. I t + t - 1 and columns J t .. J t + t - 1, zero
padded past the matrix.  A symmetric or triangular matrix keeps only its lower
tiles, J <= I -- the packed format's idea at tile granularity: about half the
memory.  A matrix that fits one tile is the one-tile grid, so the tile
algorithms are also the small-matrix path.
"""
from __future__ import annotations

from dataclasses import dataclass

#: the tile order the H100 runs used (benchmarks/RESULTS.md, "Beyond one texture")
DEFAULT_TILE = 8192
#: the largest one-tile order: an RGBA32F texture of 16384 x 4096 texels is 1 GiB; at
#: 32768 (4 GiB) the H100 run read back a wrong factor, so bigger matrices are tiled
MAX_ONE_TILE = 16384


@dataclass(frozen=True)
class TileGrid:
    m: int          # matrix order (rows; columns too for the square grids)
    t: int          # tile order

    @property
    def count(self) -> int:
        """Tiles along one side."""
        return -(-self.m // self.t)

    def span(self, I: int) -> slice:
        """The matrix rows (or columns) of tile row I."""
        return slice(I * self.t, min(self.m, (I + 1) * self.t))

    def size(self, I: int) -> int:
        """How many matrix rows tile row I holds (t but for the last)."""
        s = self.span(I)
        return s.stop - s.start

    def lower(self):
        """The (I, J) of the stored tiles of a lower triangle, J <= I."""
        return [(I, J) for I in range(self.count) for J in range(I + 1)]

    def lower_bytes(self, components: int = 4) -> int:
        """float32 bytes of the lower tiles (each a full t x t texture)."""
        return len(self.lower()) * self.t * self.t * 4


def tile_order(m: int, limit: int, *, multiple: int = 16, default: int | None = None) -> int:
    """The tile order for an m x m matrix: one tile when it fits (the texture limit
    and MAX_ONE_TILE), else the default (or the limit if smaller), a multiple of
    `multiple`."""
    cap = max(multiple, (min(limit, default or DEFAULT_TILE) // multiple) * multiple)
    whole = -(-m // multiple) * multiple
    return whole if whole <= min(limit, MAX_ONE_TILE) else cap


def cholesky_steps(count: int):
    """The tile operations of the right-looking tiled Cholesky, in the order they
    are drawn: (op, I, J, K) with op "potrf" (I = J = K), "trsm" (tile (I, K), J = K)
    or "update" (A_IJ -= L_IK L_JK^T; a SYRK when I == J)."""
    for K in range(count):
        yield "potrf", K, K, K
        for I in range(K + 1, count):
            yield "trsm", I, K, K
        for I in range(K + 1, count):
            for J in range(K + 1, I + 1):
                yield "update", I, J, K
