"""The figures of section 3 of the 2008 paper (assembly of A D^2 A^T):
Fig. 2(a) column scaling, Fig. 2(b) outer-product addition, Fig. 4 its packed form."""
from __future__ import annotations

from ..layouts.triangle import PackedLayout
from .vertices import Geometry, vertex_table


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


def outer_product_add_rect(rows: int, cols: int, k: int, b_row: int = 0) -> Geometry:
    """Fig. 2(b)'s texture coordinates on a whole rows x cols rectangle: Kernel 2 over
    every element, C(j, i) += A(j, k) b(i) -- an off-diagonal tile of a tiled matrix
   ), where the two operands differ and no triangle may be left out.
    A fragment at (x, y) = (column i, row j) gets T0 = (k+.5, j) and T1 = (i, b_row+.5)
    (b_row: which row of a two-row b holds the columns' values); the corners sit on
    texel edges, so every centre is inside exactly once."""
    kk, by = k + .5, b_row + .5
    rows_ = [((0, 0), (kk, 0), (0, by)),
             ((0, rows), (kk, rows), (0, by)),
             ((cols, rows), (kk, rows), (cols, by)),
             ((cols, 0), (kk, 0), (cols, by))]
    return Geometry(vertex_table(rows_), ((0, 1, 2), (0, 2, 3)),
                    f"outer-product addition over a {rows} x {cols} tile, k={k}", ("T0", "T1"))


def outer_product_add(m: int, k: int, packed: bool) -> Geometry:
    return fig4_packed_outer_product_add(m, k) if packed else fig2b_outer_product_add(m, k)


