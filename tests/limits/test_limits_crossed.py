"""Every internal size limit of glgpgpu.limits crossed at small size: the limit made
small through `glgpgpu.limits.override` (what GLGPGPU_LIMITS does for a process), then
the sizes limit - 1, limit and limit + 1 of the dimension it bounds, each against a
float64 reference within tests/bounds.py's float32 bound.  A limit a GPU reaches only at
4,096 columns (the compute QR's chunk partials did, and answered wrong) is reached here
at 100-300.  CROSSED maps each limit to its test; tests/limits/test_limits.py checks
that none is missing."""
import numpy as np
import pytest
import scipy.sparse as sp

import glgpgpu
from bounds import check_adat, check_factor, gamma, residual_ok, spd
from glgpgpu import limits

CROSSED = {}


def crosses(*names):
    def mark(fn):
        for name in names:
            limits.get(name)                  # a typo fails at collection
            CROSSED[name] = fn.__name__
        return fn
    return mark


def around(n):
    return [n - 1, n, n + 1]


def qr_ok(A, Q, R):
    """||Q R - A|| and ||Q^T Q - I|| within Householder QR's float32 bound (Higham, Thm 19.4)."""
    m, n = A.shape
    scale = gamma(8 * max(m, n)) * np.sqrt(n)
    Q64, R64 = Q.astype(np.float64), R.astype(np.float64)
    err = np.linalg.norm(Q64 @ R64 - A) / np.linalg.norm(A)
    orth = np.linalg.norm(Q64.T @ Q64 - np.eye(Q.shape[1]))
    assert err <= scale and orth <= scale, f"{m} x {n}: ||QR - A||/||A|| {err:.3g}, orthogonality {orth:.3g}"


# -- the driver's limits -------------------------------------------------------

@crosses("gl.context.TEXTURE_SIZE")
@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_texture_size(ctx, rng, method):
    """Past the texture limit the matrix goes to tiles (the fragment methods)."""
    lim = 64
    with limits.override({"gl.context.TEXTURE_SIZE": lim}):
        assert ctx.max_texture_size == lim
        for m in around(lim):
            C = spd(m, 1e2, rng)
            L = glgpgpu.cholesky(C, method=method)
            check_factor(L, C)
            B = rng.standard_normal((m, 2))
            X = glgpgpu.solve_triangular(L, B, lower=True, method=method)
            assert residual_ok(L, X, B)[0]
    assert ctx.max_texture_size == ctx.caps.max_texture_size


@crosses("gl.context.STORAGE_BLOCK")
def test_storage_block(ctx, rng):
    """Past one storage block the compute method's matrices go as tiles (a 96 x 96 matrix is
    exactly 96 * 96 * 4 bytes); its QR's buffers are refused by name."""
    lim = 96 * 96 * 4
    with limits.override({"gl.context.STORAGE_BLOCK": lim}):
        assert ctx.max_storage_block == lim
        for m in around(96):
            C = spd(m, 1e2, rng)
            check_factor(glgpgpu.cholesky(C, method="compute"), C)
            A = rng.standard_normal((m, m + 3))
            d2 = rng.random(m + 3) + 0.1
            check_adat(glgpgpu.adat(A, d2, method="compute"), A, d2)
        Q, R = glgpgpu.qr(A[:, :40].T.copy(), method="compute")
        qr_ok(A[:, :40].T, Q, R)
        with pytest.raises(ValueError, match="storage buffer"):
            glgpgpu.qr(rng.standard_normal((97, 97)), method="compute")


@crosses("compute.blas.SPREAD_GROUPS")
def test_spread_groups(ctx):
    """A 1-D grid of more than SPREAD_GROUPS workgroups folds into y: every item still
    reached once (fill), and the normal matrix's float64 sums of the LP (normal_entries)."""
    from glgpgpu.compute import blas
    lim = 5
    with limits.override({"compute.blas.SPREAD_GROUPS": lim}):
        for count in around(lim * 256):
            buf = blas.take(ctx, 1, count + 7, "probe")
            try:
                buf.write(np.full((1, count + 7), -1.0, np.float32))
                ctx.kernels.dispatch("fill", blas.spread(count), buffers={0: buf.buf},
                                     uniforms={"u_count": count, "u_value": 2.0})
                got = buf.read()[0]
            finally:
                buf.give()
            assert (got[:count] == 2.0).all() and (got[count:] == -1.0).all()
        assert blas.spread(lim * 256 + 1)[:2] == (lim, 2)
        res = glgpgpu.linprog(*_lp(60, 200), method="compute", device="gpu")
    ref = glgpgpu.linprog(*_lp(60, 200), method="compute", device="gpu")
    assert res.status == "optimal" and res.objective == pytest.approx(ref.objective, rel=1e-8)


def _lp(m, n):
    rng = np.random.default_rng(m + n)
    A = sp.random(m, n, density=0.2, random_state=rng, format="csr") + sp.eye(m, n, format="csr")
    x0 = rng.random(n)
    return rng.random(n) + 0.1, None, None, A, A @ x0


# -- tiles ---------------------------------------------------------------------

@crosses("layouts.tiles.MAX_ONE_TILE")
@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_max_one_tile(ctx, rng, method):
    lim = 96
    with limits.override({"layouts.tiles.MAX_ONE_TILE": lim, "layouts.tiles.DEFAULT_TILE": 48}):
        for m in around(lim):
            C = spd(m, 1e3, rng)
            check_factor(glgpgpu.cholesky(C, method=method), C)


@crosses("layouts.tiles.DEFAULT_TILE")
@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_default_tile(ctx, rng, method):
    """Orders 2t - 1, 2t, 2t + 1 on tiles of t: a last tile of t - 1 rows, t, and 1."""
    t = 32
    with limits.override({"layouts.tiles.MAX_ONE_TILE": 16, "layouts.tiles.DEFAULT_TILE": t}):
        for m in around(2 * t):
            C = spd(m, 1e3, rng)
            L = glgpgpu.cholesky(C, method=method)
            check_factor(L, C)
            B = rng.standard_normal((m, 3))
            X = glgpgpu.cho_solve(L, B, method=method)
            assert residual_ok(L.astype(np.float64) @ L.T, X, B)[1] <= 4 * m


# -- the compute QR --------------------------------------------------------------

@crosses("compute.qr.PANEL_ROWS")
def test_qr_panel_rows(ctx, rng):
    """Panels of PANEL_ROWS rows or more are factored over workgroups, a dispatch a column."""
    lim = 64
    with limits.override({"compute.qr.PANEL_ROWS": lim}):
        for m in around(lim):
            for n in (40, m, m + 5):
                A = rng.standard_normal((m, n))
                qr_ok(A, *glgpgpu.qr(A, method="compute"))


@crosses("compute.qr.PANEL_CHUNKS")
def test_qr_panel_chunks(ctx, rng):
    """A tall panel's rows in at most PANEL_CHUNKS chunks of 128 (a multiple): 3 chunks of
    128 rows at 384, a fourth row of chunks' worth past it."""
    with limits.override({"compute.qr.PANEL_ROWS": 1, "compute.qr.PANEL_CHUNKS": 3}):
        for m in around(3 * 128):
            A = rng.standard_normal((m, 37))
            qr_ok(A, *glgpgpu.qr(A, method="compute"))


@crosses("compute.qr.APPLY_GROUPS", "compute.qr.CHUNK_ROWS")
@pytest.mark.parametrize("m, n", [(200, 200), (131, 250), (257, 257), (300, 120), (64, 511), (64, 512),
                                  (64, 513), (255, 100), (256, 100), (257, 100)])
def test_qr_apply_chunks(ctx, rng, m, n):
    """The Apply's V^T C summed over chunks of CHUNK_ROWS rows, as many as bring the
    workgroups to APPLY_GROUPS: as the columns right of the panel shrink, each product takes
    more chunks, and the partial sums' buffer must hold the largest (sized by the first
    panel alone it was overrun: 3000 x 3000 gave ||QR - A||/||A|| = 5e-2 on llvmpipe, 4096 x
    4096 gave 0.15 on an H100).  Also Q^T C and Q C by apply_q, whose C has its own width."""
    with limits.override({"compute.qr.APPLY_GROUPS": 8, "compute.qr.CHUNK_ROWS": 16}):
        A = rng.standard_normal((m, n))
        qr_ok(A, *glgpgpu.qr(A, method="compute"))
        F, tau = glgpgpu.qr(A, mode="raw", method="compute")
        C = rng.standard_normal((m, 70))
        QtC = glgpgpu.apply_q(F, tau, C, trans=True, method="compute")
        back = glgpgpu.apply_q(F, tau, QtC, method="compute")
        assert np.linalg.norm(back - C) <= gamma(16 * m) * np.linalg.norm(C) * np.sqrt(m)


@crosses("compute.qr.APPLY_GROUPS", "compute.qr.CHUNK_ROWS")
@pytest.mark.parametrize("groups, rows", [(8, 16), (8, 32), (3, 16)])
def test_qr_apply_chunks_on_staircases(ctx, groups, rows):
    """The sparse QR's fronts stop each panel at the rows its staircase reaches: after the
    chunk size is rounded, fewer rows can take more chunks than the dense panel's (a front
    of ch4-5-b2 needed 10,752 floats of partials where 9,408 were reserved), and the chunks
    are the dense panel's first ones, so the staircase's R is the dense R bit for bit."""
    import glgpgpu.compute.qr as cq
    from glgpgpu.bench.matrices import chessboard, grid
    with limits.override({"compute.qr.APPLY_GROUPS": groups, "compute.qr.CHUNK_ROWS": rows,
                          "compute.fronts.SMALL": 0}):
        for A in (chessboard(4, 5, 2), grid(5, 3)):
            stairs = glgpgpu.sparse_qr(A, method="compute", tol=-1)
            assert _sparse_backward_error(A, stairs) <= 1e-5
            real = cq.rows_reached
            cq.rows_reached = lambda m, end, leftmost: m
            try:
                dense = glgpgpu.sparse_qr(A, method="compute", tol=-1)
            finally:
                cq.rows_reached = real
            assert (stairs.R != dense.R).nnz == 0


# -- the compute method's float64 sums and sparse fronts ---------------------------

@crosses("compute.dense.UPDATE_COLUMNS", "compute.dense.BLOCK_COLUMNS_FROM")
def test_cholesky_block_columns(ctx, rng):
    """The compute float32 Cholesky by block columns of UPDATE_COLUMNS (its panels update
    only their block column, the rest one product of that rank) from the order
    BLOCK_COLUMNS_FROM: orders around one and two block columns with and without them, and
    around the order they start from, each within the float32 factor's bound; and the tiled
    factor, whose tile TRSM takes the same block columns."""
    lim = 128
    with limits.override({"compute.dense.UPDATE_COLUMNS": lim, "compute.dense.BLOCK_COLUMNS_FROM": 1}):
        for m in around(lim) + around(2 * lim):
            A = spd(m, 1e3, rng)
            check_factor(glgpgpu.cholesky(A.astype(np.float32), method="compute"), A)
    with limits.override({"compute.dense.UPDATE_COLUMNS": lim, "compute.dense.BLOCK_COLUMNS_FROM": 200}):
        for m in around(200):
            A = spd(m, 1e3, rng)
            check_factor(glgpgpu.cholesky(A.astype(np.float32), method="compute"), A)
    # the tiles' TRSM goes by block columns too: tiles of order 196, 2 x 2 to 3 x 3 of them
    with limits.override({"compute.dense.UPDATE_COLUMNS": lim, "compute.dense.BLOCK_COLUMNS_FROM": 1,
                          "gl.context.TEXTURE_SIZE": 196}):
        for m in (197, 391, 393, 590):
            A = spd(m, 1e3, rng)
            check_factor(glgpgpu.cholesky(A.astype(np.float32), method="compute"), A)


@crosses("compute.blas.LOWER_BAND_ROWS")
def test_lower_read_back_bands(ctx, rng):
    """The compute Cholesky sends C's lower triangle and reads its factor back by row bands
    of LOWER_BAND_ROWS (band [r0, r1) carries columns 0 .. r1): orders around one and two
    bands, the transfers direct and through a staging ring small enough to cut each band
    into pieces, and the pooled buffer it factors in full of NaN beforehand (above the
    bands it keeps what it held: nothing may read it)."""
    from glgpgpu.compute import blas
    from glgpgpu.gl.staging import Stager

    def poison(m):
        buf = ctx.buffers.take(m, m, "a used buffer")
        blas.fill(ctx, buf, np.nan)
        buf.give()
    lim = 16
    with limits.override({"compute.blas.LOWER_BAND_ROWS": lim}):
        for staged in (False, True):
            saved = ctx.staging, ctx._stager
            if staged:
                ctx.staging, ctx._stager = True, Stager(512)
            try:
                for m in around(lim) + around(2 * lim) + [1, 2, 3, 101]:
                    A = spd(m, 1e3, rng)
                    poison(m)
                    L = glgpgpu.cholesky(A.astype(np.float32), method="compute", ctx=ctx)
                    assert not np.triu(L, 1).any(), f"{m}: nonzero above the diagonal"
                    check_factor(L, A)
            finally:
                if staged:
                    ctx._stager.release()
                ctx.staging, ctx._stager = saved


@crosses("compute.float64.SUM_TERMS")
def test_sum_terms(ctx, rng):
    """An entry of the LP's normal matrix summing more than SUM_TERMS terms is refused (the
    LP then sums on the host); up to it every term is summed."""
    from support import float64_sums_case
    lim = 40
    with limits.override({"compute.float64.SUM_TERMS": lim}):
        for n in around(lim):
            float64_sums_case(ctx, rng, n, summed=n <= lim)


def _sparse_backward_error(A, fac):
    AP = A[:, fac.perm[:fac.rank]].toarray()
    R = fac.R.toarray().astype(np.float64)[:fac.rank, :fac.rank]
    return np.linalg.norm(R.T @ R - AP.T @ AP) / np.linalg.norm(A.toarray()) ** 2


@crosses("compute.fronts.SMALL", "compute.fronts.SMALL_COLS")
def test_small_fronts(ctx):
    """The limits set at the largest front's entries and columns, one under and one over:
    that front factored with the small ones in one dispatch, or by panels."""
    from glgpgpu.bench.matrices import grid
    A = grid(7, 3)
    ref = glgpgpu.sparse_qr(A, method="compute", tol=-1)
    an = ref.analysis
    entries = np.where(an.fm * an.fn <= 6000, an.fm * an.fn, 0)     # SMALL is at most 6144 (shared memory)
    big = int(np.argmax(entries))
    size, cols = int(an.fm[big] * an.fn[big]), int(an.fn[big])
    assert size > 2000 and cols > 20
    for s in around(size):
        for c in around(cols):
            with limits.override({"compute.fronts.SMALL": s, "compute.fronts.SMALL_COLS": c}):
                fac = glgpgpu.sparse_qr(A, method="compute", tol=-1)
            assert _sparse_backward_error(A, fac) <= 1e-5
            assert abs(fac.R - ref.R).max() <= 1e-4 * abs(ref.R).max()


@crosses("solvers.sparse_qr.DENSE_TRIANGLE")
def test_dense_triangle(ctx, rng):
    """R's solves in the refinement go dense up to DENSE_TRIANGLE columns, sparse past it."""
    lim = 30
    with limits.override({"solvers.sparse_qr.DENSE_TRIANGLE": lim}):
        for n in around(lim):
            A = sp.random(3 * n, n, density=0.1, random_state=rng, format="csc") + sp.eye(3 * n, n)
            b = rng.standard_normal(3 * n)
            x, info = glgpgpu.sparse_lstsq(A, b)
            want = np.linalg.lstsq(A.toarray(), b, rcond=None)[0]
            assert info.status == "converged"
            assert np.linalg.norm(x - want) <= 1e-10 * np.linalg.norm(want)


# -- the blocked method ---------------------------------------------------------------

@crosses("blocked.sizes.SLAB_FROM", "blocked.sizes.SLAB")
def test_slabs(ctx, rng):
    """From order SLAB_FROM on the blocked Cholesky updates by slabs of SLAB columns: orders
    (padded to 16) just under, at and over the line, and slab edges inside the matrix."""
    with limits.override({"blocked.sizes.SLAB_FROM": 64, "blocked.sizes.SLAB": 32}):
        for m in (47, 48, 49, 63, 64, 65, 95, 96, 97):
            C = spd(m, 1e3, rng)
            check_factor(glgpgpu.cholesky(C, method="blocked"), C)


@crosses("blocked.tile_kernels.TRSM_SLAB")
def test_trsm_slab(ctx, rng):
    """The tile TRSM's columns go in slabs of TRSM_SLAB: diagonal tiles of 32 (one slab
    exactly), 48 (one and a half) and 16 (under one)."""
    for t in (16, 32, 48):
        with limits.override({"blocked.tile_kernels.TRSM_SLAB": 32, "layouts.tiles.MAX_ONE_TILE": 16,
                              "layouts.tiles.DEFAULT_TILE": t}):
            for m in around(2 * t):
                C = spd(m, 1e3, rng)
                check_factor(glgpgpu.cholesky(C, method="blocked"), C)


@crosses("blocked.adat.GPU_UNPACK_BYTES")
def test_gpu_unpack_bytes(ctx, rng):
    """A packed blocked result is expanded on the GPU up to GPU_UNPACK_BYTES, on the host past it."""
    with limits.override({"blocked.adat.GPU_UNPACK_BYTES": 4 * 64 * 64}):
        for m in around(64):
            A = rng.standard_normal((m, 30))
            d2 = rng.random(30) + 0.1
            check_adat(glgpgpu.adat(A, d2, packed=True, method="blocked"), A, d2)


# -- transfers and the host's pieces ------------------------------------------------------

@crosses("gl.transfer.LOWER_BAND")
def test_lower_band(ctx, rng):
    """A lower triangle read back by bands of LOWER_BAND rows (from a texture much larger
    than the matrix, as a tile holding a smaller one)."""
    from glgpgpu.gl.transfer import read_rgba_lower, upload_rgba
    lim = 16
    M = rng.standard_normal((64, 64)).astype(np.float32)
    tex = upload_rgba(ctx, M, 64, 64, "probe")
    try:
        with limits.override({"gl.transfer.LOWER_BAND": lim}):
            for m in around(lim) + around(2 * lim):
                assert np.array_equal(read_rgba_lower(tex, m), np.tril(M[:m, :m]))
    finally:
        ctx.pool.give(tex)


@crosses("gl.staging.STAGING_BYTES", "gl.staging.THREADED_COPY_FROM")
def test_staging_ring(ctx, rng):
    """Transfers through a staging ring of STAGING_BYTES (halves of it per band), copied by
    several threads from THREADED_COPY_FROM bytes: matrices of one band less, exactly and
    one more than half the ring, bit for bit."""
    from glgpgpu.gl import staging
    if not staging.available(ctx.caps):
        pytest.fail(f"{ctx.caps.renderer} lacks GL 4.5 buffer storage: the staged transfers cannot be tested")
    ring = 8 << 10
    saved = ctx.staging, ctx._stager
    try:
        with limits.override({"gl.staging.STAGING_BYTES": ring, "gl.staging.THREADED_COPY_FROM": ring // 2}):
            ctx.staging, ctx._stager = True, None
            for rows in around(ring // 2 // (16 * 4)):
                M = rng.standard_normal((rows, 16)).astype(np.float32)
                tex = ctx.pool.take(rows, 16, "probe")
                try:
                    tex.write(M)
                    assert np.array_equal(tex.read(), M)
                finally:
                    ctx.pool.give(tex)
            assert ctx.stager.nbytes == ring
    finally:
        if ctx._stager is not None:
            ctx._stager.release()
        ctx.staging, ctx._stager = saved


@crosses("layouts.rgba.BAND_BYTES")
def test_band_bytes(monkeypatch):
    from glgpgpu import parallel
    from glgpgpu.layouts import expand_blocks, packed_block_shape, unpack_blocks
    monkeypatch.setattr(parallel, "workers", lambda: 4)
    with limits.override({"layouts.rgba.BAND_BYTES": 4 * 32 * 32}):
        for m in around(32):
            h, w = packed_block_shape(m, 4)
            P = np.random.default_rng(m).standard_normal((h, w)).astype(np.float32)
            np.testing.assert_array_equal(expand_blocks(P, m, 4), unpack_blocks(P, m, 4))


@crosses("validate.PARALLEL_FROM")
def test_parallel_from():
    """The finite check splits arrays of PARALLEL_FROM elements or more over threads: a NaN at
    either end or at a seam is found either way."""
    from glgpgpu import validate
    lim = 1024
    with limits.override({"validate.PARALLEL_FROM": lim}):
        for size in around(lim):
            for at in (0, size // 2, size - 1):
                x = np.ones(size, np.float32)
                assert validate.finite_magnitude(x) == 1.0
                x[at] = np.nan
                assert validate.finite_magnitude(x) is None


@crosses("methods.points.MAX_POINTS")
@pytest.mark.parametrize("method", ["paper", "blocked"])
def test_max_points(ctx, rng, method):
    """A sparse A D A^T by points up to MAX_POINTS pairs, by the dense assembly past it: the
    same normal matrix within the float32 bound either way."""
    import importlib
    from glgpgpu.figures.points import pair_count
    normal = importlib.import_module(f"glgpgpu.{method}.normal")
    A = sp.random(200, 300, density=0.006, random_state=rng, format="csc")
    points = pair_count(A)
    d = rng.random(300).astype(np.float32)
    ref = np.tril((A.toarray() * d.astype(np.float64)) @ A.toarray().T)
    bound = gamma(300 + 8) * np.tril((abs(A).toarray() * d) @ abs(A).toarray().T)
    kinds = set()
    for lim in around(points):
        with limits.override({"methods.points.MAX_POINTS": lim}):
            system = normal.normal_system(A, ctx=ctx)
        kinds.add(type(system).__name__)
        try:
            if hasattr(system, "form"):
                C = system.form(d).astype(np.float64)
                assert (np.abs(C - ref) <= bound).all()
            else:
                system.factor(d)
        finally:
            system.release()
    assert kinds == {"SparseNormal", "OneTextureNormal"}


@crosses("solvers.lp.mixed.normal_pattern.MAX_PAIRS", "solvers.lp.mixed.normal_pattern.DENSE_PLACES")
def test_normal_pattern_limits(rng):
    """The LP's normal pattern: made while its column pairs are at most MAX_PAIRS (none past
    it), its pairs placed by a dense map up to DENSE_PLACES entries and by search past it --
    the same pattern and sums either way."""
    from glgpgpu.solvers.lp.mixed import normal_pattern
    from glgpgpu.solvers.lp.mixed.normal_pattern import NormalPattern
    A = sp.random(16, 40, density=0.2, random_state=rng, format="csc") + sp.eye(16, 40, format="csc")
    d = 10.0 ** rng.uniform(-4, 4, 40)
    ref = NormalPattern(A)
    for places in around(16 * 16):
        with limits.override({"solvers.lp.mixed.normal_pattern.DENSE_PLACES": places}):
            got = NormalPattern(A)
        for name in ("indices", "indptr", "diagonal_at"):
            assert np.array_equal(getattr(got, name), getattr(ref, name)), (places, name)
        assert np.array_equal(got.data(d), ref.data(d))
    c = np.diff(A.indptr).astype(np.int64)
    c[normal_pattern._long_columns(c, True)] = 0
    pairs = int((c * (c + 1) // 2).sum())
    assert pairs <= normal_pattern.PAIRS_PER_ENTRY * 16 * 17 // 2
    for lim in around(pairs):
        with limits.override({"solvers.lp.mixed.normal_pattern.MAX_PAIRS": lim}):
            assert NormalPattern.usable(A) == (pairs <= lim)


@crosses("solvers.lp.presolve.GROUP_ROWS")
def test_presolve_groups(rng):
    """The presolve's rank work on groups of rows that share no column, packed up to GROUP_ROWS:
    around the blocks' sizes the same rows are kept as with every row in one group, and the
    groups never exceed the limit (or the largest block)."""
    from scipy.linalg import block_diag
    from glgpgpu.solvers.lp import presolve
    blocks = []
    for size in (3, 5, 6, 7):
        B = rng.standard_normal((size, size + 2))
        B[-1] = B[0] - B[1]                              # a dependent row in every block
        blocks.append(B)
    A = block_diag(*blocks)
    b = A @ rng.standard_normal(A.shape[1])
    scale = (np.abs(A).max(), np.abs(b).max())
    with limits.override({"solvers.lp.presolve.GROUP_ROWS": 10 ** 6}):
        whole, ok = presolve._dependent_among(A, b, 1e-9, 1e-9, *scale)
    assert ok and whole.shape[0] == A.shape[0] - 4
    for lim in around(12):
        with limits.override({"solvers.lp.presolve.GROUP_ROWS": lim}):
            groups = presolve._groups(A)
            keep, ok = presolve._dependent_among(A, b, 1e-9, 1e-9, *scale)
        assert len(groups) > 1 and max(g.size for g in groups) <= max(lim, 7)
        assert ok and keep.shape[0] == whole.shape[0] and np.linalg.matrix_rank(A[keep]) == keep.shape[0]


@crosses("compute.kernel_products.TERMS", "compute.kernel_products.MOST_COLUMNS",
         "compute.kernel_products.ROWS_AT_ONCE", "solvers.lssvm.GPU_DECISION_FROM",
         "compute.kernel_products.AIM_GROUPS", "compute.kernel_products.PART_BYTES",
         "compute.kernel_products.REGISTER_FEATURES")
def test_kernel_products(ctx, rng):
    """The LS-SVM's float64 products past each of their limits (column chunks of a loop,
    chunks side by side, partial sums in several passes, points in registers or not,
    right-hand sides per dispatch, prediction rows per pass) equal the host's; decision
    values from the GPU equal the host's."""
    from glgpgpu.compute.kernel_products import KernelProducts
    from glgpgpu.solvers import lssvm
    small = {"compute.kernel_products.TERMS": 40, "compute.kernel_products.MOST_COLUMNS": 2,
             "compute.kernel_products.ROWS_AT_ONCE": 7, "solvers.lssvm.GPU_DECISION_FROM": 1,
             "compute.kernel_products.AIM_GROUPS": 3, "compute.kernel_products.PART_BYTES": 256,
             "compute.kernel_products.REGISTER_FEATURES": 4}
    T = rng.standard_normal((16, 5))
    with limits.override(small):
        for d in around(4):                              # points in registers up to 4 features
            X = rng.standard_normal((23, d))
            for k in around(2):
                Z = rng.standard_normal((23, k))
                gpu = KernelProducts(X, kernel="rbf", gamma=0.3, degree=3, coef0=0.0, ctx=ctx)
                try:
                    Td = rng.standard_normal((16, d))
                    for rows in (None, Td[:6], Td[:7], Td):
                        ref = lssvm.kernel64(X if rows is None else rows, X, "rbf", 0.3, 3, 0.0) @ Z
                        assert np.abs(gpu(Z, rows=rows) - ref).max() <= 1e-13 * np.abs(ref).max()
                finally:
                    gpu.release()
        X = rng.standard_normal((23, 5))
        alpha, b = rng.standard_normal((23, 3)), rng.standard_normal(3)
        got = lssvm.decision_values(T, X, alpha, b, kernel="poly", gamma=0.5, degree=2, coef0=1.0, ctx=ctx)
    want = lssvm.kernel64(T, X, "poly", 0.5, 2, 1.0) @ alpha + b
    assert np.abs(got - want).max() <= 1e-13 * np.abs(want).max()


@crosses("compute.chain.MOST_COLUMNS")
def test_kernel_factor_solves_by_columns_or_by_blocks(ctx, rng, monkeypatch):
    """The LS-SVM's float32 solves take up to CHAIN_MOST_COLUMNS right-hand sides a column at
    a time by the chained solve, more by the blocked one; either way x meets the substitutions'
    bound against the factor on the GPU (three blocks of rows: waits passed on)."""
    from glgpgpu.compute import chain
    from glgpgpu.compute.blas import download
    from glgpgpu.compute.normal import OneBufferKernelFactor
    from bounds import GLSL_DIV_SQRT, U32
    X = rng.standard_normal((150, 3)).astype(np.float32)
    F = OneBufferKernelFactor(X, kernel="rbf", gamma=0.5, degree=3, coef0=0.0, diag=0.1, ctx=ctx)
    chained = []
    real = chain.ChainSolves.solve_columns
    monkeypatch.setattr(chain.ChainSolves, "solve_columns", lambda self, B: chained.append(B.shape[1]) or real(self, B))
    try:
        L = np.tril(download(ctx, F.L)[:150, :150]).astype(np.float64)
        LL = np.abs(L) @ np.abs(L).T
        with limits.override({"compute.chain.MOST_COLUMNS": 2}):
            for k in around(2):
                R = rng.standard_normal((150, k))
                x = F.solve(R)
                assert x.shape == (150, k) and x.dtype == np.float64
                assert np.all(np.abs(R - L @ (L.T @ x)) <= gamma(3 * 150 + 1 + GLSL_DIV_SQRT) * LL @ np.abs(x)
                              + U32 * np.abs(R))
    finally:
        F.release()
    assert chained == [1, 2]
