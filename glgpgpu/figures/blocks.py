"""Tables on a grid of blocks (method="blocked"): one fragment per block of C."""
from __future__ import annotations

from .vertices import Geometry, vertex_table


def block_triangle(gx: int, gy: int, s: int) -> Geometry:
    """The lower block triangle on a grid of BR x BC blocks with BR = s * BC.

    Block (X, Y) is needed when its first column is at most its last row,
    X BC <= Y BR + BR - 1, i.e. X <= s Y + s - 1.  The edge x = s y + s/2 passes
    half a block beside that boundary at every block centre (for s = 1 it is
    Fig. 2(b)'s hypotenuse through (0, -.5) and (m + .5, m))."""
    c = s / 2
    rows = [((0, -c / s), (), ()), ((0, gy), (), ()), ((s * gy + c, gy), (), ())]
    return Geometry(vertex_table(rows), ((0, 1, 2),), f"lower block triangle, {gx}x{gy} blocks, slope {s}")


def block_trapezoid(g: int, k: int, e: int) -> Geometry:
    """Fig. 5's oversized triangle on a g x g block grid (blocks X, Y with
    k < X <= Y < g) cut at block column e: only columns X < e.  The blocked
    Cholesky's update inside a slab of columns (blocked/cholesky.py): its columns
    from e on wait for one slab product.  The hypotenuse x = y + 1/2 passes half a
    block beside the diagonal at every block centre, as in Fig. 5; with e = g
    this is Fig. 5's triangle itself."""
    kk = k + .5
    rows = [((k + 1, kk), (), ()), ((k + 1, g), (), ()), ((e, g), (), ()), ((e, e - .5), (), ())]
    return Geometry(vertex_table(rows), ((0, 1, 2), (0, 2, 3)), f"block trapezoid, k={k}, columns < {e} of {g}")


def block_band(g: int, y0: int, y1: int) -> Geometry:
    """The lower block triangle's rows y0 .. y1-1 (blocks X <= Y, y0 <= Y < y1) on a
    g-wide grid: one band of C, drawn as soon as the rows of A it needs are on the
    GPU (blocked adat's banded upload).  Its right edge is Fig. 2(b)'s hypotenuse
    x = y + 1/2, its other edges lie between block centres."""
    rows = [((0, y0), (), ()), ((0, y1), (), ()), ((y1 + .5, y1), (), ()), ((y0 + .5, y0), (), ())]
    return Geometry(vertex_table(rows), ((0, 1, 2), (0, 2, 3)), f"lower block band, rows {y0}..{y1 - 1} of {g}")
