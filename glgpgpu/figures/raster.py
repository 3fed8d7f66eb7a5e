"""OpenGL's coverage rule in numpy: which texel centres a geometry covers and what
it interpolates there -- so tests check the vertex tables without a GPU."""
from __future__ import annotations

import numpy as np

from .vertices import Geometry


def _edge_owns(dx, dy):
    """Tie rule for centres exactly on an edge (counter-clockwise, y up): an edge
    owns them if it is a 'left' edge (going down) or a 'top' edge (going left).
    Two triangles sharing an edge therefore never both, nor neither, cover it."""
    return (dy < 0) | ((dy == 0) & (dx < 0))


def rasterize(geom: Geometry, width: int, height: int):
    """Which texels of a width x height target the geometry covers, and what it
    interpolates there.

    Returns (count, t0, t1): count (height, width) int array (times covered: 0
    or 1 for a correct table), and t0, t1 (height, width, 3) with the
    interpolated coordinates of the covering triangle (NaN where uncovered).
    A fragment exists where the texel centre lies inside a triangle (OpenGL's
    rule); centres on a shared edge go to exactly one triangle.
    """
    ys, xs = np.mgrid[0:height, 0:width]
    px, py = xs + .5, ys + .5
    count = np.zeros((height, width), dtype=np.int64)
    t0 = np.full((height, width, 3), np.nan)
    t1 = np.full((height, width, 3), np.nan)
    corners = np.asarray(geom.corners, dtype=np.float64)
    if getattr(geom, "primitive", "triangles") == "points":
        # a point of size 1 makes the one fragment whose texel holds it; its attributes as given
        x, y = np.floor(corners[:, 0]).astype(int), np.floor(corners[:, 1]).astype(int)
        ok = (0 <= x) & (x < width) & (0 <= y) & (y < height)
        np.add.at(count, (y[ok], x[ok]), 1)
        t0[y[ok], x[ok]], t1[y[ok], x[ok]] = corners[ok, 2:5], corners[ok, 5:8]
        return count, t0, t1
    for tri in geom.triangles:
        v = corners[list(tri)]
        area = (v[1, 0] - v[0, 0]) * (v[2, 1] - v[0, 1]) - (v[2, 0] - v[0, 0]) * (v[1, 1] - v[0, 1])
        if area == 0:
            continue
        if area < 0:   # make it counter-clockwise
            v = v[[0, 2, 1]]
            area = -area
        inside = np.ones((height, width), dtype=bool)
        bary = []
        for a, b, opposite in ((1, 2, 0), (2, 0, 1), (0, 1, 2)):
            dx, dy = v[b, 0] - v[a, 0], v[b, 1] - v[a, 1]
            e = dx * (py - v[a, 1]) - dy * (px - v[a, 0])
            inside &= (e > 0) | ((e == 0) & _edge_owns(dx, dy))
            bary.append((opposite, e / area))
        w = np.zeros((3, height, width))
        for opposite, val in bary:
            w[opposite] = val
        count += inside
        for dst, lo in ((t0, 2), (t1, 5)):
            interp = np.einsum("vhw,vc->hwc", w, v[:, lo:lo + 3])
            dst[inside] = interp[inside]
    return count, t0, t1


def on_edge_centres(geom: Geometry, width: int, height: int) -> int:
    """How many texel centres lie exactly on an outer edge of the geometry.

    The papers' half-pixel offsets exist to keep this at zero for the triangles
    (their coverage then does not depend on a driver's tie rule)."""
    ys, xs = np.mgrid[0:height, 0:width]
    px, py = xs + .5, ys + .5
    n = 0
    corners = np.asarray(geom.corners, dtype=np.float64)
    for tri in geom.triangles:
        v = corners[list(tri)]
        for a, b in ((0, 1), (1, 2), (2, 0)):
            dx, dy = v[b, 0] - v[a, 0], v[b, 1] - v[a, 1]
            e = dx * (py - v[a, 1]) - dy * (px - v[a, 0])
            t = ((px - v[a, 0]) * dx + (py - v[a, 1]) * dy) / (dx * dx + dy * dy)
            n += int(np.sum((e == 0) & (t > 0) & (t < 1)))
    return n
