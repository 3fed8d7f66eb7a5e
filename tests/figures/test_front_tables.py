"""The sparse QR's assembly by drawing, without GL (figures/fronts.py): the tables are
rasterized in numpy and the kernels' arithmetic done on what each fragment gets, and
the front must equal the host's assembly (rows of A scattered, the child's block's
upper triangle placed through its maps)."""
import numpy as np
import pytest

from glgpgpu.figures import fronts as geo
from glgpgpu.figures.raster import rasterize


def _gather(geom, W, H, src, cmap):
    """What front_block_gather.frag writes, fragment by fragment (None: not covered)."""
    count, t0, t1 = rasterize(geom, W, H)
    assert count.max() <= 1
    out = {}
    for y, x in zip(*np.nonzero(count)):
        r, px, p = int(t0[y, x, 1]), int(t0[y, x, 0]), int(np.floor(t0[y, x, 2] + .5))
        c0, y0, e = (int(np.floor(v + .5)) for v in t1[y, x])
        v = np.zeros(4, np.float32)
        for c in range(4):
            jc = int(cmap[p, px, c])
            if jc >= r:
                s = c0 + jc
                v[c] = np.ldexp(src[y0 + r, s], e)
        out[(y, x)] = v
    return out


@pytest.mark.parametrize("m,n,k,off", [(1, 1, 1, 0), (2, 3, 1, 1), (3, 5, 2, 3), (9, 14, 4, 2), (17, 30, 7, 0)])
def test_a_childs_block_and_as_rows_land_where_the_host_puts_them(m, n, k, off):
    rng = np.random.default_rng(m * 31 + n)
    ox = 3                                                    # the parent's first texel in the atlas
    cols = min(n, max(1, n - 2))                              # the block's columns
    pcol = np.sort(rng.choice(n, cols, replace=False))        # their parent columns
    at = np.sort(rng.choice(m, min(k, m), replace=False))     # the parent rows the block fills
    k = at.size
    brow = rng.permutation(k)                                 # the block row each takes
    block = rng.standard_normal((k, cols)).astype(np.float32)
    src = np.zeros((k + 2, 4 * 8), np.float32)                # the block waits at row 2, component off
    src[2:2 + k, off:off + cols] = block
    cmap = geo.column_map(pcol, n, 4)[None]
    e = -3
    geom = geo.gather_rects([(0, ox, n, at, brow, off, 2, e)], 4)
    W, H = ox + -(-n // 4) + 2, m + 1
    got = _gather(geom, W, H, src, cmap)
    expect = np.zeros((H, 4 * W), np.float32)
    expect[np.ix_(at, 4 * ox + pcol)] = np.ldexp(np.triu(block), e)[brow]
    assert {y for y, _ in got} == set(at.tolist())            # exactly the block's rows, the parent's width
    assert {x for _, x in got} == set(range(ox, ox + -(-n // 4)))
    for (y, x), v in got.items():
        assert np.array_equal(v, expect[y, 4 * x:4 * x + 4])
    # A's rows: the other rows, by points added into a cleared atlas
    rows = np.setdiff1d(np.arange(m), at)
    rr, cc = np.meshgrid(rows, np.arange(n), indexing="ij")
    keep = rng.random(rr.shape) < .6
    rr, cc = rr[keep], cc[keep]
    vals = rng.standard_normal(rr.size).astype(np.float32)
    pts = geo.entry_points(np.full(rr.size, ox), rr, cc, vals, 4)
    atlas = np.zeros((H, W, 4), np.float32)
    for c in pts.corners:
        x, y = int(c[0]), int(c[1])
        atlas[y, x, int(c[3])] += c[2]
    host = np.zeros((H, 4 * W), np.float32)
    host[rr, 4 * ox + cc] = vals
    assert np.array_equal(atlas.reshape(H, 4 * W), host)


def test_runs_split_where_either_row_sequence_jumps():
    s, ln = geo.runs([0, 1, 2, 5, 6, 7], [3, 4, 5, 6, 0, 1])
    assert s.tolist() == [0, 3, 4] and ln.tolist() == [3, 1, 2]
    s, ln = geo.runs([], [])
    assert s.size == ln.size == 0


@pytest.mark.parametrize("limit", [4, 7, 16, 64])
def test_shelves_place_blocks_without_overlap_inside_the_limit(limit):
    rng = np.random.default_rng(limit)
    sizes = [(int(rng.integers(1, limit + 1)), int(rng.integers(1, limit + 1))) for _ in range(40)]
    places, dims = geo.shelves(sizes, limit)
    used = [np.zeros((h, w), int) for w, h in dims]
    for (w, h), (t, x, y) in zip(sizes, places):
        assert x + w <= dims[t][0] <= limit and y + h <= dims[t][1] <= limit
        used[t][y:y + h, x:x + w] += 1
    assert max(u.max() for u in used) == 1
    with pytest.raises(ValueError, match="does not fit"):
        geo.shelves([(limit + 1, 1)], limit)


def test_copy_rects_move_whole_texels():
    geom = geo.copy_rects([(5, 7, 0, 2, 3, 2)])
    count, t0, _ = rasterize(geom, 4, 5)
    assert count.sum() == 6 and count[2:4, 0:3].all()
    assert np.array_equal(np.floor(t0[2:4, 0:3, :2]), np.stack(np.meshgrid([5, 6, 7], [7, 8]), -1))
