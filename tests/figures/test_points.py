"""Sparse A D A^T by points, without GL: the pairs, where each point lands, what it carries."""
import numpy as np
import scipy.sparse as sp

from glgpgpu.figures.points import column_pairs, normal_points, pair_count
from glgpgpu.layouts.triangle import PackedLayout


def _matrix(rng, m, n):
    """Random sparse A with an empty column, a dense one, two columns of one pattern
    and a duplicate entry (COO duplicates sum, as scipy's do)."""
    A = sp.random(m, n, density=0.2, random_state=rng, format="lil")
    A[:, 0] = 0
    if n > 1:
        A[:, 1] = rng.standard_normal((m, 1))
    if n > 3:
        A[:, 3] = A[:, 2] * 2.0
    coo = A.tocoo()
    rows = np.append(coo.row, 0)
    cols = np.append(coo.col, n - 1)
    vals = np.append(coo.data, 0.5)
    return sp.coo_matrix((vals, (rows, cols)), shape=(m, n))


def test_pairs_sum_to_the_normal_matrix():
    rng = np.random.default_rng(3)
    for m, n in [(1, 1), (1, 4), (2, 1), (3, 5), (6, 7), (17, 40), (64, 10)]:
        A = _matrix(rng, m, n)
        d = rng.random(n)
        i, k, j, a, b = column_pairs(A)
        assert (i >= k).all()
        C = np.zeros((m, m))
        np.add.at(C, (i, k), d[j] * a * b)
        A64 = A.toarray()
        assert np.allclose(C, np.tril((A64 * d) @ A64.T), rtol=1e-13, atol=1e-13)
        c = np.diff(sp.csc_matrix(A).indptr)   # entries as stored (a duplicate counts until summed)
        assert len(i) <= pair_count(A) <= (c * (c + 1) // 2).sum()


def test_points_land_on_their_texels_with_their_data():
    rng = np.random.default_rng(4)
    A = _matrix(rng, 7, 9)
    lay = PackedLayout(7)
    P = normal_points(A, lambda i, k: (*lay.texel(i, k), 0))
    i, k, j, a, b = column_pairs(A)
    t = P.corners
    assert P.primitive == "points" and t.shape == (len(i), 8) and t.dtype == np.float32
    x, y = lay.texel(i, k)
    assert np.array_equal(t[:, 0], x + .5) and np.array_equal(t[:, 1], y + .5)      # texel centres
    assert np.array_equal(t[:, 2], a.astype(np.float32)) and np.array_equal(t[:, 3], b.astype(np.float32))
    assert np.array_equal(t[:, 4], j)
    assert np.array_equal(t[:, 5], i + .5) and np.array_equal(t[:, 6], k + .5) and (t[:, 7] == 0).all()


def test_mirrored_points_fill_diagonal_blocks():
    A = sp.csc_matrix(np.ones((10, 1)))
    P = normal_points(A, lambda i, k: (k // 4, i, k % 4), mirror_block=8)
    rows, cols = P.corners[:, 5] - .5, P.corners[:, 6] - .5
    pairs = set(zip(rows.astype(int), cols.astype(int)))
    assert (2, 5) in pairs and (5, 2) in pairs          # same 8-block: both halves
    assert (9, 2) in pairs and (2, 9) not in pairs      # different blocks: the lower one only
    assert len(P.corners) == 55 + 28 + 1                # 10*11/2, the 8-block's 28 mirrored, the 2-block's 1
    assert set(P.corners[:, 7].astype(int)) == {0, 1, 2, 3}


def test_empty_matrix_has_no_points():
    P = normal_points(sp.csc_matrix((3, 2)), lambda i, k: (k, i, 0))
    assert P.corners.shape == (0, 8) and pair_count(sp.csc_matrix((3, 2))) == 0


def test_numpy_rasterizer_counts_one_fragment_per_point():
    from glgpgpu.figures.raster import rasterize

    A = sp.csc_matrix(np.array([[1.0, 2.0], [3.0, 0.0], [4.0, 5.0]]))     # columns share rows 0 and 2
    P = normal_points(A, lambda i, k: (k, i, 0))
    count, t0, _ = rasterize(P, 3, 3)
    expected = np.zeros((3, 3), int)
    i, k, *_ = column_pairs(A)
    np.add.at(expected, (i, k), 1)
    assert np.array_equal(count, expected) and count[2, 0] == 2 and count.sum() == len(P.corners)
    assert np.isnan(t0[0, 1]).all()                       # above the diagonal: no point
