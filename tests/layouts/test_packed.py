"""The rectangular packed format: numpy (no GL), and packing by drawing against it."""
import numpy as np
import pytest

import glgpgpu
from glgpgpu import pack, unpack, packed_shape
from glgpgpu.layouts import PackedLayout


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 6, 7, 8, 31, 32, 33])
def test_pack_unpack_roundtrip_and_shape(m):
    L = np.tril(np.arange(1, m * m + 1, dtype=np.float32).reshape(m, m))
    P = pack(L)
    h, w = packed_shape(m)
    assert P.shape == (h, w) == (m + (m + 1) % 2, (m + 1) // 2)
    assert h * w == m * (m + 1) // 2          # every texel used, nothing lost
    assert sorted(P.ravel()) == sorted(L[np.tril_indices(m)])
    assert (unpack(P, m) == L).all()


def test_pack_m6_matches_fig3a():
    # Fig. 3(a) / 4(a): m = 6 packs into 3 x 7 (the caption's 3 x 6 is an erratum).
    lay = PackedLayout(6)
    assert (lay.w, lay.h) == (3, 7)
    # the rotated part: L(5, 5) at the bottom-left texel, L(3, 3) at (2, 2)
    assert lay.texel(5, 5) == (0, 0) and lay.texel(3, 3) == (2, 2) and lay.texel(0, 0) == (0, 1)


def test_pack_rejects_bad_shapes():
    with pytest.raises(ValueError):
        pack(np.zeros((3, 4)))
    with pytest.raises(ValueError):
        unpack(np.zeros((3, 3)), 6)


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 6, 7, 16, 31, 64, 101])
def test_packing_by_drawing_equals_numpy(ctx, m):
    """pack_lower / unpack_lower (one draw each) move exactly what layouts.pack /
    unpack move, upper triangle ignored on the way in and zero on the way out."""
    from glgpgpu.paper import packing

    M = np.random.default_rng(m).standard_normal((m, m)).astype(np.float32)   # upper part: garbage
    P = packing.upload_and_pack(M, True, ctx)
    try:
        assert np.array_equal(P.read(), glgpgpu.pack(np.tril(M)))
        assert np.array_equal(packing.unpack_and_read(P, m, True, ctx=ctx), np.tril(M))
    finally:
        ctx.pool.give(P)
    F = packing.upload_and_pack(M, False, ctx)
    try:
        assert np.array_equal(packing.unpack_and_read(F, m, False, ctx=ctx), np.tril(M))
    finally:
        ctx.pool.give(F)


@pytest.mark.parametrize("B", [1, 2, 4, 8])
@pytest.mark.parametrize("m", [1, 2, 3, 7, 8, 9, 16, 17, 31, 40, 63, 201])
def test_expand_blocks_equals_the_index_reference(m, B, monkeypatch):
    """The slice-copy expansion of the blocked packed format (what the blocked packed
    adat and kernel matrix read back through) equals the index-array reference bit for
    bit, garbage in the unused texels included, whether its bands of block rows run
    in one thread or in several (bands of one block row and empty bands included)."""
    from glgpgpu import parallel
    from glgpgpu.layouts import expand_blocks, packed_block_shape, rgba, unpack_blocks
    monkeypatch.setattr(rgba, "BAND_BYTES", 64)
    h, w = packed_block_shape(m, B)
    P = np.random.default_rng(m * 10 + B).standard_normal((h, w)).astype(np.float32)
    want = unpack_blocks(P, m, B)
    for workers in (1, 3, 8):
        monkeypatch.setattr(parallel, "workers", lambda: workers)
        got = expand_blocks(P, m, B)
        assert got.shape == (m, m) and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="blocked packed storage"):
        expand_blocks(P[:-1], m, B)


@pytest.mark.parametrize("workers", [1, 3, 8])
@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (65, 200), (130, 129)])
def test_fortran_copy_in_bands_is_the_array(monkeypatch, workers, shape):
    """The F-ordered copy the LP's host substitutions take, copied in column bands on
    any number of threads: the same array, F-contiguous (no GL)."""
    from glgpgpu import parallel
    monkeypatch.setattr(parallel, "workers", lambda: workers)
    a = np.random.default_rng(shape[0]).standard_normal(shape).astype(np.float32)
    b = parallel.fortran_copy(a)
    assert b.flags.f_contiguous and b.dtype == a.dtype and np.array_equal(a, b)
    assert parallel.fortran_copy(b) is b
