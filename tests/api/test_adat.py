"""Forming A D^2 A^T on the GPU (Algorithm 3; Figs. 2 and 4) against float64 numpy.

Error bound (float32, u = 2^-24): each entry is a sum of n products d_k a_ik a_jk,
each product rounded twice, so |C_gpu - C| <= gamma_{n+2} (|A| D^2 |A|^T)
elementwise (Higham, Thm 3.5).  A kernel fetching a wrong element (an off-by-one
texture coordinate) is off by O(1) relative and fails.
"""
import numpy as np
import pytest

import glgpgpu
from bounds import check_adat as check

M_SIZES = [1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 64, 127, 128, 255]


def ns_for(m):
    return sorted({max(1, m // 2), m, 2 * m + 1})    # n < m, n = m, n > m


CONFIGS = [("paper", False), ("paper", True), ("blocked", False), ("blocked", True), ("compute", False)]


@pytest.mark.parametrize("m", M_SIZES)
@pytest.mark.parametrize("method, packed", CONFIGS, ids=["full", "packed", "blocked", "blocked-packed", "compute"])
def test_adat_matches_numpy(ctx, rng, m, method, packed):
    for n in ns_for(m):
        A = rng.standard_normal((m, n))
        d2 = rng.random(n) + 0.1
        C = glgpgpu.adat(A, d2, packed=packed, method=method)
        assert C.dtype == np.float32 and C.shape == (m, m)
        check(C, A, d2)
        assert (np.triu(C, 1) == 0).all()


@pytest.mark.parametrize("m", [1, 2, 5, 6, 33])
def test_texture_holds_nothing_outside_the_triangle(ctx, rng, m):
    """Read the raw target: the triangle must not have covered the upper half, and
    the packed texture must equal pack() of the reference."""
    A = rng.random((m, m + 3))
    d2 = rng.random(m + 3)
    tex = glgpgpu.assemble_texture(A.astype(np.float32), d2.astype(np.float32), packed=False)
    raw = tex.read()
    ctx.pool.give(tex)
    assert (np.triu(raw, 1) == 0).all()
    tex = glgpgpu.assemble_texture(A.astype(np.float32), d2.astype(np.float32), packed=True)
    rawp = tex.read()
    ctx.pool.give(tex)
    assert np.array_equal(rawp, glgpgpu.pack(raw))   # same arithmetic, same bits


def test_integer_data_is_exact(ctx, rng):
    A = rng.integers(-3, 4, (9, 12)).astype(np.float32)
    d2 = rng.integers(1, 4, 12).astype(np.float32)
    ref = np.tril((A.astype(np.float64) * d2) @ A.T)
    for method, packed in CONFIGS:
        assert np.array_equal(glgpgpu.adat(A, d2, packed=packed, method=method), ref)


def test_n_above_the_texture_limit(ctx, rng):
    """n > max texture size: A goes up in column blocks into the same C."""
    n = ctx.max_texture_size + 5
    A = rng.random((3, n))
    d2 = rng.random(n)
    for packed in (False, True):
        check(glgpgpu.adat(A, d2, packed=packed, method="paper"), A, d2)
    # blocked storage holds 4 columns per texel: n up to 4x the limit fits one texture
    check(glgpgpu.adat(A, d2, method="blocked"), A, d2)


def test_n_above_a_small_limit(rng):
    small = glgpgpu.Context(max_texture_size=16)
    try:
        A = rng.random((5, 50))
        d2 = rng.random(50)
        for packed in (False, True):
            check(glgpgpu.adat(A, d2, packed=packed, method="paper", ctx=small), A, d2)
    finally:
        small.release()


@pytest.mark.parametrize("bad, match", [
    (dict(A=np.ones(3), d2=np.ones(3)), "A must be 2-D"),
    (dict(A=np.ones((2, 3)), d2=np.ones(4)), "d2 has length 4 but A has 3 columns"),
    (dict(A=np.array([[1.0, np.nan]]), d2=np.ones(2)), "A holds a non-finite"),
    (dict(A=np.ones((2, 2)), d2=[1.0, np.inf]), "d2 holds a non-finite"),
    (dict(A=np.ones((2, 2)), d2=np.ones((2, 2))), "d2 must be a vector"),
    (dict(A=np.ones((0, 2)), d2=np.ones(2)), "A is empty"),
])
def test_bad_input(ctx, bad, match):
    with pytest.raises(ValueError, match=match):
        glgpgpu.adat(**bad)


@pytest.mark.parametrize("m", [1, 2, 3, 8, 9, 30, 67])
def test_blocked_packed_read_back_on_gpu_equals_host_expansion(ctx, monkeypatch, rng, m):
    """The blocked packed result is expanded on the GPU (blocked_unpack.frag) for small
    m and on the host (expand_blocks) for large: both give the same bits, upper zero,
    for adat and the kernel matrix."""
    import importlib

    badat = importlib.import_module("glgpgpu.blocked.adat")

    A = rng.standard_normal((m, m + 5)).astype(np.float32)
    d2 = rng.uniform(0.5, 2, m + 5).astype(np.float32)
    out = {}
    for where, limit in (("gpu", 1 << 40), ("host", 0)):
        monkeypatch.setattr(badat, "GPU_UNPACK_BYTES", limit)
        out[where] = (glgpgpu.adat(A, d2, packed=True, method="blocked"),
                      glgpgpu.kernel_matrix(A, packed=True, method="blocked"))
    for gpu, host in zip(out["gpu"], out["host"]):
        assert np.array_equal(gpu, host) and not np.triu(gpu, 1).any()
    assert np.array_equal(out["gpu"][0], glgpgpu.adat(A, d2, method="blocked"))


def test_blocked_packed_storage_is_half(ctx):
    """The packed layout at block granularity (Fig. 4 drawn on the grid of 8 x 8
    blocks) holds the lower block triangle in about half the texels."""
    from glgpgpu.layouts import packed_block_shape

    for m in (64, 100, 256):
        rows, cols = packed_block_shape(m, 8)
        G = -(-m // 8)
        # exactly the packed format's size on the block grid: G(G+1)/2 blocks of 8 x 8
        assert rows * cols == 64 * G * (G + 1) // 2
        assert rows * cols <= 0.6 * (8 * G) ** 2


def test_blocked_packed_is_refused_where_missing(ctx):
    with pytest.raises(ValueError, match="no packed layout"):
        glgpgpu.cholesky(np.eye(2), packed=True, method="blocked")
    with pytest.raises(ValueError, match="method must be"):
        glgpgpu.adat(np.ones((2, 2)), np.ones(2), method="fast")


def test_other_dtypes_convert(ctx):
    A = np.arange(6, dtype=np.int64).reshape(2, 3)
    C = glgpgpu.adat(A, [1, 1, 1])
    assert C.dtype == np.float32 and C[1, 0] == 0 * 3 + 1 * 4 + 2 * 5


@pytest.mark.parametrize("block", [(8, 8), (16, 8), (8, 4), (16, 4), (12, 4)])
@pytest.mark.parametrize("m", [1, 5, 33, 100])
def test_blocked_block_shapes(ctx, rng, block, m):
    from glgpgpu.blocked import tiled

    A = rng.standard_normal((m, 2 * m + 1))
    d2 = rng.random(2 * m + 1)
    check(tiled.adat(A.astype(np.float32), d2.astype(np.float32), block=block, ctx=ctx), A, d2)


@pytest.mark.parametrize("m, n", [(1, 3), (9, 17), (57, 130)])
def test_columns_through_the_texture_units_give_the_same_bits(ctx, rng, monkeypatch, m, n):
    """An operand larger than one storage block is read through the texture units
    instead of a storage buffer (A_FROM_BUFFER off): the same numbers in the same
    order, so the same bits."""
    import dataclasses

    A = rng.standard_normal((m, n)).astype(np.float32)
    d2 = rng.random(n).astype(np.float32)
    buffered = glgpgpu.adat(A, d2, method="blocked", ctx=ctx)
    monkeypatch.setattr(ctx, "caps", dataclasses.replace(ctx.caps, max_storage_block=0))
    textured = glgpgpu.adat(A, d2, method="blocked", ctx=ctx)
    assert np.array_equal(buffered, textured)
    check(textured, A.astype(np.float64), d2.astype(np.float64))
