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


CONFIGS = [("paper", False), ("paper", True), ("blocked", False), ("blocked", True)]


@pytest.mark.parametrize("m", M_SIZES)
@pytest.mark.parametrize("method, packed", CONFIGS, ids=["full", "packed", "blocked", "blocked-packed"])
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
    ctx.kernels.pool.give(tex)
    assert (np.triu(raw, 1) == 0).all()
    tex = glgpgpu.assemble_texture(A.astype(np.float32), d2.astype(np.float32), packed=True)
    rawp = tex.read()
    ctx.kernels.pool.give(tex)
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


@pytest.mark.parametrize("tile", [(8, 8), (16, 8), (8, 4), (16, 4), (12, 4)])
@pytest.mark.parametrize("m", [1, 5, 33, 100])
def test_blocked_tiles(ctx, rng, tile, m):
    from glgpgpu import blocked

    A = rng.standard_normal((m, 2 * m + 1))
    d2 = rng.random(2 * m + 1)
    check(blocked.adat(A.astype(np.float32), d2.astype(np.float32), tile=tile), A, d2)


def test_quad_sharing_only_where_it_gives_the_same_bits(ctx, rng):
    """The quad variant of blocked_adat (2 x 2 fragments swap half their row fetches,
    GL_KHR_shader_subgroup_quad) is used only where the driver has the extension and
    its self-test matches the plain kernel bit for bit.  llvmpipe has no such
    extension: the self-test must refuse it (the shader does not compile) rather
    than fail.  Where it is offered (a GPU), quad and plain agree bit for bit."""
    import importlib
    badat = importlib.import_module("glgpgpu.blocked.adat")      # the module, not the function
    from glgpgpu.blocked.tiles import ADAT_VARIANT, QUAD_VARIANT
    from glgpgpu.layouts.transfer import read_rgba_lower, upload_rgba

    has_ext = "GL_KHR_shader_subgroup" in ctx.gl.extensions
    offered = badat.quad_sharing(ctx)
    # offered exactly where the driver has the extension and the self-test agrees
    assert offered == (has_ext and badat._quad_self_test(ctx))
    if not has_ext:
        assert badat._quad_self_test(ctx) is False          # refused, not an exception
    if not offered:
        # nothing may depend on it: the default (plain) kernel is what runs, and is right
        A = rng.standard_normal((57, 130)).astype(np.float32)
        d2 = rng.random(130).astype(np.float32)
        check(badat.adat(A, d2, ctx=ctx), A.astype(np.float64), d2.astype(np.float64))
        return
    for m, n in ((1, 3), (9, 17), (24, 40), (57, 130)):
        A = rng.standard_normal((m, n)).astype(np.float32)
        mp, n4 = -(-m // 8) * 8, -(-n // 4) * 4
        a_tex = upload_rgba(ctx, A, mp, n4, "A")
        d_tex = upload_rgba(ctx, rng.random((1, n)).astype(np.float32), 1, n4, "d")
        got = []
        for extra in ({}, QUAD_VARIANT):
            c = badat.adat_texture(a_tex, d_tex, m, mp=mp, ctx=ctx, variant={**ADAT_VARIANT, **extra})
            got.append(read_rgba_lower(c, m))
            ctx.kernels.pool.give(c)
        ctx.kernels.pool.give(a_tex, d_tex)
        assert np.array_equal(got[0], got[1]), (m, n)


@pytest.mark.parametrize("bands", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("m, n", [(1, 3), (9, 17), (40, 81), (100, 203)])
def test_banded_upload_gives_the_same_bits(ctx, rng, monkeypatch, m, n, bands):
    """Blocked adat with OVERLAP_FROM set (opt-in) uploads A by row bands and draws C
    band by band (the GPU could compute one band while the next goes up): every block
    is still one fragment's sum over the same data, so C is the same bit for bit."""
    import importlib
    badat = importlib.import_module("glgpgpu.blocked.adat")
    A = rng.standard_normal((m, n)).astype(np.float32)
    d2 = rng.random(n).astype(np.float32)
    monkeypatch.setattr(badat, "OVERLAP_FROM", None)
    whole = glgpgpu.adat(A, d2, method="blocked")
    monkeypatch.setattr(badat, "OVERLAP_FROM", 1)
    monkeypatch.setattr(badat, "OVERLAP_BANDS", bands)
    banded = glgpgpu.adat(A, d2, method="blocked")
    assert np.array_equal(banded, whole)
    check(banded, A.astype(np.float64), d2.astype(np.float64))


@pytest.mark.parametrize("m, n", [(1, 3), (9, 17), (57, 130)])
def test_fma_chain_variant_within_the_bound(ctx, rng, m, n):
    """FMA_CHAIN (an opt-in experiment of benchmarks/gemm_variants.py: fma() into the
    accumulator instead of += dot()) sums in another order -- other bits, the same
    float32 bound."""
    import importlib
    badat = importlib.import_module("glgpgpu.blocked.adat")
    from glgpgpu.blocked.tiles import ADAT_VARIANT
    from glgpgpu.layouts.transfer import read_rgba_lower, upload_rgba

    A = rng.standard_normal((m, n)).astype(np.float32)
    d2 = rng.random(n).astype(np.float32)
    mp, n4 = -(-m // 8) * 8, -(-n // 4) * 4
    a_tex = upload_rgba(ctx, A, mp, n4, "A")
    d_tex = upload_rgba(ctx, d2[None, :], 1, n4, "d")
    c = badat.adat_texture(a_tex, d_tex, m, mp=mp, ctx=ctx, variant={**ADAT_VARIANT, "FMA_CHAIN": 1})
    got = read_rgba_lower(c, m)
    ctx.kernels.pool.give(c, a_tex, d_tex)
    check(got, A.astype(np.float64), d2.astype(np.float64))


@pytest.mark.parametrize("tile, split", [((8, 8), {"COLS_FROM_TEXTURE": 1}), ((8, 8), {"COLS_FROM_TEXTURE": 3}),
                                         ((16, 8), {"ROWS_FROM_BUFFER": 3}), ((16, 4), {"ROWS_FROM_BUFFER": 4})])
@pytest.mark.parametrize("m, n", [(1, 3), (9, 17), (57, 130)])
def test_loads_split_between_pipes_give_the_same_bits(ctx, rng, tile, split, m, n):
    """ROWS_FROM_BUFFER / COLS_FROM_TEXTURE (benchmarks/gemm_variants.py) read some of a
    step's texels through the other load path: the same numbers in the same order."""
    import importlib
    badat = importlib.import_module("glgpgpu.blocked.adat")
    from glgpgpu.blocked.tiles import ADAT_VARIANT
    from glgpgpu.layouts.transfer import read_rgba_lower, upload_rgba

    A = rng.standard_normal((m, n)).astype(np.float32)
    d2 = rng.random(n).astype(np.float32)
    mp, n4 = -(-m // tile[0]) * tile[0], -(-n // 4) * 4
    a_tex = upload_rgba(ctx, A, mp, n4, "A")
    d_tex = upload_rgba(ctx, d2[None, :], 1, n4, "d")
    got = []
    for extra in ({}, split):
        c = badat.adat_texture(a_tex, d_tex, m, mp=mp, tile=tile, ctx=ctx, variant={**ADAT_VARIANT, **extra})
        got.append(read_rgba_lower(c, m))
        ctx.kernels.pool.give(c)
    ctx.kernels.pool.give(a_tex, d_tex)
    assert np.array_equal(got[0], got[1])
    check(got[1], A.astype(np.float64), d2.astype(np.float64))
