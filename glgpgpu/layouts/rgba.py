"""The blocked path's storage (method="blocked"), in numpy.

RGBA32F texels hold 4 consecutive row entries: an (rows, cols) matrix is a
texture cols/4 wide and rows high.  The blocked packed format is the
rectangular packed format of Fig. 3 applied to the grid of B x B blocks.
"""
from __future__ import annotations

import numpy as np

from .. import parallel
from .triangle import PackedLayout


def padded(m: int, P: int) -> int:
    """m rounded up to a multiple of P."""
    return -(-m // P) * P


def to_rgba(M: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(rows, cols/4, 4) float32 array of M zero-padded to rows x cols (a view of
    M, no copy, when M is float32, C-contiguous and needs no padding)."""
    if M.shape == (rows, cols) and M.dtype == np.float32 and M.flags.c_contiguous:
        return M.reshape(rows, cols // 4, 4)
    out = np.zeros((rows, cols), np.float32)
    out[:M.shape[0], :M.shape[1]] = M
    return out.reshape(rows, cols // 4, 4)


def zero_upper(out: np.ndarray, band: int = 512) -> np.ndarray:
    """Zero the strict upper triangle of a square array in place, band by band of
    rows (no m x m index arrays or np.tril copy): what a read-back into the result
    does when the GPU did not zero it already."""
    m = out.shape[0]
    for r0 in range(0, m, band):
        _zero_upper_rows(out, r0, min(m, r0 + band))
    return out


def _zero_upper_rows(out: np.ndarray, r0: int, r1: int) -> None:
    """The strict upper triangle's part in rows r0 .. r1-1, zeroed in place."""
    out[r0:r1, r1:] = 0
    out[r0:r1, r0:r1] = np.tril(out[r0:r1, r0:r1])


def packed_block_shape(m: int, B: int):
    """(rows, columns) of the blocked packed storage of an m x m lower triangle."""
    lay = PackedLayout(-(-m // B))
    return lay.h * B, lay.w * B


def unpack_blocks(P: np.ndarray, m: int, B: int) -> np.ndarray:
    """The (m, m) lower triangle from blocked packed storage (numpy, by index
    arrays: the reference that `expand_blocks` is tested against)."""
    G = -(-m // B)
    lay = PackedLayout(G)
    I, J = np.tril_indices(G)
    X, Y = lay.texel(I, J)
    blocks = P.reshape(lay.h, B, lay.w, B)[Y, :, X, :]          # (nblocks, B, B)
    full = np.zeros((G, B, G, B), P.dtype)
    full[I, :, J, :] = blocks
    return np.tril(full.reshape(G * B, G * B)[:m, :m])


#: bytes of the result per band of expand_blocks, at least: a thread's start costs tens of
#: microseconds (H100 host, m = 1024: 8 bands 1.9 ms, 2 bands 0.8 ms; m = 4096: 16 bands in 8 threads 5.4 ms, one thread 44 ms)
BAND_BYTES = 1 << 20


def expand_blocks(P: np.ndarray, m: int, B: int) -> np.ndarray:
    """`unpack_blocks` by slice copies, no index arrays), in bands of block
    rows on the host's cores (parallel.py).  Fig. 4 on the block grid moves whole
    blocks: the left block columns J < w sit shifted down by e block rows, the right
    ones turned by 180 degrees at block level (block order reversed in both axes,
    each block kept as it is).  So each band is one strided copy of its left
    columns, one reversed-block copy of its part of the right triangle, and the
    zeroing of what landed above the diagonal."""
    G = -(-m // B)
    lay = PackedLayout(G)
    n, wB, eB = G * B, lay.w * B, lay.e * B
    if P.shape != (lay.h * B, wB):
        raise ValueError(f"blocked packed storage of m={m}, B={B} is {(lay.h * B, wB)}, got {P.shape}")
    out = np.empty((n, n), P.dtype)
    out4, P4 = out.reshape(G, B, G, B), P.reshape(lay.h, B, lay.w, B)
    xs = slice(G - lay.e - lay.w, None if lay.e else 0, -1)     # the right block columns, reversed

    def band(rows):
        g0, g1 = rows
        out[g0 * B:g1 * B, :wB] = P[eB + g0 * B:eB + g1 * B]
        a = max(g0, lay.w)
        if a < g1:                                    # block rows I >= w hold right-triangle blocks
            out4[a:g1, :, lay.w:, :] = P4[G - g1:G - a][::-1][:, :, xs, :]
        _zero_upper_rows(out, g0 * B, g1 * B)

    pieces = min(2 * parallel.workers(), max(1, out.nbytes // BAND_BYTES))
    cuts = np.unique(np.linspace(0, G, pieces + 1).astype(int))
    parallel.map_pieces(band, zip(cuts[:-1], cuts[1:]))
    return out if n == m else np.ascontiguousarray(out[:m, :m])
