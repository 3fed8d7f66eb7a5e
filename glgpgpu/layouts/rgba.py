"""The blocked path's storage (method="blocked"), in numpy.

RGBA32F texels hold 4 consecutive row entries: an (rows, cols) matrix is a
texture cols/4 wide and rows high.  The blocked packed format is the
rectangular packed format of Fig. 3 applied to the grid of B x B blocks.
"""
from __future__ import annotations

import numpy as np

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


def packed_block_shape(m: int, B: int):
    """(rows, columns) of the blocked packed storage of an m x m lower triangle."""
    lay = PackedLayout(-(-m // B))
    return lay.h * B, lay.w * B


def unpack_blocks(P: np.ndarray, m: int, B: int) -> np.ndarray:
    """The (m, m) lower triangle from blocked packed storage (numpy)."""
    G = -(-m // B)
    lay = PackedLayout(G)
    I, J = np.tril_indices(G)
    X, Y = lay.texel(I, J)
    blocks = P.reshape(lay.h, B, lay.w, B)[Y, :, X, :]          # (nblocks, B, B)
    full = np.zeros((G, B, G, B), P.dtype)
    full[I, :, J, :] = blocks
    return np.tril(full.reshape(G * B, G * B)[:m, :m])
