"""The QR draws' rectangles (figures/qr.py), checked without GL: which texels each
step's draws cover in an atlas of fronts, and that every covered fragment reads
its own front's (offset, m, n) from T0."""
import numpy as np
import pytest

from glgpgpu.figures import qr as fq
from glgpgpu.figures import rasterize

SHAPES = [(5, 3), (3, 5), (9, 9), (1, 1), (2, 4)]


def atlas(shapes):
    (fronts,) = fq.place(shapes, 10 ** 6)
    return [f for _, f in fronts]


def covered(geom, W, H):
    count, t0, _ = rasterize(geom, W, H)
    assert count.max() <= 1, "a texel drawn twice in one pass"
    return count.astype(bool), t0


@pytest.mark.parametrize("chunk", [1, 2, 4, 64])
def test_every_step_covers_exactly_its_fronts(chunk):
    fronts = atlas(SHAPES)
    W, H = sum(f.n for f in fronts), max(f.m for f in fronts)
    nch = max(f.chunks(chunk) for f in fronts)
    for k in range(max(f.steps for f in fronts) + 1):
        g = fq.step_geometries(fronts, k, chunk)
        act = [f for f in fronts if k < f.steps]
        if not act:
            assert g is None
            continue
        dots, sums, house, update = g
        want = {name: np.zeros((h, W), bool) for name, h in (("dots", nch), ("sum", 1), ("house", 1), ("up", H))}
        for f in act:
            xs = slice(f.ox + k, f.ox + f.n)
            c0 = (k + 1) // chunk
            want["dots"][c0:f.chunks(chunk), xs] = True          # chunks holding rows below k
            want["sum"][0, xs] = True
            want["house"][0, f.ox + k] = True
            want["up"][:f.m, f.ox + max(k - 1, 0):f.ox + f.n] = True
        for name, geom, h in (("dots", dots, nch), ("sum", sums, 1), ("house", house, 1), ("up", update, H)):
            if geom is None:
                assert not want[name].any()
                continue
            got, t0 = covered(geom, W, h)
            assert (got == want[name]).all(), (name, k)
            for f in act:                                         # each fragment knows its front
                mine = got.copy()
                mine[:, :f.ox] = False
                mine[:, f.ox + f.n:] = False
                assert np.allclose(t0[mine], [f.ox, f.m, f.n])


def test_fronts_finish_at_their_own_step():
    fronts = atlas(SHAPES)
    assert [f.steps for f in fronts] == [3, 3, 9, 1, 2]
    assert fq.step_geometries(fronts, 9, 4) is None


def test_place_starts_a_new_atlas_at_the_width_limit():
    atl = fq.place([(4, 3), (2, 3), (5, 4), (1, 2)], 7)
    assert [[(i, f.ox) for i, f in a] for a in atl] == [[(0, 0), (1, 3)], [(2, 0), (3, 4)]]
    with pytest.raises(ValueError, match="columns"):
        fq.place([(2, 9)], 7)


def test_apply_tables_cover_all_columns():
    m, p, s, chunk = 7, 3, 5, 2
    for k, (dots, sums, refl) in enumerate(fq.apply_geometries(m, p, s, chunk)):
        got, _ = covered(refl, p, m)
        assert got.all()
        got, _ = covered(sums, p, 1)
        assert got.all()
        c0 = (k + 1) // chunk
        if dots is None:
            assert c0 >= -(-m // chunk)
        else:
            got, _ = covered(dots, p, -(-m // chunk))
            assert got[c0:].all() and not got[:c0].any()


def test_blocked_atlas_rectangles_cover_each_front_with_its_parameters():
    """The blocked QR's atlas (figures/qr.py): every draw's rectangles cover exactly
    each active front's own texels, and carry its (ox, m, chunk) and (f, bw) there --
    the column steps on the panel slots, the panel's end in A and TT, the Apply on the
    columns right of the panel (none for a front whose panel is its last columns)."""
    import numpy as np

    from glgpgpu import figures as geo
    from glgpgpu.figures.qr import (blocked_apply_rects, blocked_column_rects, blocked_panel_end_rects,
                                    place_blocked)

    nb = 8
    (atlas,) = place_blocked([(20, 10), (6, 30), (33, 5)], 64, nb, lambda m: 4 if m < 10 else 8)
    fronts = [fr for _, fr in atlas]
    assert [fr.ox for fr in fronts] == [0, 3, 11] and [fr.f for fr in fronts] == [0, 1, 2]

    def owners(g, w, h):
        count, t0, t1 = geo.rasterize(g, w, h)
        assert count.max() <= 1
        return count, t0, t1

    kb = 0
    dr, house = blocked_column_rects(fronts, kb, 5, nb)            # column 5: fronts with bw > 5
    count, t0, t1 = owners(dr, 3 * nb // 4, 10)
    for fr in fronts:
        bw = fr.bw(kb, nb)
        sl = slice(fr.f * 2, fr.f * 2 + -(-bw // 4))
        region = count[:fr.chunks(), sl]
        assert (region == (1 if bw > 5 else 0)).all()
        if bw > 5:
            assert np.allclose(t0[:fr.chunks(), sl], (fr.ox, fr.m, fr.chunk))
            assert np.allclose(t1[:fr.chunks(), sl], (fr.f, bw, 0))
    assert count.sum() == sum(fr.chunks() * -(-fr.bw(kb, nb) // 4) for fr in fronts if fr.bw(kb, nb) > 5)
    count, _, _ = owners(house, 3 * nb, nb)
    assert count.sum() == sum(fr.bw(kb, nb) for fr in fronts if fr.bw(kb, nb) > 5) and count[5].sum() == count.sum()
    store, tri = blocked_panel_end_rects(fronts, kb, nb)
    count, t0, _ = owners(store, 16, 33)
    for fr in fronts:
        cols = slice(fr.ox, fr.ox + -(-fr.bw(kb, nb) // 4))
        assert (count[kb:fr.m, cols] == 1).all() and count[fr.m:, cols].sum() == 0
    vtc, sums, cvw = blocked_apply_rects(fronts, kb, nb)
    count, t0, t1 = owners(cvw, 16, 9)
    assert count[:, 0:2].sum() == 0                   # front 0: columns 8, 9 (texel 2) only
    assert (count[:5, 2] == 1).all() and count[5:, 2].sum() == 0
    assert (count[:2, 5:11] == 1).all()               # front 1: texels 3 + (8 >> 2) .. 3 + 8, rows 6 / 4
    assert count[:, 11:].sum() == 0                   # front 2: 5 columns, one panel: nothing to apply
    assert np.allclose(t1[0, 5], (1, 6, 0))


def test_a_front_with_a_staircase_draws_each_panel_down_to_its_reach():
    """BlockedFront.reach: panel kb's rectangles (dots, store, apply) stop at the rows
    it reaches, and carry that as the front's m (the kernels' row bound)."""
    from glgpgpu.figures.qr import BlockedFront, blocked_apply_rects, blocked_column_rects, blocked_panel_end_rects
    fr = BlockedFront(0, 200, 96, 0, 16, reach=(64, 130, 200))
    assert fr.at(0, 32).m == 64 and fr.at(32, 32).m == 130 and fr.at(64, 32).m == 200 and fr.at(96, 32) is fr
    dots, _ = blocked_column_rects([fr], 32, 0, 32)
    assert dots.vertices[:, 1].max() == -(-130 // 16)               # chunks of the 130 rows reached
    store, _ = blocked_panel_end_rects([fr], 32, 32)
    assert store.vertices[:, 1].max() == 130
    *_, update = blocked_apply_rects([fr], 0, 32)
    assert update.vertices[:, 1].max() == -(-(64 - 0) // 4)
    assert set(update.vertices[:, 3].round().astype(int)) == {64}    # T0.y = m as the kernels see it


def _joined(parts):
    """Tables joined front by front with `+` (the reference the one-pass tables must equal)."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    g = parts[0]
    for p in parts[1:]:
        g = g + p
    return g


def _same(g, w):
    assert (g is None) == (w is None)
    if g is not None:
        assert np.array_equal(np.asarray(g.corners, float), np.asarray(w.corners, float))
        assert tuple(map(tuple, g.triangles)) == tuple(map(tuple, w.triangles)) and g.names == w.names


def _one_by_one(fronts, kb, kl, nb, which, c_texels=None):
    """The blocked draws' rectangles built front by front and joined with `+` (how the
    tables were built before they were built for all fronts at once): the reference."""
    from glgpgpu.figures.qr import BLOCKED_NAMES
    from glgpgpu.figures.vertices import rectangle

    def rect(fr, x0, y0, x1, y1, bw):
        return rectangle(x0, y0, x1, y1, t0=(fr.ox, fr.m, fr.chunk), t1=(fr.f, bw, 0), names=BLOCKED_NAMES)

    union = _joined
    nbq = nb // 4
    if which == "column":
        act = [fr.at(kb, nb) for fr in fronts if fr.bw(kb, nb) > kl]
        return (union([rect(fr, fr.f * nbq, kb // fr.chunk, fr.f * nbq + -(-fr.bw(kb, nb) // 4), fr.chunks(),
                            fr.bw(kb, nb)) for fr in act]),
                union([rect(fr, fr.f * nb, kl, fr.f * nb + fr.bw(kb, nb), kl + 1, fr.bw(kb, nb)) for fr in act]))
    if which == "end":
        act = [fr.at(kb, nb) for fr in fronts if fr.bw(kb, nb) > 0]
        return (union([rect(fr, fr.ox + kb // 4, kb, fr.ox + kb // 4 + -(-fr.bw(kb, nb) // 4), fr.m, fr.bw(kb, nb))
                       for fr in act]),
                union([rect(fr, fr.f * nb, kb, fr.f * nb + fr.bw(kb, nb), kb + fr.bw(kb, nb), fr.bw(kb, nb))
                       for fr in act]))
    parts = ([], [], [])
    for fr in fronts:
        fr = fr.at(kb, nb)
        bw = fr.bw(kb, nb)
        if bw == 0 or (c_texels is None and kb + bw >= fr.n):
            continue
        q0 = fr.ox if c_texels else fr.ox + ((kb + bw) >> 2)
        q1 = fr.ox + (c_texels or fr.texels)
        parts[0].append(rect(fr, q0, 0, q1, fr.chunks() * nb // 4, bw))
        parts[1].append(rect(fr, q0, 0, q1, nb, bw))
        parts[2].append(rect(fr, q0, 0, q1, -(-(fr.m - kb) // 4), bw))
    return None if not parts[0] else tuple(union(p) for p in parts)


@pytest.mark.parametrize("nb", [4, 8, 32])
def test_blocked_tables_for_all_fronts_at_once_equal_front_by_front(nb):
    """The blocked QR's rectangles, built for every front of an atlas at once from its
    table, are the tables built front by front and joined (corners, triangles, names),
    on an atlas of fronts of sizes 1, 2, 3, odd and even, with and without staircases."""
    from dataclasses import replace
    from glgpgpu.figures.qr import (BlockedFront, blocked_apply_rects, blocked_column_rects, blocked_panel_columns,
                                    blocked_panel_end_rects, front_table)
    rng = np.random.default_rng(nb)
    shapes = [(1, 1), (2, 3), (3, 2), (37, 13), (64, 70), (9, 40), (120, 33)]
    fronts, ox = [], 0
    for f, (m, n) in enumerate(shapes):
        fr = BlockedFront(ox, m, n, f, 16)
        steps = min(m, n)
        if f % 2:                                             # a staircase: rows each panel reaches
            fr = replace(fr, reach=tuple(int(min(m, max(kb + min(nb, steps - kb), rng.integers(1, m + 1))))
                                         for kb in range(0, steps, nb)))
        fronts.append(fr)
        ox += fr.texels
    table = front_table(fronts, nb)
    same = _same
    for kb in range(0, 130, nb):
        panel = blocked_panel_columns(fronts, kb, nb, table=table)      # all its columns at once
        for kl in range(nb):
            got = blocked_column_rects(fronts, kb, kl, nb, table=table)
            want = _one_by_one(fronts, kb, kl, nb, "column")
            for g, w in zip(got or (None, None), want if got else (None, None)):
                same(g, w)
            assert (got is None) == (want[0] is None if want else True)
            at_once = panel[kl] if kl < len(panel) else None
            assert (at_once is None) == (got is None)
            for g, w in zip(at_once or (), got or ()):
                same(g, w)
                assert g.label == w.label
        for g, w in zip(blocked_panel_end_rects(fronts, kb, nb) or (None, None),
                        _one_by_one(fronts, kb, 0, nb, "end") or (None, None)):
            same(g, w)
        for c in (None, 5):
            got = blocked_apply_rects(fronts, kb, nb, c_texels=c)
            want = _one_by_one(fronts, kb, 0, nb, "apply", c)
            assert (got is None) == (want is None)
            for g, w in zip(got or (), want or ()):
                same(g, w)


@pytest.mark.parametrize("chunk", [1, 4, 64])
def test_step_tables_for_all_fronts_at_once_equal_front_by_front(chunk):
    """The paper's step tables, built for every front at once, are dots_rect, sum_rect,
    house_rect and update_rect front by front, joined in order with `+`."""
    fronts = atlas(SHAPES)
    union = _joined
    for k in range(max(f.steps for f in fronts)):
        act = [f for f in fronts if k < f.steps]
        want = (union([fq.dots_rect(f, k, chunk) for f in act]), union([fq.sum_rect(f, k) for f in act]),
                union([fq.house_rect(f, k) for f in act]), union([fq.update_rect(f, k) for f in act]))
        for g, w in zip(fq.step_geometries(fronts, k, chunk), want):
            _same(g, w)
