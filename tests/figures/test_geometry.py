"""The figures' vertex tables, checked without GL: apply OpenGL's coverage rule in
numpy and check which texels each table covers and what the interpolated texture
coordinates fetch there."""
import numpy as np
import pytest

from glgpgpu import figures as geo
from glgpgpu.layouts import FullLayout, PackedLayout

SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13]


def idx(t):
    """What texelFetch(ivec2(t)) reads: truncation toward zero."""
    return np.trunc(t).astype(int)


def element_map(lay):
    """(h, w) arrays giving the (i, j) element stored at each texel (-1 if none)."""
    I = np.full((lay.height, lay.width), -1)
    J = np.full((lay.height, lay.width), -1)
    for i in range(lay.m):
        for j in range(i + 1):
            x, y = lay.texel(i, j)
            assert I[y, x] == -1, "two elements share a texel"
            I[y, x], J[y, x] = i, j
    return I, J


@pytest.mark.parametrize("m", SIZES)
def test_fig2a_column_scaling(m):
    for k in (0, m // 2, m - 1):
        count, t0, _ = geo.rasterize(geo.fig2a_column_scaling(m, k), m, 1)
        assert (count == 1).all()
        fetch_a = idx(t0[0][:, [1, 0]])          # T0.yx
        fetch_d = idx(t0[0][:, [1, 2]])          # T0.yz
        assert (fetch_a == np.c_[np.full(m, k), np.arange(m)]).all()   # A(i, k): texel (k, i)
        assert (fetch_d == [k, 0]).all()


@pytest.mark.parametrize("m", SIZES)
def test_fig2b_covers_lower_triangle_and_fetches(m):
    for k in (0, m - 1):
        g = geo.fig2b_outer_product_add(m, k)
        assert geo.on_edge_centres(g, m, m) == 0
        count, t0, t1 = geo.rasterize(g, m, m)
        rows, cols = np.mgrid[0:m, 0:m]
        assert (count == (rows >= cols)).all()
        cov = count == 1
        assert (idx(t0[cov][:, :2]) == np.c_[np.full(cov.sum(), k), rows[cov]]).all()   # A(j, k)
        assert (idx(t1[cov][:, :2]) == np.c_[cols[cov], np.zeros(cov.sum(), int)]).all()  # b(i)


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 3), (3, 1), (4, 4), (7, 5), (5, 7), (16, 16)])
def test_outer_product_rectangle_covers_every_texel_and_fetches(rows, cols):
    """An off-diagonal tile's outer-product addition (issue 17): Fig. 2(b)'s coordinates
    on the whole rectangle, every fragment once, A(j, k) and b(i) as in the triangle."""
    for k, b_row in ((0, 0), (2, 0), (1, 1)):
        g = geo.outer_product_add_rect(rows, cols, k, b_row)
        count, t0, t1 = geo.rasterize(g, cols, rows)
        assert (count == 1).all()
        r, c = np.mgrid[0:rows, 0:cols]
        assert (idx(t0[:, :, :2].reshape(-1, 2)) == np.c_[np.full(rows * cols, k), r.ravel()]).all()   # A(j, k)
        assert (idx(t1[:, :, :2].reshape(-1, 2)) == np.c_[c.ravel(), np.full(rows * cols, b_row)]).all()  # b(i)


@pytest.mark.parametrize("m", SIZES)
def test_fig4_packed_assembly_covers_every_texel_once(m):
    lay = PackedLayout(m)
    I, J = element_map(lay)
    assert (I >= 0).all(), "the packed layout leaves a texel unused"
    for k in (0, m - 1):
        g = geo.fig4_packed_outer_product_add(m, k)
        assert geo.on_edge_centres(g, lay.w, lay.h) == 0
        count, t0, t1 = geo.rasterize(g, lay.w, lay.h)
        assert (count == 1).all()
        # each texel fetches A(i, k) and b(j) of the element it holds
        assert (idx(t0[..., 0]) == k).all()
        assert (idx(t0[..., 1]) == I).all()
        assert (idx(t1[..., 0]) == J).all() and (idx(t1[..., 1]) == 0).all()


def test_fig4b_erratum_vertex4():
    # Fig. 4(b) prints T1 = (m, .5) for vertex 4; the table must carry (w, .5).
    m = 7
    g = geo.fig4_packed_outer_product_add(m, 0)
    assert tuple(g.corners[3, 5:7]) == (PackedLayout(m).w, .5)


def _expect_sub(lay, k):
    """Texels updated at step k (elements i >= j > k) and their neighbour / pivot texels."""
    I, J = element_map(lay)
    want = (J > k)
    return I, J, want


def _check_sub(g, lay, k, triad=False):
    assert geo.on_edge_centres(g, lay.width, lay.height) == 0
    count, t0, t1 = geo.rasterize(g, lay.width, lay.height)
    I, J, want = _expect_sub(lay, k)
    assert (count == want).all(), f"k={k}: covered\n{count[::-1]}\nwanted\n{want[::-1].astype(int)}"
    if triad:
        neigh, piv = idx(t0[want][:, [2, 1]]), idx(t0[want][:, [2, 0]])   # .zy, .zx
    else:
        neigh, piv = idx(t0[want][:, :2]), idx(t1[want][:, [1, 0]])       # T0.xy, T1.yx
    nx, ny = lay.texel(I[want], np.full(want.sum(), k))
    px, py = lay.texel(J[want], np.full(want.sum(), k))
    assert (neigh == np.c_[nx, ny]).all()
    assert (piv == np.c_[px, py]).all()


@pytest.mark.parametrize("m", SIZES)
def test_fig5_outer_product_subtraction(m):
    lay = FullLayout(m)
    for k in range(m - 1):
        _check_sub(geo.fig5_outer_product_sub(m, k), lay, k)
        _check_sub(geo.to_index_triads(geo.fig5_outer_product_sub(m, k)), lay, k, triad=True)


@pytest.mark.parametrize("m", SIZES)
def test_figs6_7_packed_outer_product_subtraction(m):
    """Figs. 6(a), 6(b) (even m) and 7(a), 7(b) (odd m), every k."""
    lay = PackedLayout(m)
    for k in range(m - 1):
        g = geo.packed_outer_product_sub(m, k)
        fig = g.label.split()[1]
        first_half = k < lay.w
        assert fig == {(True, True): "6(a)", (True, False): "6(b)",
                       (False, True): "7(a)", (False, False): "7(b)"}[(m % 2 == 0, first_half)]
        _check_sub(g, lay, k)
        _check_sub(geo.to_index_triads(g), lay, k, triad=True)


@pytest.mark.parametrize("m", SIZES)
@pytest.mark.parametrize("packed", [False, True])
def test_column_run_covers_one_column(m, packed):
    lay = PackedLayout(m) if packed else FullLayout(m)
    I, J = element_map(lay)
    for col in range(m):
        for r0 in (col, min(col + 1, m - 1)):
            g = geo.column_run(lay, col, r0, m - 1)
            count, t0, t1 = geo.rasterize(g, lay.width, lay.height)
            want = (J == col) & (I >= r0)
            assert (count == want).all()
            assert (idx(t1[want][:, 0]) == col).all()
            assert (idx(t1[want][:, 1]) == I[want]).all()
            assert (idx(t0[want][:, :2]) == lay.texel(col, col)).all()


def test_shared_edge_tie_rule_covers_once():
    # A 3x1 rectangle: its diagonal passes through the middle texel's centre.
    count, _, _ = geo.rasterize(geo.rectangle(0, 0, 3, 1), 3, 1)
    assert (count == 1).all()


@pytest.mark.parametrize("s", [1, 2, 3, 4])
@pytest.mark.parametrize("gy", [1, 2, 3, 5, 8])
def test_block_triangle_covers_the_lower_blocks(s, gy):
    """method='blocked': the triangle over a grid of (s*BC) x BC blocks covers
    exactly the blocks whose first column is at most their last row."""
    from glgpgpu.figures import block_triangle

    gx = s * gy + 3
    g = block_triangle(gx, gy, s)
    assert geo.on_edge_centres(g, gx, gy) == 0
    count, _, _ = geo.rasterize(g, gx, gy)
    Y, X = np.mgrid[0:gy, 0:gx]
    assert (count == (X <= s * Y + s - 1)).all()


@pytest.mark.parametrize("g", [1, 2, 3, 5, 8, 13])
def test_block_trapezoid_covers_the_slab_part_of_fig5(g):
    """The slab Cholesky's in-slab update: exactly the blocks k < X <= Y < g with
    X < e, once each, no block centre on an edge; e = g is Fig. 5's triangle."""
    from glgpgpu.figures import block_trapezoid

    Y, X = np.mgrid[0:g, 0:g]
    for k in range(-1, g - 1):
        for e in range(k + 2, g + 1):            # e = k + 1 is empty: never drawn
            t = block_trapezoid(g, k, e)
            assert geo.on_edge_centres(t, g, g) == 0
            count, _, _ = geo.rasterize(t, g, g)
            assert (count == ((X > k) & (X <= Y) & (X < e))).all(), (k, e)


@pytest.mark.parametrize("g", [1, 2, 3, 8, 13])
def test_block_bands_tile_the_lower_block_triangle(g):
    """Blocked adat's banded upload draws C's lower block triangle band by band:
    each band exactly its rows' lower blocks, and the bands together cover the
    triangle once."""
    from glgpgpu.figures import block_band

    Y, X = np.mgrid[0:g, 0:g]
    total = np.zeros((g, g), int)
    cuts = sorted({0, g // 3, g // 2, g})
    for y0, y1 in zip(cuts, cuts[1:]):
        b = block_band(g, y0, y1)
        assert geo.on_edge_centres(b, g, g) == 0
        count, _, _ = geo.rasterize(b, g, g)
        assert (count == ((X <= Y) & (Y >= y0) & (Y < y1))).all(), (y0, y1)
        total += count
    assert (total == (X <= Y)).all()
