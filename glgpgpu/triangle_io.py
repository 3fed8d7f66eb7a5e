"""Moving lower-triangular matrices between numpy and textures, in either layout."""
from __future__ import annotations

import numpy as np

from .context import Context
from .packed import layout_for, pack, unpack


def lower_of(T: np.ndarray, lower: bool = True) -> np.ndarray:
    """The lower triangle that represents T (T itself if lower, else T^T)."""
    return np.tril(T) if lower else np.tril(T.T)


def upload_lower(M: np.ndarray, packed: bool, ctx: Context, what: str = "matrix"):
    """A pooled texture holding the lower triangle of M in the chosen layout."""
    m = M.shape[0]
    lay = layout_for(m, packed)
    ctx.check_size(lay.height, lay.width, f"{what} ({'packed' if packed else 'full'}, m={m})")
    tex = ctx.kernels.pool.take(lay.height, lay.width)
    low = np.tril(M)
    tex.write(pack(low) if packed else low)
    return tex


def read_lower(tex, m: int, packed: bool) -> np.ndarray:
    """Read a lower-triangular matrix texture back as an (m, m) float32 array."""
    data = tex.read()
    return unpack(data, m) if packed else np.tril(data)
