"""The tile grid of matrices beyond one texture (layouts/tiles.py), without GL."""
import pytest

from glgpgpu.layouts.tiles import TileGrid, tile_order


@pytest.mark.parametrize("m, t", [(1, 16), (16, 16), (17, 16), (47, 16), (100, 32)])
def test_spans_cover_the_matrix_once(m, t):
    g = TileGrid(m, t)
    rows = [i for I in range(g.count) for i in range(g.span(I).start, g.span(I).stop)]
    assert rows == list(range(m))
    assert all(0 < g.size(I) <= t for I in range(g.count))
    assert g.lower() == [(I, J) for I in range(g.count) for J in range(I + 1)]
    assert g.lower_bytes() == g.count * (g.count + 1) // 2 * t * t * 4


def test_tile_order_is_one_tile_when_it_fits():
    assert tile_order(5, 16) == 16 and tile_order(16, 16) == 16
    assert tile_order(17, 16) == 16                    # two tiles of the limit
    assert tile_order(100, 32768) == 112               # one tile, padded to the panel width
    assert tile_order(40000, 32768) == 8192            # the default tile order
    assert tile_order(40000, 4100) == 4096             # the limit, rounded down to the panel width
    assert tile_order(20000, 32768) == 8192            # past MAX_ONE_TILE: tiled though one texture would hold it
