"""The sparse QR's assembly by drawing (Yeralan et al. 2015, section 3.3.1): the
vertex tables that put A's rows and the children's contribution blocks into the
fronts of an atlas, for the fragment methods.  Pure functions, no GL.

A front's rows each have one source -- one row of A (S-assembly) or one row of one
child's contribution block -- so nothing is ever written twice:

  entry_points   one point per nonzero of A, on its texel, T0 = (value, component):
                 drawn with additive blending into a cleared atlas, so a texel's
                 four columns (RGBA) can come from four points.
  gather_rects   for each (parent, child) pair, one rectangle per run of parent
                 rows that take consecutive rows of the child's block, the parent's
                 whole width: T0 interpolates (the parent's texel column counted from
                 its first, the block row) and names the pair, whose row of the
                 column map says which block column feeds each parent column
                 (column_map); T1 = (the block's first component in the source
                 texture, its first row there, the ratio of the fronts' scales).
  shelves        where contribution blocks wait between rounds: rectangles packed
                 in shelves into textures no larger than the limit.
  copy_rects     a block copied out of its front into its shelf place, whole texels.

`components` is 4 for the RGBA layout (blocked: 4 columns a texel), 1 for R32F.
"""
from __future__ import annotations

import numpy as np

from .points import Points
from .vertices import VERTEX_FLOATS, Geometry, rectangles


def entry_points(x0, rows, cols, vals, components: int) -> Points:
    """Points for entries (rows[i], cols[i]) = vals[i] of fronts whose first texel
    column is x0[i] (an array as long as the entries)."""
    cols = np.asarray(cols, np.int64)
    t = np.zeros((cols.shape[0], VERTEX_FLOATS), np.float32)
    t[:, 0] = np.asarray(x0, np.int64) + cols // components + .5
    t[:, 1] = np.asarray(rows, np.int64) + .5
    t[:, 2] = vals
    t[:, 3] = cols % components
    return Points(t, f"S-assembly: {cols.shape[0]} entries of A", names=("T0",))


def runs(at, brow, group=None) -> tuple:
    """(starts, lengths) of the runs where both the parent rows `at` and the block
    rows `brow` go up by one (and, given, `group` stays the same)."""
    at, brow = np.asarray(at, np.int64), np.asarray(brow, np.int64)
    if not at.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    brk = (np.diff(at) != 1) | (np.diff(brow) != 1)
    if group is not None:
        brk |= np.diff(group) != 0
    starts = np.concatenate([[0], np.flatnonzero(brk) + 1])
    return starts, np.diff(np.concatenate([starts, [at.size]]))


def column_map(pcol, parent_cols: int, components: int) -> np.ndarray:
    """One row of the column map: for each of the parent's texels, the block column
    feeding each of its components (-1: none), shape (texels, components)."""
    texels = -(-parent_cols // components)
    inv = np.full(texels * components, -1.0, np.float32)
    inv[np.asarray(pcol, np.int64)] = np.arange(len(pcol), dtype=np.float32)
    return inv.reshape(texels, components)


def gather_rects(pairs, components: int) -> Geometry | None:
    """pairs: [(p, parent x0, parent columns, at, brow, source component, source y0,
    factor)] -- p the pair's row in the column map, at the parent rows the block
    fills, brow the block row each takes.  One rectangle per run (see module)."""
    pairs = [q for q in pairs if len(q[3])]
    if not pairs:
        return None
    lens = np.array([len(q[3]) for q in pairs])
    at = np.concatenate([np.asarray(q[3], np.int64) for q in pairs])
    brow = np.concatenate([np.asarray(q[4], np.int64) for q in pairs])
    per = np.array([q[:3] + q[5:] for q in pairs], np.float64)       # p, x0, n, sc, sy, factor
    which = np.repeat(np.arange(len(pairs)), lens)
    s, ln = runs(at, brow, which)                  # runs within each pair
    q = per[which[s]]
    w = -(-q[:, 2] // components)
    z = np.zeros(s.size)
    return rectangles(q[:, 1], at[s], q[:, 1] + w, at[s] + ln, np.stack([z, brow[s], q[:, 0]], 1),
                      np.stack([w, brow[s] + ln, q[:, 0]], 1), q[:, 3:6],
                      label=f"child -> parent assembly: {s.size} row runs")


def shelves(sizes, limit: int) -> tuple:
    """Pack rectangles sizes [(w, h), ...] (each at most limit x limit) into textures
    of at most limit x limit: shelves of the tallest first, left to right.  Returns
    (places [(texture, x, y)], texture sizes [(w, h)])."""
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i][1], i))
    places = [None] * len(sizes)
    dims = []                                # per texture: [width used, height used]
    tex = x = y = shelf = 0
    for i in order:
        w, h = sizes[i]
        if w > limit or h > limit:
            raise ValueError(f"a {h} x {w} block does not fit a {limit}-texel texture")
        if not dims:
            dims.append([0, 0])
        if x + w > limit:                    # next shelf
            x, y, shelf = 0, y + shelf, 0
        if y + h > limit:                    # next texture
            tex, x, y, shelf = tex + 1, 0, 0, 0
            dims.append([0, 0])
        places[i] = (tex, x, y)
        x += w
        shelf = max(shelf, h)
        dims[tex][0] = max(dims[tex][0], x)
        dims[tex][1] = max(dims[tex][1], y + shelf)
    return places, [(max(w, 1), max(h, 1)) for w, h in dims]


def copy_rects(blocks) -> Geometry | None:
    """blocks: [(source x0, source y0, destination x0, destination y0, texels, rows)]:
    each rectangle of texels copied, T0 = the source texel (interpolated)."""
    if not blocks:
        return None
    b = np.asarray(blocks, np.float64).reshape(-1, 6)
    sx, sy, dx, dy, w, h = b.T
    z = np.zeros_like(sx)
    zz = np.zeros((len(sx), 3))
    return rectangles(dx, dy, dx + w, dy + h, np.stack([sx, sy, z], 1), np.stack([sx + w, sy + h, z], 1), zz,
                      label=f"contribution blocks copied out: {len(sx)}")
