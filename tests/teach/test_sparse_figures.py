"""The sparse QR's pictures on the demo page: what they show is checked without GL
(the rounds respect the tree, one draw's rectangles stay inside their fronts), and the
pictures are written."""
import numpy as np
import pytest

from glgpgpu.bench.matrices import grid
from glgpgpu.symbolic import analyze, colamd_available, front_rounds
from glgpgpu.teach import sparse

#: COLAMD where the system has it (as the product orders), else A's own order: the checks hold for any
ORDER = "colamd" if colamd_available() else "natural"


@pytest.mark.parametrize("n", [2, 3, 7, 12])
def test_rounds_follow_the_tree_and_depths_count_from_the_roots(n):
    an = analyze(grid(n, 2, 0.3), ORDER)
    rounds = front_rounds(an, np.arange(an.nfronts))
    rnd = {f: r for r, fs in enumerate(rounds) for f in fs}
    assert sorted(rnd) == list(range(an.nfronts))
    for f in range(an.nfronts):
        assert all(rnd[c] < rnd[f] for c in an.children[f])
        assert an.children[f] == [] or rnd[f] == 1 + max(rnd[c] for c in an.children[f])
    d = sparse.depths(an)
    assert np.all(d[an.parent < 0] == 0)
    assert all(d[f] == d[an.parent[f]] + 1 for f in range(an.nfronts) if an.parent[f] >= 0)


@pytest.mark.parametrize("step", [0, 1, 4, 9])
def test_one_draw_covers_each_active_front_once_inside_it(step):
    an = analyze(grid(12, 2, 0.3), ORDER)
    busiest = max(front_rounds(an, np.arange(an.nfronts)), key=len)
    atlas, rects = sparse.launch(an, np.array(busiest), step)
    assert [g for g, _ in atlas] == list(busiest)
    x = 0
    for g, fr in atlas:                                   # side by side, no gaps, no overlap
        assert fr.ox == x and (fr.m, fr.n) == (an.fm[g], an.fn[g])
        x += fr.n
    active = [g for g, fr in atlas if step < fr.steps]
    assert [r[4] for r in rects] == active
    where = {g: fr for g, fr in atlas}
    for x0, y0, x1, y1, g in rects:
        fr = where[g]
        assert fr.ox + max(step - 1, 0) == x0 and x1 == fr.ox + fr.n and y0 == 0 and y1 == fr.m


@pytest.mark.parametrize("n", [3, 8, 12])
def test_the_assembly_picture_has_a_point_per_entry_and_the_blocks_rows(n):
    """Every front: a point per nonzero of its rows of A, inside its columns; the
    rectangles cover exactly the rows its children's blocks fill, whole width."""
    from glgpgpu.figures.raster import rasterize
    A = grid(n, 2, 0.3)
    an = analyze(A, ORDER)
    AP = A.tocsr()[:, an.perm]
    for f in range(an.nfronts):
        points, rects = sparse.assembly(an, A, f)
        own = an.source_row[f][an.sources[f] < 0]
        assert len(points.corners) == sum(AP[r].nnz for r in own)
        assert (points.corners[:, 0] < an.fn[f]).all()
        kids = np.flatnonzero(an.sources[f] >= 0)
        if rects is None:
            assert kids.size == 0
            continue
        count, _, _ = rasterize(rects, int(an.fn[f]), int(an.fm[f]))
        assert count.max() == 1 and np.array_equal(np.flatnonzero(count.all(axis=1)), kids)
        assert count.sum() == kids.size * an.fn[f]


def test_the_pictures_are_written(tmp_path):
    pytest.importorskip("matplotlib")
    made = sparse.write(tmp_path, grid(8, 2, 0.3), "a grid")
    assert ORDER in made[0][1]                                # the caption names the order used
    assert [f for f, _ in made] == ["sparse-qr-tree.png", "sparse-qr-staircase.png", "sparse-qr-assembly.png",
                                    "sparse-qr-launch.png"]
    for f, caption in made:
        assert (tmp_path / f).stat().st_size > 5000 and caption
