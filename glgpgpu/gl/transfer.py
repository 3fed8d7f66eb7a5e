"""Moving matrices between numpy and textures, in every layout.

Full / packed lower triangles (R32F, the paper's kernels) and RGBA blocks
(the blocked path).  Textures come from the context's pool; give them back.
"""
from __future__ import annotations

import numpy as np

from ..layouts.rgba import to_rgba, zero_upper
from ..layouts.triangle import layout_for, pack, unpack


def upload_lower(M: np.ndarray, packed: bool, ctx, what: str = "matrix"):
    """A pooled texture holding the lower triangle of M in the chosen layout."""
    m = M.shape[0]
    lay = layout_for(m, packed)
    ctx.check_size(lay.height, lay.width, f"{what} ({'packed' if packed else 'full'}, m={m})")
    tex = ctx.pool.take(lay.height, lay.width)
    tex.write(pack(M) if packed else np.tril(M))      # pack reads only the lower triangle
    return tex


def read_lower(tex, m: int, packed: bool) -> np.ndarray:
    """Read a lower-triangular matrix texture back as an (m, m) float32 array."""
    data = tex.read()
    return unpack(data, m) if packed else np.tril(data)


def upload_rgba(ctx, M: np.ndarray, rows: int, cols: int, what="matrix"):
    """A pooled RGBA texture (rows x cols/4 texels) holding M zero-padded to rows x cols."""
    t = ctx.pool.take(rows, cols // 4, what=what, components=4)
    t.write(to_rgba(M, rows, cols))
    return t


def read_rgba(tex, rows: int, cols: int) -> np.ndarray:
    """The leading rows x cols of an RGBA texture, as a float32 array."""
    return tex.read().reshape(tex.rows, tex.cols * 4)[:rows, :cols]


#: rows per band of read_rgba_lower.  (Uploading by bands too was measured and dropped: the driver's
#: sub-rectangle writes made half the bytes take twice the time on the H100.)
LOWER_BAND = 512


def _bands(m: int, band: int):
    for r0 in range(0, m, band):
        yield r0, min(m, r0 + band)


def read_rgba_lower(tex, m: int, band: int | None = None, upper_zero: bool = False) -> np.ndarray:
    """The lower triangle of the leading m x m of an RGBA texture (upper part zero),
    without an m x m np.tril pass.  A texture exactly m x m is read whole, straight
    into the result, then the part above the diagonal is zeroed band by band -- or
    not at all when the GPU already holds zeros there (upper_zero: blocked_adat's
    products, a factor after TiledLower.clear_upper).  A texture a little larger
    (the blocked path's padding) is read whole too and its leading rows copied
    over; a much larger one (a tile holding a smaller matrix) by row bands of
    columns 0 .. r1, half the bytes."""
    band = band or LOWER_BAND
    if tex.cols * 4 == m and tex.rows == m:
        out = np.empty((m, m), np.float32)
        tex.read(out.reshape(m, m // 4, 4))
        return out if upper_zero else zero_upper(out, band)
    if tex.rows * tex.cols * 4 <= 1.5 * m * m:
        whole = tex.read().reshape(tex.rows, tex.cols * 4)
        if upper_zero:
            return np.ascontiguousarray(whole[:m, :m])
        out = np.zeros((m, m), np.float32)
        for r0, r1 in _bands(m, band):
            out[r0:r1, :r0] = whole[r0:r1, :r0]
            out[r0:r1, r0:r1] = np.tril(whole[r0:r1, r0:r1])
        return out
    out = np.zeros((m, m), np.float32)
    for r0, r1 in _bands(m, band):
        w = -(-r1 // 4)                                     # texels covering columns 0 .. r1
        buf = tex.read_region_into(np.empty((r1 - r0, w, 4), np.float32), 0, r0).reshape(r1 - r0, 4 * w)
        out[r0:r1, :r0] = buf[:, :r0]
        out[r0:r1, r0:r1] = buf[:, r0:r1] if upper_zero else np.tril(buf[:, r0:r1])
    return out


def upload_column(ctx, v: np.ndarray, rows: int):
    """A pooled rows x 1 texture holding v (float32), zero-padded to `rows`."""
    t = ctx.pool.take(rows, 1)
    col = np.zeros((rows, 1), np.float32)
    col[:v.shape[0], 0] = v
    t.write(col)
    return t


def read_column(tex, m: int) -> np.ndarray:
    """The first m entries of a column texture, as float64."""
    return tex.read()[:m, 0].astype(np.float64)


def solve_column(ctx, rhs: np.ndarray, rows: int, substitute, watch, phase: str = "solve") -> np.ndarray:
    """Upload rhs (padded to `rows`), run `substitute(tex, backward)` forward then
    backward, read back float64 -- the host side of every factor's solve."""
    with watch("transfer"):
        t = upload_column(ctx, rhs, rows)
    with watch(phase):
        for backward in (False, True):
            t = substitute(t, backward)
    with watch("transfer"):
        out = read_column(t, rhs.shape[0])
        ctx.pool.give(t)
    return out
