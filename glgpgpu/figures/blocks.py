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
