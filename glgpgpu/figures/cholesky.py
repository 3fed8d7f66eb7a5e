"""The figures of section 4 of the 2008 paper (Cholesky): Fig. 5 outer-product
subtraction, Figs. 6 and 7 its packed forms (m even / odd), and the 2006 paper's
index triads (Fig. 5(c))."""
from __future__ import annotations

import numpy as np

from ..layouts.triangle import PackedLayout
from .vertices import Geometry, vertex_table


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


