"""The papers' vertex tables, as pure functions (no GL).

A kernel is launched by drawing triangles; each vertex carries a position V
(pixel units, texel (x, y) has its centre at (x + .5, y + .5)) and up to two
attached texture coordinates T0, T1 (3 components each; unused ones are 0).
The rasterizer creates a fragment for every texel centre inside a triangle and
interpolates T0, T1 linearly there, so each fragment knows what to fetch.

Functions are named after the figures of Jung & O'Leary (2008) (`fig2a_...`,
`fig4_...`) and keep their vertex numbering: `Geometry.corners[n - 1]` is the
figure's vertex n.  `rasterize` applies OpenGL's coverage rule in numpy, so the
tests can check, without a GPU, which texels a table covers and what they fetch.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .packed import PackedLayout

# Layout of one vertex: position (2), T0 (3), T1 (3).
VERTEX_FLOATS = 8


@dataclass
class Geometry:
    """Corners (the figure's numbered vertices) and the triangles made of them."""

    corners: np.ndarray          # (K, 8): x, y, T0 xyz, T1 xyz
    triangles: tuple             # index triples into corners
    label: str = ""
    names: tuple = field(default=())   # which attached coordinates mean something ("T0", "T1")

    @property
    def vertices(self) -> np.ndarray:
        """(3 * ntriangles, 8) float32, ready for a GL_TRIANGLES draw."""
        idx = np.array(self.triangles, dtype=np.int64).reshape(-1)
        return np.ascontiguousarray(self.corners[idx], dtype=np.float32)

    def __add__(self, other: "Geometry") -> "Geometry":
        n = len(self.corners)
        tris = tuple(self.triangles) + tuple(tuple(v + n for v in t) for t in other.triangles)
        return Geometry(np.vstack([self.corners, other.corners]), tris,
                        f"{self.label} + {other.label}", self.names or other.names)


def vertex_table(rows):
    """rows: (V, T0, T1) tuples with 2-, 3- or 2-component coordinates."""
    out = np.zeros((len(rows), VERTEX_FLOATS), dtype=np.float64)
    for n, (v, t0, t1) in enumerate(rows):
        out[n, 0:2] = v
        out[n, 2:2 + len(t0)] = t0
        out[n, 5:5 + len(t1)] = t1
    return out


def rectangle(x0, y0, x1, y1, t0=None, t1=None, label="rectangle", names=()):
    """An axis-aligned rectangle drawn as the fan 1-2-3, 1-3-4 of Fig. 2(a).

    `t0`/`t1` give each attached coordinate at the four corners in the order
    (x0,y0), (x0,y1), (x1,y1), (x1,y0), or one constant value for all four.
    """
    pos = [(x0, y0), (x0, y1), (x1, y1), (x1, y0)]

    def per_corner(t):
        if t is None:
            return [()] * 4
        if np.ndim(t[0]) == 0:
            return [tuple(t)] * 4
        return [tuple(c) for c in t]

    rows = list(zip(pos, per_corner(t0), per_corner(t1)))
    return Geometry(vertex_table(rows), ((0, 1, 2), (0, 2, 3)), label, names)


# ---------------------------------------------------------------- assembly (section 3)

def fig2a_column_scaling(m: int, k: int) -> Geometry:
    """Fig. 2(a): the m x 1 rectangle over b, T0 = the triad (x, k+.5, .5).

    Kernel 1 fetches A at T0.yx = (k+.5, x) -> A(x, k), and d at T0.yz = (k+.5, .5).
    """
    kk = k + .5
    rows = [((0, 0), (0, kk, .5), ()), ((0, 1), (0, kk, .5), ()),
            ((m, 1), (m, kk, .5), ()), ((m, 0), (m, kk, .5), ())]
    return Geometry(vertex_table(rows), ((0, 1, 2), (0, 2, 3)), f"Fig. 2(a) column scaling, k={k}", ("T0",))


def fig2b_outer_product_add(m: int, k: int) -> Geometry:
    """Fig. 2(b): the oversized triangle over the lower triangle of C (full format).

    A fragment at (x, y) = (column i, row j) gets T0 = (k+.5, j) -> A(j, k) and
    T1 = (i, .5) -> b(i); the -.5 and m+.5 offsets keep the diagonal's centres inside.
    """
    kk = k + .5
    rows = [((0, -.5), (kk, -.5), (0, .5)),
            ((0, m), (kk, m), (0, .5)),
            ((m + .5, m), (kk, m), (m + .5, .5))]
    return Geometry(vertex_table(rows), ((0, 1, 2),), f"Fig. 2(b) outer-product addition, k={k}", ("T0", "T1"))


def fig4_packed_outer_product_add(m: int, k: int) -> Geometry:
    """Fig. 4: two triangles over the packed texture (w x h viewport).

    Vertices 1-3 cover the lower trapezoid (left columns), 4-6 the rotated upper
    triangle, with the texture coordinates each texel would have had in the full
    format.  Fig. 4(b)'s vertex 4 prints T1 = (m, .5); it must be (w, .5).
    """
    lay = PackedLayout(m)
    w, h, kk = lay.w, lay.h, k + .5
    if m % 2 == 0:   # Fig. 4(a): h = m + 1, the trapezoid is shifted up one row
        rows = [((0, .5), (kk, -.5), (0, .5)),
                ((0, h), (kk, m), (0, .5)),
                ((m + .5, h), (kk, m), (m + .5, .5)),
                ((w, w + .5), (kk, w - .5), (w, .5)),
                ((w, 0), (kk, m), (w, .5)),
                ((-.5, 0), (kk, m), (m + .5, .5))]
    else:            # Fig. 4(b): h = m
        rows = [((0, -.5), (kk, -.5), (0, .5)),
                ((0, m), (kk, m), (0, .5)),
                ((m + .5, m), (kk, m), (m + .5, .5)),
                ((w, w - .5), (kk, w - .5), (w, .5)),     # erratum: T1 printed as (m, .5)
                ((w, 0), (kk, m), (w, .5)),
                ((.5, 0), (kk, m), (m + .5, .5))]
    fig = "4(a)" if m % 2 == 0 else "4(b)"
    return Geometry(vertex_table(rows), ((0, 1, 2), (3, 4, 5)),
                    f"Fig. {fig} packed outer-product addition, k={k}", ("T0", "T1"))


def outer_product_add(m: int, k: int, packed: bool) -> Geometry:
    return fig4_packed_outer_product_add(m, k) if packed else fig2b_outer_product_add(m, k)


# ---------------------------------------------------------------- Cholesky (section 4)

def texel_square(x: int, y: int, label="square") -> Geometry:
    """One texel, for the square-root and copy kernels (fragment position = WPOS)."""
    return rectangle(x, y, x + 1, y + 1, label=label)


def column_run(layout, col: int, r0: int, r1: int, label="column") -> Geometry:
    """A 1-texel-wide rectangle over rows r0..r1 (inclusive) of matrix column `col`.

    T0 holds the centre of the column's diagonal texel (the pivot of Kernel 4);
    T1 holds the matrix indices (col + .5, row + .5) interpolated over the run,
    for kernels that compute addresses themselves (inner product, solves).
    Both layouts keep a column's rows contiguous in one texel column.
    """
    xa, ya = layout.texel(r0, col)
    xb, yb = layout.texel(r1, col)
    px, py = layout.texel(col, col)
    pivot = (px + .5, py + .5)
    c = col + .5
    if yb >= ya:     # rows run upwards in the texture
        y0, y1, row_at_y0, row_at_y1 = ya, yb + 1, r0, r1 + 1
    else:            # rotated part: rows run downwards
        y0, y1, row_at_y0, row_at_y1 = yb, ya + 1, r1 + 1, r0
    t1 = [(c, row_at_y0), (c, row_at_y1), (c, row_at_y1), (c, row_at_y0)]
    return rectangle(xa, y0, xa + 1, y1, t0=pivot, t1=t1, label=label, names=("T0", "T1"))


def fig5_outer_product_sub(m: int, k: int) -> Geometry:
    """Fig. 5: oversized triangle over the trailing lower triangle (full format).

    Fragment (j, i) gets T0 = (k+.5, i) -> neighbour L(i, k) and T1 = (j, k+.5),
    read through the .yx swizzle as (k+.5, j) -> pivot L(j, k) (Kernel 5).
    """
    kk = k + .5
    rows = [((k + 1, kk), (kk, kk), (k + 1, kk)),
            ((k + 1, m), (kk, m), (k + 1, kk)),
            ((m + .5, m), (kk, m), (m + .5, kk))]
    return Geometry(vertex_table(rows), ((0, 1, 2),), f"Fig. 5 outer-product subtraction, k={k}", ("T0", "T1"))


def fig6a_packed_sub_first_half(m: int, k: int) -> Geometry:
    """Fig. 6(a), m even, k = 0 .. w-1: trapezoid (1-3) plus rotated triangle (4-6)."""
    lay = PackedLayout(m)
    w, h, kk = lay.w, lay.h, k + .5
    rows = [((k + 1, k + 1.5), (kk, k + 1.5), (k + 2, kk)),
            ((k + 1, h), (kk, h), (k + 2, kk)),
            ((m + .5, h), (kk, h), (m + 1.5, kk)),
            ((w, w + .5), (kk, w + .5), (w + 1, kk)),
            ((w, 0), (kk, h), (w + 1, kk)),
            ((-.5, 0), (kk, h), (m + 1.5, kk))]
    return Geometry(vertex_table(rows), ((0, 1, 2), (3, 4, 5)),
                    f"Fig. 6(a) packed outer-product subtraction, k={k}", ("T0", "T1"))


def fig6b_packed_sub_second_half(m: int, k: int) -> Geometry:
    """Fig. 6(b), m even, texel column k = w-1 .. 1 (matrix column m-1-k)."""
    kk = k + .5
    rows = [((k, kk), (kk, kk), (k, kk)),
            ((k, 0), (kk, 0), (k, kk)),
            ((-.5, 0), (kk, 0), (-.5, kk))]
    return Geometry(vertex_table(rows), ((0, 1, 2),),
                    f"Fig. 6(b) packed outer-product subtraction, texel column {k}", ("T0", "T1"))


def fig7a_packed_sub_first_half(m: int, k: int) -> Geometry:
    """Fig. 7(a), m odd, k = 0 .. w-1: vertices 1-3 as Fig. 5, 4-6 the rotated part."""
    lay = PackedLayout(m)
    w, kk = lay.w, k + .5
    rows = [((k + 1, kk), (kk, kk), (k + 1, kk)),
            ((k + 1, m), (kk, m), (k + 1, kk)),
            ((m + .5, m), (kk, m), (m + .5, kk)),
            ((w, w - .5), (kk, w - .5), (w, kk)),
            ((w, 0), (kk, m), (w, kk)),
            ((.5, 0), (kk, m), (m + .5, kk))]
    return Geometry(vertex_table(rows), ((0, 1, 2), (3, 4, 5)),
                    f"Fig. 7(a) packed outer-product subtraction, k={k}", ("T0", "T1"))


def fig7b_packed_sub_second_half(m: int, k: int) -> Geometry:
    """Fig. 7(b), m odd, texel column k = w-1 .. 2 (matrix column m-k)."""
    kk = k + .5
    rows = [((k, k - .5), (kk, k - .5), (k - 1, kk)),
            ((k, 0), (kk, 0), (k - 1, kk)),
            ((.5, 0), (kk, 0), (-.5, kk))]
    return Geometry(vertex_table(rows), ((0, 1, 2),),
                    f"Fig. 7(b) packed outer-product subtraction, texel column {k}", ("T0", "T1"))


def packed_outer_product_sub(m: int, col: int) -> Geometry:
    """The packed figure for the step that eliminates matrix column `col`."""
    lay = PackedLayout(m)
    even = m % 2 == 0
    if col < lay.w:
        return fig6a_packed_sub_first_half(m, col) if even else fig7a_packed_sub_first_half(m, col)
    k = m - 1 - col if even else m - col       # the texel column holding matrix column `col`
    return fig6b_packed_sub_second_half(m, k) if even else fig7b_packed_sub_second_half(m, k)


def outer_product_sub(m: int, k: int, packed: bool) -> Geometry:
    return packed_outer_product_sub(m, k) if packed else fig5_outer_product_sub(m, k)


def to_index_triads(geom: Geometry) -> Geometry:
    """2006 paper, Fig. 5(c): the pair (T0, T1) folded into one triad per vertex.

    In every outer-product subtraction table T0.x = T1.y = k + .5, so the triad
    (T1.x, T0.y, k + .5) carries the same information: the kernel fetches the
    neighbour at triad.zy and the pivot at triad.zx.
    """
    c = geom.corners.copy()
    triad = np.stack([c[:, 5], c[:, 3], c[:, 2]], axis=1)
    c[:, 2:5] = triad
    c[:, 5:8] = 0
    return Geometry(c, geom.triangles, geom.label + " (index triads)", ("T0",))


# ---------------------------------------------------------------- coverage, in numpy

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
