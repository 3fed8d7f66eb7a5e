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


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_cholesky_steps_respect_every_dependency(count):
    """The tiled Cholesky's schedule (no GL): each tile operation exactly once, and
    each after everything it reads -- POTRF(K) after every update of tile (K, K),
    TRSM(I, K) after POTRF(K) and every update of (I, K), an update of (I, J) by K
    after TRSM(I, K) and TRSM(J, K)."""
    from glgpgpu.layouts.tiles import cholesky_steps

    steps = list(cholesky_steps(count))
    assert len(steps) == len(set(steps))
    where = {s: k for k, s in enumerate(steps)}
    updates = [s for s in steps if s[0] == "update"]
    assert len(updates) == sum((I - K) for I in range(count) for K in range(I)) and all(
        K < J <= I for _, I, J, K in updates)
    for op, I, J, K in steps:
        k = where[op, I, J, K]
        if op == "potrf":
            assert all(where["update", K, K, L] < k for L in range(K))
        elif op == "trsm":
            assert where["potrf", K, K, K] < k and all(where["update", I, K, L] < k for L in range(K))
        else:
            assert where["trsm", I, K, K] < k and where["trsm", J, K, K] < k
