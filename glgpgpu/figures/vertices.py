"""Vertex tables: the Geometry type, rectangles, single texels and column runs.

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

# Layout of one vertex: position (2), T0 (3), T1 (3) -- gl.programs.VERTEX_FORMAT reads it so.
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
        idx = np.asarray(self.triangles, dtype=np.int64).reshape(-1)
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


def rectangles(x0, y0, x1, y1, t0a, t0b, t1, label: str, names=("T0", "T1")) -> Geometry:
    """Many axis-aligned rectangles in one table (numpy arrays, one entry each):
    T0 = t0a at (x0, y0) and t0b at (x1, y1), interpolated (both (R, 3), each
    component varying along x in its first, along y in its second), T1 = t1 constant.
    The same table as `rectangle` per entry, joined in order by `+`, built in one pass
    (thousands of fronts a draw: joining them one by one is quadratic)."""
    x0, y0, x1, y1 = (np.asarray(v, np.float64) for v in (x0, y0, x1, y1))
    R = x0.shape[0]
    c = np.zeros((R, 4, VERTEX_FLOATS), np.float64)
    xs = np.stack([x0, x0, x1, x1], 1)
    ys = np.stack([y0, y1, y1, y0], 1)
    c[:, :, 0], c[:, :, 1] = xs, ys
    a, b = np.asarray(t0a, np.float64), np.asarray(t0b, np.float64)
    c[:, :, 2] = np.stack([a[:, 0], a[:, 0], b[:, 0], b[:, 0]], 1)      # along x
    c[:, :, 3] = np.stack([a[:, 1], b[:, 1], b[:, 1], a[:, 1]], 1)      # along y
    c[:, :, 4] = a[:, 2:3]
    c[:, :, 5:8] = np.asarray(t1, np.float64)[:, None, :]
    return Geometry(c.reshape(-1, VERTEX_FLOATS), fan_triangles(R), label, tuple(names))


_FAN = np.zeros((0, 3), np.int64)


def fan_triangles(R: int) -> np.ndarray:
    """The triangles (2R, 3) of R rectangles of four corners each, fan 1-2-3, 1-3-4 (Fig. 2(a)):
    an index array, not tuples (tens of thousands of rectangles a draw) -- a read-only view of
    one table, grown when a longer one is asked for."""
    global _FAN
    if 2 * R > _FAN.shape[0]:
        base = 4 * np.arange(max(R, _FAN.shape[0], 1024))[:, None]       # twice the rectangles held
        _FAN = np.concatenate([base + [0, 1, 2], base + [0, 2, 3]], 1).reshape(-1, 3)
        _FAN.flags.writeable = False
    return _FAN[:2 * R]


def rectangles_subset(g: Geometry, keep, label: str, dy: float = 0.0) -> Geometry:
    """The rectangles `keep` (indices, in order) of a `rectangles` table, moved down by dy."""
    c = g.corners.reshape(-1, 4, VERTEX_FLOATS)[keep].reshape(-1, VERTEX_FLOATS)
    if dy:
        c[:, 1] += dy
    return Geometry(c, fan_triangles(len(keep)), label, g.names)


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
