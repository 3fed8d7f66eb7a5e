"""Cholesky by rasterization (Algorithm 5, Figs. 5-7; 2006 inner-product form).

Bounds (float32, u = 2^-24; Higham, Thm 10.3): the computed factor satisfies
L L^T = C + dC with |dC| <= gamma_{m+1} |L| |L^T| elementwise.  We check exactly
that (in float64, against C rounded to float32), which a wrong pivot, neighbour
or a missed fragment fails by orders of magnitude.  Against numpy's float64
factor we check the forward error within the first-order perturbation bound
||dL||_F / ||L||_F <= c * m * u * kappa_2(C) (Sun 1991), c = 4.
"""
import numpy as np
import pytest

import glgpgpu
from bounds import check_factor, gamma, spd

M_SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 17, 64, 100, 255]
VARIANTS = ["outer", "triad", "inner"]


@pytest.mark.parametrize("m", M_SIZES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_cholesky_both_formats(ctx, rng, m, variant):
    for cond in (1e2, 1e6):
        C = spd(m, cond, rng)
        full = glgpgpu.cholesky(C, variant=variant, method="paper")
        check_factor(full, C)
        packed = glgpgpu.cholesky(C, packed=True, variant=variant, method="paper")
        check_factor(packed, C)
        # Same kernels, same values, same order of operations: the same bits.
        assert np.array_equal(full, packed)


@pytest.mark.parametrize("m", M_SIZES)
def test_blocked_cholesky(ctx, rng, m):
    for cond in (1e2, 1e6):
        C = spd(m, cond, rng)
        check_factor(glgpgpu.cholesky(C, method="blocked"), C)


@pytest.fixture
def small_slab():
    """The blocked Cholesky with slabs of 16 or 32 columns at every order (the
    default, 512 from order 4096 on, only cuts matrices bigger than the tests use),
    through glgpgpu.limits (the documented way to shrink an internal limit)."""
    from glgpgpu import limits
    saved = limits.current()

    def use(W):
        limits.set_limits({"blocked.sizes.SLAB": W or 16, "blocked.sizes.SLAB_FROM": 0 if W else 1 << 30})
    yield use
    limits.set_limits(saved)


@pytest.mark.parametrize("m", [17, 33, 48, 100, 129])
def test_slab_cholesky_equals_panel_cholesky_bitwise(ctx, rng, m, small_slab):
    """slab=W (one blocked_adat product per slab for the later columns) adds the same
    4-term dot products in the same order as the rank-P panel updates, so the two
    forms give the same bits; both pass the backward-error bound."""
    C = spd(m, 1e4, rng)
    small_slab(0)
    ref = glgpgpu.cholesky(C, method="blocked")
    check_factor(ref, C)
    for W in (16, 32, 48):
        small_slab(W)
        assert np.array_equal(glgpgpu.cholesky(C, method="blocked"), ref), W


@pytest.mark.parametrize("m, p", [(40, 0), (40, 15), (40, 16), (40, 33), (70, 64)])
def test_slab_cholesky_names_the_pivot(ctx, rng, m, p, small_slab):
    small_slab(16)
    with pytest.raises(np.linalg.LinAlgError, match=f"pivot {p} ") as info:
        glgpgpu.cholesky(make_indefinite(m, p, rng), method="blocked")
    assert info.value.pivot == p


def test_slab_must_fit_the_panels(ctx, rng):
    from glgpgpu import blocked
    from glgpgpu.gl.transfer import upload_rgba

    tex = upload_rgba(ctx, np.eye(64, dtype=np.float32), 64, 64, "C")
    try:
        with pytest.raises(ValueError, match="slab=24 must be a multiple of P=16"):
            blocked.factor_texture(tex, 64, ctx=ctx, slab=24)
    finally:
        ctx.pool.give(tex)


@pytest.mark.parametrize("m", [5, 16, 17])
def test_triads_equal_pairs_bitwise(ctx, rng, m):
    C = spd(m, 1e3, rng)
    for packed in (False, True):
        assert np.array_equal(glgpgpu.cholesky(C, packed=packed, variant="outer", method="paper"),
                              glgpgpu.cholesky(C, packed=packed, variant="triad"))


def test_well_scaled_integer_factor_is_exact(ctx):
    # L with small integer entries and powers-of-two diagonal: every step exact.
    L = np.array([[2, 0, 0, 0], [1, 4, 0, 0], [-3, 2, 1, 0], [0, 1, -2, 8]], np.float64)
    C = L @ L.T
    for variant in VARIANTS:
        for packed in (False, True):
            assert np.array_equal(glgpgpu.cholesky(C, packed=packed, variant=variant, method="paper"), L)
    assert np.array_equal(glgpgpu.cholesky(C, method="blocked"), L)


def make_indefinite(m, p, rng):
    """SPD except that the Schur complement at pivot p is -1: pivots 0..p-1 succeed."""
    C = spd(m, 10, rng)
    s = C[p, p] - C[p, :p] @ np.linalg.solve(C[:p, :p], C[:p, p]) if p else C[0, 0]
    C[p, p] -= s + 1.0
    return C


@pytest.mark.parametrize("m, p", [(1, 0), (2, 1), (5, 0), (5, 3), (6, 5), (17, 9), (40, 33)])
@pytest.mark.parametrize("variant, packed, method", [
    ("outer", False, "paper"), ("outer", True, "paper"), ("triad", False, "paper"), ("triad", True, "paper"),
    ("inner", False, "paper"), ("inner", True, "paper"), ("outer", False, "blocked"),
    ("outer", False, "compute")])
def test_not_positive_definite_names_the_pivot(ctx, rng, m, p, variant, packed, method):
    C = make_indefinite(m, p, rng)
    with pytest.raises(np.linalg.LinAlgError, match=f"pivot {p} ") as info:
        glgpgpu.cholesky(C, packed=packed, variant=variant, method=method)
    assert info.value.pivot == p


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_zero_pivot_and_zero_matrix(ctx, method):
    with pytest.raises(np.linalg.LinAlgError, match="pivot 0 "):
        glgpgpu.cholesky(np.zeros((3, 3)), method=method)
    C = np.diag([1.0, 0.0, 1.0])
    with pytest.raises(np.linalg.LinAlgError, match="pivot 1 "):
        glgpgpu.cholesky(C, method=method)


@pytest.mark.parametrize("bad, match", [
    (np.ones((2, 3)), "must be square"),
    (np.ones(3), "must be 2-D"),
    (np.array([[1.0, 0], [np.nan, 1]]), "non-finite"),
])
def test_bad_input(ctx, bad, match):
    with pytest.raises(ValueError, match=match):
        glgpgpu.cholesky(bad)


def test_bad_variant(ctx):
    with pytest.raises(ValueError, match="variant"):
        glgpgpu.cholesky(np.eye(2), variant="sideways")


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_reads_only_the_lower_triangle(ctx, rng, method):
    """Junk above the diagonal is neither read nor returned: the factor's upper
    triangle is zero (the blocked path zeroes it on the GPU before the read-back),
    for sizes exactly a texture wide (16, 32) and padded ones (6, 17)."""
    for m in (6, 16, 17, 32):
        C = spd(m, 10, rng)
        junk = np.tril(C) + np.triu(np.full((m, m), 1e3), 1)
        L = glgpgpu.cholesky(junk, method=method)
        assert np.array_equal(L, glgpgpu.cholesky(C, method=method))
        assert not np.triu(L, 1).any()


@pytest.mark.parametrize("packed", [False, True])
def test_chained_assembly_and_factorization_stay_on_gpu(ctx, rng, packed):
    """Form C = A D^2 A^T and factor it without reading C back (the flow the paper times)."""
    m, n = 13, 29
    A = rng.random((m, n)).astype(np.float32)
    d2 = (rng.random(n) + .5).astype(np.float32)
    c_tex = glgpgpu.assemble_texture(A, d2, packed=packed)
    l_tex = glgpgpu.factor_texture(c_tex, m, packed=packed)
    glgpgpu.check_pivots(l_tex, m, packed)
    from glgpgpu.gl.transfer import read_lower
    L = read_lower(l_tex, m, packed)
    ctx.pool.give(l_tex)
    C = glgpgpu.adat(A, d2, packed=packed, method="paper")
    assert np.array_equal(L, glgpgpu.cholesky(C, packed=packed, method="paper"))


def test_kernel_variants_drawn_from_scratch_geometry_stay_apart(ctx, rng):
    """Two define-variants of one kernel, drawn with uploaded (not stored)
    geometry in one process, must each run their own program (regression: the
    scratch vertex arrays were once keyed by the kernel's name)."""
    from glgpgpu import figures as geo
    from glgpgpu.gl.transfer import read_rgba, upload_rgba

    K = ctx.kernels
    mp, P = 64, 16
    for B in (4, 8):
        A = rng.random((mp, mp), dtype=np.float32)
        PN = rng.random((mp, P), dtype=np.float32)
        a = upload_rgba(ctx, np.tril(A), mp, mp)
        pnl = ctx.pool.take(mp, P // 4, components=4)
        pnl.write(PN.reshape(mp, P // 4, 4))
        G = mp // B
        pbuf = K.scratch_buffer("PNL", mp * P * 4)
        pnl.copy_into_buffer(pbuf)                   # the column side, as blocked/cholesky.py reads it
        K.draw("blocked_update", K.grid(G, G), geo.fig5_outer_product_sub(G, P // B - 1),
               {"PNL": pnl}, None, images={"A": a}, defines={"P": P, "B": B}, buffers={1: pbuf})
        got = read_rgba(a, mp, mp)
        want = np.tril(A.astype(np.float64) - PN.astype(np.float64) @ PN.T.astype(np.float64))
        ctx.pool.give(a, pnl)
        low = np.tril(np.ones((mp, mp), bool))
        low[:, :P] = False
        assert np.abs(got - want)[low].max() <= gamma(P + 1) * (np.abs(A) + PN @ PN.T)[low].max()


@pytest.mark.parametrize("m", [1, 2, 5, 16, 33])
def test_lu_comparator(ctx, rng, m):
    """The LU by rasterization that the benchmarks compare against (Galoppo et al.)."""
    from glgpgpu.paper import lu_nopivot

    C = spd(m, 1e2, rng)
    L, U = lu_nopivot(C, ctx=ctx)
    assert (np.triu(L, 1) == 0).all() and (np.diag(L) == 1).all() and (np.tril(U, -1) == 0).all()
    C32 = C.astype(np.float32).astype(np.float64)
    bound = gamma(m + 1) * (np.abs(L.astype(np.float64)) @ np.abs(U.astype(np.float64)))
    assert (np.abs(L.astype(np.float64) @ U - C32) <= bound + 1e-300).all()
