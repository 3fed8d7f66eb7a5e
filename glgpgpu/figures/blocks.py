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
