"""The papers' vertex tables, as pure functions (no GL), and a numpy rasterizer.

vertices  the Geometry type (corners + triangles), rectangles, texels, column runs
assembly  Figs. 2(a), 2(b), 4 (2008 paper, section 3)
cholesky  Figs. 5, 6(a/b), 7(a/b) and the 2006 paper's index triads
blocks    the lower block triangle of the blocked path
qr        Householder QR by drawing: fronts in an atlas, one rectangle each
fronts    the sparse QR's assembly by drawing: A's entries as points, children's blocks gathered
raster    OpenGL's centre rule in numpy, to test the tables without a GPU

Functions are named after the figures (`fig2b_outer_product_add`, ...) and keep
the figures' vertex numbering: `Geometry.corners[n - 1]` is vertex n.
"""
from .vertices import VERTEX_FLOATS, Geometry, column_run, rectangle, texel_square, vertex_table
from .assembly import (fig2a_column_scaling, fig2b_outer_product_add, fig4_packed_outer_product_add, outer_product_add,
                       outer_product_add_rect)
from .cholesky import (fig5_outer_product_sub, fig6a_packed_sub_first_half, fig6b_packed_sub_second_half,
                       fig7a_packed_sub_first_half, fig7b_packed_sub_second_half, outer_product_sub,
                       packed_outer_product_sub, to_index_triads)
from .blocks import block_band, block_trapezoid, block_triangle
from .raster import on_edge_centres, rasterize
from . import fronts, qr

__all__ = ["VERTEX_FLOATS", "Geometry", "column_run", "rectangle", "texel_square", "vertex_table",
           "fig2a_column_scaling", "fig2b_outer_product_add", "fig4_packed_outer_product_add", "outer_product_add",
           "outer_product_add_rect",
           "fig5_outer_product_sub", "fig6a_packed_sub_first_half", "fig6b_packed_sub_second_half",
           "fig7a_packed_sub_first_half", "fig7b_packed_sub_second_half", "outer_product_sub",
           "packed_outer_product_sub", "to_index_triads", "block_band", "block_trapezoid", "block_triangle",
           "on_edge_centres", "rasterize", "fronts", "qr"]
