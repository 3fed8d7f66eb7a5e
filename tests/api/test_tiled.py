"""Matrices larger than one texture (issue 17), with a context whose texture
limit is 16 texels, so a 40 x 40 matrix is 3 x 3 tiles: the tiled Cholesky,
solves and A D A^T -- glgpgpu.tiled's algorithms with the papers' kernels
(method="paper") and with the blocked ones -- against float64 numpy within the
single-texture tests' float32 bounds (bounds.py), the global pivot named on
failure, and a request over the GPU memory budget refused with the sizes named."""
import numpy as np
import pytest

import glgpgpu
from glgpgpu.errors import GPUMemoryError
from glgpgpu.dispatch import implementation
from bounds import check_adat, check_factor, residual_ok, spd

SIZES = [17, 31, 32, 33, 40, 47]
METHODS = ["paper", "blocked", "compute"]


@pytest.fixture(scope="module")
def small():
    c = glgpgpu.Context(max_texture_size=16)
    yield c
    c.release()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("m", SIZES)
def test_tiled_cholesky(small, rng, m, method):
    C = spd(m, 1e3, rng)
    L = glgpgpu.cholesky(C, method=method, ctx=small)
    check_factor(L, C)
    assert small.pool.outstanding == 0


@pytest.mark.parametrize("variant", ["outer", "triad", "inner"])
@pytest.mark.parametrize("m", [1, 2, 3, 16, 17, 35])
def test_paper_tiles_factor_each_diagonal_tile_by_the_variant(small, rng, m, variant):
    """method="paper" on tiles: Algorithm 5, its index triads or the inner-product form
    on the diagonal tiles; tiny sizes, one tile, and a last tile of 1 or 3 rows."""
    C = spd(m, 1e2, rng)
    check_factor(glgpgpu.cholesky(C, method="paper", variant=variant, ctx=small), C)


@pytest.mark.parametrize("m", [5, 16])
@pytest.mark.parametrize("variant", ["outer", "triad", "inner"])
def test_paper_one_tile_is_the_single_texture_algorithm(ctx, small, rng, m, variant):
    """A matrix that fits one texture is the one-tile grid: the paper's Cholesky through
    the tile code gives the bits of Algorithm 5 drawn on one texture (paper/cholesky.py)."""
    import importlib

    one_texture = importlib.import_module("glgpgpu.paper.cholesky")      # the module, not the function
    C = spd(m, 1e2, rng).astype(np.float32)
    want = one_texture.cholesky(C, variant=variant, ctx=ctx)
    assert np.array_equal(glgpgpu.cholesky(C, method="paper", variant=variant, ctx=small), want)
    assert np.array_equal(glgpgpu.cholesky(C, method="paper", variant=variant, ctx=ctx), want)


def test_one_tile_is_the_single_texture_result(ctx, rng):
    """Below the limit the tiled code is the single-texture blocked Cholesky: bit for bit
    the same factor whatever the context's limit, while it fits one tile."""
    C = spd(12, 1e2, rng).astype(np.float32)
    small = glgpgpu.Context(max_texture_size=16)
    try:
        a = glgpgpu.cholesky(C, method="blocked", ctx=small)
    finally:
        small.release()
    assert np.array_equal(a, glgpgpu.cholesky(C, method="blocked", ctx=ctx))


@pytest.mark.parametrize("method", METHODS)
def test_failed_pivot_is_named_globally(small, rng, method):
    m = 40
    C = spd(m, 10, rng)
    C[35, :] *= 1e-3                 # row and column 35 (tile 2) lose positive definiteness
    C[:, 35] *= 1e-3
    C[35, 35] = -1.0
    with pytest.raises(np.linalg.LinAlgError, match="35") as err:
        glgpgpu.cholesky(C, method=method, ctx=small)
    assert "40x40 matrix" in str(err.value)          # the matrix's order, not the tiles factored so far
    assert small.pool.outstanding == 0


@pytest.mark.parametrize("method", ["auto"] + METHODS)
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_kernel_matrix_on_tiles_with_every_method(small, rng, method, kernel):
    """N = 40 points on 3 x 3 tiles: K's lower triangle against float64 (float32 bound of
    the Gram matrix, through the kernel function)."""
    X = rng.standard_normal((40, 3))
    K = glgpgpu.kernel_matrix(X, kernel=kernel, method=method, ctx=small).astype(np.float64)
    G = X @ X.T
    ref = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 3) if kernel == "rbf" else (G / 3) ** 3
    scale = (np.abs(X) @ np.abs(X).T)
    assert np.all(np.triu(K, 1) == 0)
    assert np.abs(np.tril(K - ref)).max() <= 32 * 4 * 2.0 ** -24 * scale.max() ** 3
    assert small.pool.outstanding == 0


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("m", [20, 40])
@pytest.mark.parametrize("lower, trans", [(True, False), (True, True), (False, False), (False, True)])
def test_tiled_triangular_solves(small, rng, m, lower, trans, method):
    L = np.linalg.cholesky(spd(m, 1e2, rng)).astype(np.float32)
    T = L if lower else L.T.copy()
    B = rng.standard_normal((m, 3)).astype(np.float32)
    X = glgpgpu.solve_triangular(T, B, lower=lower, trans=trans, method=method, ctx=small)
    op = (T.T if trans else T).astype(np.float64)
    ok, worst = residual_ok(op, X, B)       # |B - T X| <= gamma_{m+1} |T||X|, as one texture
    assert ok, worst


@pytest.mark.parametrize("method", METHODS)
def test_tiled_cho_solve(small, rng, method):
    m = 45
    C = spd(m, 1e2, rng)
    L = glgpgpu.cholesky(C, method=method, ctx=small)
    b = rng.standard_normal(m)
    x = glgpgpu.cho_solve(L, b, method=method, ctx=small)
    assert x.shape == (m,)
    ref = np.linalg.solve(C, b)
    assert np.linalg.norm(x - ref) <= 8 * m * 2.0 ** -24 * np.linalg.cond(C) * np.linalg.norm(ref)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("m, n", [(17, 9), (40, 30), (33, 70)])
def test_tiled_adat(small, rng, m, n, method):
    """m beyond the texture limit (C in tiles) and n beyond it (blocked: 4x, 4 columns a
    texel; A in column chunks); negative weights too."""
    A = rng.random((m, n))
    d2 = rng.uniform(-1, 1, n)
    check_adat(glgpgpu.adat(A, d2, method=method, ctx=small), A, d2)
    assert small.pool.outstanding == 0


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("m", [33, 40])
def test_tiled_adat_of_a_lower_triangular_factor(small, rng, m, method):
    """L L^T, as the thesis's matrices are formed: each row band of L ends in zero
    columns, which the tiled product skips (k_range) -- the result must not change."""
    L = np.tril(rng.uniform(-1, 1, (m, m)))
    L[np.diag_indices(m)] = rng.uniform(0.5, 2, m)
    check_adat(glgpgpu.adat(L, np.ones(m), method=method, ctx=small), L, np.ones(m))


@pytest.mark.parametrize("method", METHODS)
def test_over_the_memory_budget_is_refused(small, rng, method):
    C = spd(40, 10, rng)
    small.memory_budget = 1_000
    try:
        with pytest.raises(GPUMemoryError, match=r"needs about .* GiB .* available .*memory_budget"):
            glgpgpu.cholesky(C, method=method, ctx=small)
        with pytest.raises(GPUMemoryError, match=r"needs about"):
            glgpgpu.solve_triangular(np.tril(C), np.ones(40), method=method, ctx=small)
        with pytest.raises(MemoryError):
            glgpgpu.adat(rng.random((40, 8)), np.ones(8), method=method, ctx=small)
        with pytest.raises(MemoryError):
            glgpgpu.adat(rng.random((40, 8)), np.ones(8), method="blocked", ctx=small)
        with pytest.raises(MemoryError):
            glgpgpu.adat(rng.random((8, 8)), np.ones(8), method="blocked", ctx=small)    # one texture too
    finally:
        small.memory_budget = None
    assert small.pool.outstanding == 0


def test_operands_beyond_one_storage_block_read_through_textures(rng):
    """blocked_adat reads one operand through a storage buffer; one larger than the
    driver's GL_MAX_SHADER_STORAGE_BLOCK_SIZE (128 MiB on llvmpipe) would be read
    short without an error.  Past the limit the texture units are used: same numbers."""
    import dataclasses

    c = glgpgpu.Context()
    try:
        A = rng.random((24, 40)).astype(np.float32)
        d2 = rng.random(40).astype(np.float32)
        with_buffer = glgpgpu.adat(A, d2, method="blocked", ctx=c)
        c.caps = dataclasses.replace(c.caps, max_storage_block=1024)
        assert np.array_equal(glgpgpu.adat(A, d2, method="blocked", ctx=c), with_buffer)
    finally:
        c.release()


@pytest.mark.parametrize("m", [97, 150])
def test_tiled_trsm_in_slabs(rng, m, monkeypatch):
    """The TRSM's two levels: with 16-column slabs in 64-texel tiles every tile below
    the diagonal is solved in four slabs, each followed by the blocked_adat update of
    the later columns (k_range, col_blocks) -- the path the large GPU runs take."""
    from glgpgpu.blocked import tile_kernels

    monkeypatch.setattr(tile_kernels, "TRSM_SLAB", 16)
    c = glgpgpu.Context(max_texture_size=64)
    try:
        C = spd(m, 1e3, rng)
        check_factor(glgpgpu.cholesky(C, method="blocked", ctx=c), C)
        assert c.pool.outstanding == 0
    finally:
        c.release()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("m, n", [(17, 40), (40, 70), (33, 90)])
def test_wls_on_tiled_normal_equations(small, rng, m, n, method):
    """wls unchanged on tiles (NormalSystem chooses tiled.TiledNormalSystem beyond one
    texture; n = 90 also splits A into column chunks): refinement reaches float64
    accuracy, nothing left on the GPU."""
    A = rng.standard_normal((m, n))
    d2 = rng.uniform(0.5, 2, n)
    b = rng.standard_normal(n)
    x, info = glgpgpu.wls(A, d2, b, method=method, ctx=small)
    w = np.sqrt(d2)
    ref = np.linalg.lstsq((A * w).T, w * b, rcond=None)[0]
    assert info.status == "converged"
    assert np.abs(x - ref).max() <= 1e-10 * np.abs(ref).max()
    assert small.pool.outstanding == 0


@pytest.mark.parametrize("name, optimum, method", [("afiro", -464.7531428, "blocked"), ("sc50b", -70.0, "blocked"),
                                                   ("afiro", -464.7531428, "paper")])
def test_lp_on_tiled_normal_equations(small, name, optimum, method):
    """The mixed-precision LP solver on tiles (27 and 50 rows in 16-texel tiles)."""
    from glgpgpu.bench import lp_table3

    res = glgpgpu.solve_mps(lp_table3.data_dir() / f"{name}.mps.gz", method=method, ctx=small)
    assert res.status == "optimal", res.message
    assert abs(res.objective - optimum) <= 1e-7 * abs(optimum)
    assert small.pool.outstanding == 0


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("m", [12, 40])
def test_cholesky_reads_only_the_lower_triangle(small, rng, m, method):
    """Like numpy.linalg.cholesky: the upper triangle of C is never read (here it
    holds large garbage), on one tile and on 3 x 3 tiles."""
    C = spd(m, 1e2, rng)
    junk = np.tril(C) + np.triu(rng.uniform(-1e6, 1e6, (m, m)), 1)
    assert np.array_equal(glgpgpu.cholesky(junk, method=method, ctx=small),
                          glgpgpu.cholesky(np.tril(C) + np.tril(C, -1).T, method=method, ctx=small))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("N, kernel", [(33, "rbf"), (40, "poly"), (47, "linear")])
def test_lssvm_kernel_factor_on_tiles(small, rng, N, kernel, method):
    """The LS-SVM factor beyond one texture: each tile is the kernel function of X_I X_J^T
    (blocked: the epilogue with both bands' norms; paper: the kernel-function pass over
    the Gram tile; 1/C + jitter on diagonal tiles only), factored on the tiles --
    L L^T = K + diag I within the Cholesky bound, and training converges to the
    one-texture answer."""

    from glgpgpu.solvers import lssvm

    impl = implementation(method)
    X = rng.standard_normal((N, 6))
    fac = impl.kernel_factor(X.astype(np.float32), kernel=kernel, gamma=0.3, degree=3, coef0=1.0, diag=0.5,
                            ctx=small)
    try:
        assert type(fac).__name__ == "TiledKernelFactor"
        # against the kernel matrix the GPU forms on one texture (float32 products and
        # kernel function: the formation's own rounding is not the factor's error)
        Kl = impl.kernel_matrix(X.astype(np.float32), kernel=kernel, gamma=0.3, degree=3, coef0=1.0,
                                ctx=glgpgpu.get_context())
        Kx = Kl.astype(np.float64) + np.tril(Kl, -1).T + 0.5 * np.eye(N)
        check_factor(fac.T.read(), Kx)
    finally:
        fac.release()
    Y = np.sign(rng.standard_normal((N, 1)))
    a1, b1, info = lssvm.train(X, Y, kernel=kernel, gamma=0.3, coef0=1.0, C=2.0, method=method, ctx=small)
    a2, b2, _ = lssvm.train(X, Y, kernel=kernel, gamma=0.3, coef0=1.0, C=2.0, method=method)
    assert info["converged"] and len(info["refinement"]) <= 4
    assert np.allclose(a1, a2, rtol=0, atol=1e-9 * np.abs(a2).max()) and np.allclose(b1, b2, rtol=0, atol=1e-9)
    assert small.pool.outstanding == 0


@pytest.mark.parametrize("method", METHODS)
def test_tiled_wls_and_lssvm_refuse_what_does_not_fit(small, rng, method):
    """The normal equations and the LS-SVM factor on tiles check GPU memory first."""

    impl = implementation(method)
    small.memory_budget = 1_000
    try:
        with pytest.raises(GPUMemoryError, match="normal equations"):
            glgpgpu.wls(rng.standard_normal((40, 70)), np.ones(70), np.ones(70), method=method, ctx=small)
        with pytest.raises(GPUMemoryError, match="LS-SVM"):
            impl.kernel_factor(rng.standard_normal((40, 3)).astype(np.float32), kernel="rbf", gamma=1.0, degree=3,
                              coef0=0.0, diag=1.0, ctx=small)
    finally:
        small.memory_budget = None
    assert small.pool.outstanding == 0


def test_backward_solves_keep_their_transposed_tiles(small, rng):
    """L^T solves transpose each off-diagonal tile once and keep it for the next solve
    (wls and the LP solver solve many times per factor); without the memory to keep
    them the transposes are temporaries -- the same answer either way, nothing left."""
    from glgpgpu import tiled
    from glgpgpu.blocked import BlockedTiles

    m = 40                                                     # 3 x 3 tiles of 16
    C = spd(m, 1e2, rng).astype(np.float32)
    B = rng.standard_normal((m, 3)).astype(np.float32)
    T = tiled.TiledLower.upload(small, C, 16, BlockedTiles(small))
    try:
        tiled.factor(T)
        first = tiled.solve_tiled(T, B, (False, True))
        assert sorted(T.transposes) == [(1, 0), (2, 0), (2, 1)]
        kept = dict(T.transposes)
        assert np.array_equal(tiled.solve_tiled(T, B, (False, True)), first)
        assert T.transposes == kept
        T.release()
        small.memory_budget = 1_000
        T = tiled.TiledLower.upload(small, C, 16, BlockedTiles(small))
        tiled.factor(T)
        assert np.array_equal(tiled.solve_tiled(T, B, (False, True)), first) and not T.transposes
    finally:
        small.memory_budget = None
        T.release()
    assert small.pool.outstanding == 0
    x = first.astype(np.float64)
    assert np.linalg.norm(C.astype(np.float64) @ x - B) <= 1e-4 * np.linalg.norm(B) * np.linalg.cond(C)


# -- lower triangles read back by row bands (layouts.transfer.read_rgba_lower) --------

@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 16, 17, 32, 33, 50, 64])
def test_lower_band_read_returns_the_lower_triangle(ctx, rng, m):
    """Bands of 16 rows: the lower triangle comes back exactly and zeros above it,
    though the texture's upper part holds NaN; all three paths (a texture exactly
    m x m, read whole into the result; a slightly padded one, read whole and copied
    by bands; a much larger one, read by bands)."""
    from glgpgpu.gl.transfer import read_rgba_lower, upload_rgba

    M = rng.standard_normal((m, m)).astype(np.float32)
    M[np.triu_indices(m, 1)] = np.nan
    for rows in {-(-m // 4) * 4, -(-m // 16) * 16, -(-m // 4) * 4 + 64}:
        t = upload_rgba(ctx, M, rows, rows)
        try:
            assert np.array_equal(read_rgba_lower(t, m, band=16), np.tril(np.nan_to_num(M))), rows
        finally:
            ctx.pool.give(t)


def test_the_packed_layout_beyond_one_texture_points_to_tiles():
    """The rectangular packed format lives in one texture; past its limit the error names
    the limit and the way on (packed=False: tiles, either method), which then computes
    the same matrix."""
    small = glgpgpu.Context(max_texture_size=16)
    try:
        C = (np.eye(20) * 2).astype(np.float32)
        A = np.ones((20, 3), np.float32)
        for call in (lambda: glgpgpu.cholesky(C, method="paper", packed=True, ctx=small),
                     lambda: glgpgpu.adat(A, np.ones(3, np.float32), method="paper", packed=True, ctx=small),
                     lambda: glgpgpu.solve_triangular(C, np.ones(20), method="paper", packed=True, ctx=small)):
            with pytest.raises(ValueError, match=r"maximum texture size is 16.*packed=False.*tiles"):
                call()
        for method in ("paper", "blocked"):
            assert np.allclose(glgpgpu.cholesky(C, method=method, ctx=small), np.sqrt(2) * np.eye(20))
    finally:
        small.release()


@pytest.mark.parametrize("N, kernel", [(20, "rbf"), (33, "poly"), (40, "linear")])
def test_paper_kernel_matrix_on_tiles(small, rng, N, kernel):
    """glgpgpu.kernel_matrix(method="paper") beyond one texture: the kernel function of
    each Gram tile (both bands' norms).  Every Gram entry is summed by the same kernel
    in the same order as on one texture, so the matrix is the same, bit for bit."""
    X = rng.standard_normal((N, 5)).astype(np.float32)
    kw = dict(kernel=kernel, gamma=0.3, degree=2, coef0=1.0, method="paper")
    tiled_K = glgpgpu.kernel_matrix(X, ctx=small, **kw)
    assert np.array_equal(tiled_K, glgpgpu.kernel_matrix(X, **kw))
    assert (np.triu(tiled_K, 1) == 0).all()
    assert small.pool.outstanding == 0


@pytest.mark.parametrize("m", [17, 33, 40])
def test_paper_tiles_are_algorithm_5_bit_for_bit(ctx, small, rng, m):
    """The paper's tiled Cholesky does each element's updates in Algorithm 5's order:
    SYRK/GEMM by Kernel 2 add -L(i,k) L(j,k) one k per pass, as Kernel 5 subtracts it,
    and the TRSM's substitution divides by the pivot where Kernel 4 normalizes -- so
    3 x 3 tiles give the single texture's bits."""
    C = spd(m, 1e2, rng).astype(np.float32)
    assert np.array_equal(glgpgpu.cholesky(C, method="paper", ctx=small), glgpgpu.cholesky(C, method="paper", ctx=ctx))
