"""method="compute": the kernels at the tile and block edges (the product's 128 x 128
tiles, the Cholesky's 64-wide blocks, the QR's 32-wide panels), against float64 numpy
within the float32 bounds of tests/bounds.py; what a driver without compute shaders says."""
import dataclasses

import numpy as np
import pytest
import scipy.linalg as sla

import glgpgpu
from bounds import GLSL_DIV_SQRT, U32, U64, check_adat, check_factor, gamma, gamma_u, spd
from glgpgpu.compute import blas, dense, qr
from glgpgpu.gl.buffers import leading

EDGES = [1, 2, 3, 63, 64, 65, 127, 128, 129, 200, 256]


@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (3, 5, 2), (127, 129, 17), (128, 128, 16), (129, 65, 33),
                                     (200, 7, 300)])
@pytest.mark.parametrize("trans_b", [False, True])
def test_gemm_general_with_offsets(ctx, rng, m, n, k, trans_b):
    """C[c_at:] = 2 C + 0.5 A[a_at:] B^T (or B held k x n), every other entry untouched."""
    A = rng.standard_normal((m + 2, k + 3)).astype(np.float32)
    B = (rng.standard_normal((k + 1, n + 2)) if trans_b else rng.standard_normal((n + 1, k + 2))).astype(np.float32)
    C0 = rng.standard_normal((m + 1, n + 4)).astype(np.float32)
    bufs = [blas.upload(ctx, X) for X in (A, B, C0)]
    try:
        blas.gemm(ctx, bufs[2], bufs[0], bufs[1], m=m, n=n, k=k, alpha=0.5, beta=2.0, a_at=(2, 3), b_at=(1, 2) if not
                  trans_b else (1, 2), c_at=(1, 4), trans_b=trans_b)
        got = bufs[2].read()
    finally:
        for b in bufs:
            b.give()
    Bk = B[1:1 + k, 2:2 + n].T if trans_b else B[1:1 + n, 2:2 + k]
    Ak = A[2:2 + m, 3:3 + k].astype(np.float64)
    want = C0.astype(np.float64).copy()
    want[1:, 4:] = 2 * want[1:, 4:] + 0.5 * Ak @ Bk.astype(np.float64).T
    bound = gamma(k + 2) * (2 * np.abs(C0[1:, 4:]) + 0.5 * np.abs(Ak) @ np.abs(Bk.astype(np.float64)).T)
    assert (np.abs(got[1:, 4:] - want[1:, 4:]) <= bound + 1e-30).all()
    assert np.array_equal(got[0], C0[0]) and np.array_equal(got[:, :4], C0[:, :4])


@pytest.mark.parametrize("m", EDGES)
def test_adat_cholesky_solve_at_the_edges(ctx, rng, m):
    A = rng.standard_normal((m, m + 3))
    d2 = rng.random(m + 3) + 0.1
    check_adat(glgpgpu.adat(A, d2, method="compute"), A, d2)
    C = spd(m, 1e2, rng)
    L = glgpgpu.cholesky(C, method="compute")
    check_factor(L, C)
    assert not np.triu(L, 1).any()
    B = rng.standard_normal((m, 3))
    X = glgpgpu.cho_solve(L, B, method="compute")
    L64 = L.astype(np.float64)
    assert np.allclose(L64 @ (L64.T @ X), B, atol=1e-3 * np.abs(B).max() * m)


@pytest.mark.parametrize("m, n", [(1, 1), (2, 3), (3, 2), (31, 33), (33, 31), (64, 64), (65, 97), (130, 40), (256, 60),
                                  (40, 130)])
def test_qr_matches_lapack(ctx, rng, m, n):
    A = rng.standard_normal((m, n))
    F, tau = glgpgpu.qr(A, mode="raw", method="compute")
    (F0, tau0), _ = sla.qr(A.astype(np.float32).astype(np.float64), mode="raw")
    k = min(m, n)
    scale = gamma(4 * max(m, n)) * np.abs(A).max() * np.sqrt(max(m, n))
    assert np.abs(np.triu(F[:k]) - np.triu(F0[:k])).max() <= 10 * scale     # the same signs as geqrf
    assert np.abs(tau - tau0[:k]).max() <= 1e-4
    Q, R = glgpgpu.qr(A, method="compute")
    assert np.abs(Q.astype(np.float64) @ R - A).max() <= 10 * scale


@pytest.mark.parametrize("m, n", [(1, 1), (2, 3), (3, 2), (257, 33), (700, 70), (513, 96)])
def test_tall_panels_over_many_workgroups_match_lapack(ctx, rng, m, n, monkeypatch):
    """The panel spread over chunks of rows (a dispatch per column) and the Apply's
    products summed over chunks: forced here on small matrices, several chunks each."""
    monkeypatch.setattr(qr, "PANEL_ROWS", 1)
    monkeypatch.setattr(qr, "PANEL_CHUNKS", 3)
    A = rng.standard_normal((m, n))
    F, tau = glgpgpu.qr(A, mode="raw", method="compute")
    (F0, tau0), _ = sla.qr(A.astype(np.float32).astype(np.float64), mode="raw")
    k = min(m, n)
    scale = gamma(4 * max(m, n)) * np.abs(A).max() * np.sqrt(max(m, n))
    assert np.abs(np.triu(F[:k]) - np.triu(F0[:k])).max() <= 10 * scale
    assert np.abs(tau - tau0[:k]).max() <= 1e-4
    Q, R = glgpgpu.qr(A, method="compute")
    assert np.abs(Q.astype(np.float64) @ R - A).max() <= 10 * scale


def test_chunks_cover_the_rows():
    for rows in (1, 2, 255, 256, 257, 4096, 49_340):
        for groups in (1, 7, 600):
            per, nch = qr._chunks(rows, groups)
            assert per % 16 == 0 and (nch - 1) * per < rows <= nch * per
            assert nch <= max(1, -(-qr.APPLY_GROUPS // groups))


def test_rbf_from_distances_does_not_cancel(ctx, rng):
    """Offset data: |x|^2 + |y|^2 - 2 x.y cancels in float32, the compute kernel sums
    (x - y)^2 itself: within the bound of the centred problem."""
    X = 1000.0 + rng.standard_normal((40, 3)) * 1e-2
    K = glgpgpu.kernel_matrix(X, kernel="rbf", gamma=50.0, method="compute")
    X32 = X.astype(np.float32).astype(np.float64)
    D2 = ((X32[:, None, :] - X32[None, :, :]) ** 2).sum(-1)
    want = np.tril(np.exp(-50.0 * D2))
    assert np.abs(K - want).max() <= 1e-3


def test_not_positive_definite_names_the_pivot_beyond_the_first_block(ctx, rng):
    C = spd(150, 1e2, rng)
    C[100, 100] = -1e3
    with pytest.raises(np.linalg.LinAlgError, match="pivot 100 ") as info:
        glgpgpu.cholesky(C, method="compute")
    assert info.value.pivot == 100


def test_without_compute_shaders_the_error_names_what_is_missing(ctx, monkeypatch):
    monkeypatch.setattr(ctx, "caps", dataclasses.replace(ctx.caps, compute_shaders=False))
    with pytest.raises(RuntimeError, match="OpenGL 4.3 compute shaders"):
        glgpgpu.cholesky(np.eye(3), method="compute", ctx=ctx)


def test_over_the_storage_block_the_error_names_the_limit(ctx, monkeypatch):
    monkeypatch.setattr(ctx, "caps", dataclasses.replace(ctx.caps, max_storage_block=1024))
    with pytest.raises(ValueError, match="storage buffer"):
        glgpgpu.cholesky(np.eye(40), method="compute", ctx=ctx)


def test_a_wide_a_goes_in_column_chunks_that_fit_the_storage_block(rng):
    """On tiles each band of A (tile rows x columns) is one storage buffer: its columns
    are bounded by the block's bytes, not only by the texture width (fit2p's 3000 x
    13525 A was refused on llvmpipe's 128 MiB).  32 KiB: 64-row tiles, 120-column
    bands, so n = 300 is three chunks."""
    c = glgpgpu.Context()
    try:
        c.caps = dataclasses.replace(c.caps, max_storage_block=32 * 1024)
        m, n = 97, 300
        A = rng.standard_normal((m, n))
        d2 = rng.uniform(0.5, 2, n)
        b = rng.standard_normal(n)
        x, info = glgpgpu.wls(A, d2, b, method="compute", ctx=c)
        w = np.sqrt(d2)
        ref = np.linalg.lstsq((A * w).T, w * b, rcond=None)[0]
        assert info.status == "converged"
        assert np.abs(x - ref).max() <= 1e-10 * np.abs(ref).max()
        assert c.buffers.outstanding == 0
    finally:
        c.release()


def test_buffers_go_back_to_the_pool(ctx, rng):
    before = ctx.buffers.outstanding
    C = spd(70, 1e2, rng)
    glgpgpu.cholesky(C, method="compute")
    glgpgpu.qr(rng.standard_normal((70, 40)), method="compute")
    glgpgpu.lstsq(rng.standard_normal((70, 40)), rng.standard_normal(70), method="compute")
    with pytest.raises(np.linalg.LinAlgError):
        glgpgpu.cholesky(-C, method="compute")
    assert ctx.buffers.outstanding == before


@pytest.mark.parametrize("m", [1, 2, 3, 16, 17, 33, 50])
def test_lower_by_columns_reads_back_the_lower_triangle_column_major(ctx, rng, m):
    """What the mixed LP solver's host substitutions take: tril(L), F-ordered, the
    upper part zero even where the buffer held something (transposed on the GPU)."""
    full = rng.standard_normal((m, m)).astype(np.float32)
    before = ctx.buffers.outstanding
    buf = blas.upload(ctx, full, "L")
    try:
        got = blas.lower_by_columns(ctx, buf, m)
    finally:
        buf.give()
    assert got.flags.f_contiguous and got.dtype == np.float32
    assert np.array_equal(got, np.tril(full))
    assert ctx.buffers.outstanding == before


def test_leading_dimension():
    assert [leading(c) for c in (1, 4, 5, 8, 9)] == [4, 4, 8, 8, 12]


def test_dispatches_are_recorded(ctx, rng):
    with ctx.kernels.recording() as rec:
        dense.cholesky(spd(130, 1e2, rng).astype(np.float32), ctx=ctx)
    kernels = [k for k, _ in rec.dispatches]
    assert kernels.count("potrf") == 3 and kernels.count("trsm_rows") == 2 and kernels.count("gemm_rows") == 2


def test_dispatch_steps_is_a_dispatch_a_value(ctx):
    """dispatch_steps binds once and sets only the step's uniform: each value's launch runs,
    in order, with the rest of the uniforms as given (scale.comp: 3 * 2 * 0.5 * 4 = 12)."""
    M = blas.upload(ctx, np.full((5, 7), 3.0, np.float32))
    try:
        with ctx.kernels.recording() as rec:
            ctx.kernels.dispatch_steps("scale", (1, 1), "u_s", [2.0, 0.5, 4.0],
                                       uniforms={"u_rows": 5, "u_cols": 6, "u_ld": M.ld}, buffers={0: M.buf})
            ctx.kernels.dispatch_steps("scale", (1, 1), "u_s", [], uniforms={}, buffers={0: M.buf})
        out = blas.download(ctx, M)
    finally:
        M.give()
    assert [k for k, _ in rec.dispatches] == ["scale"] * 3
    assert (out[:, :6] == 12.0).all() and (out[:, 6] == 3.0).all()


def test_panels_of_qr(ctx):
    assert qr._panels(70) == [(0, 32), (32, 32), (64, 6)]


@pytest.mark.parametrize("m, n", [(1, 1), (2, 3), (17, 40), (65, 130)])
def test_rows_scaled_on_the_gpu_round_once_like_the_host(ctx, rng, m, n):
    """The LP's S A formed on the GPU from A's float32 pairs (hi + lo) and s's: each
    entry the float64 product rounded to float32, within an ulp; the normal matrix and
    its factor then match the host-scaled ones to float32 rounding."""
    from glgpgpu.compute.normal import OneBufferNormal as NormalSystem
    A64 = rng.standard_normal((m, n)) * 10.0 ** rng.integers(-3, 4, (m, n))
    s64 = 10.0 ** rng.uniform(-6, 6, m)
    A32 = A64.astype(np.float32)
    ns = NormalSystem(A32, ctx=ctx)
    try:
        ns.keep_low_part((A64 - A32.astype(np.float64)).astype(np.float32))
        got = blas.download(ctx, ns._scaled(s64))[:m, :n]
        want = (A64 * s64[:, None]).astype(np.float32)
        ulps = np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))
        assert ulps.max() <= 1 and np.mean(ulps == 0) >= 0.99
    finally:
        ns.release()
    B = rng.standard_normal((m, n + 2 * m)).astype(np.float32)
    d = rng.uniform(0.5, 2.0, n + 2 * m).astype(np.float32)
    s = rng.uniform(0.5, 2.0, m)
    one, two = NormalSystem(B, ctx=ctx), NormalSystem((B * s[:, None].astype(np.float32)), ctx=ctx)
    try:
        one.factor(d, row_scale=s.astype(np.float32))
        two.factor(d)
        L1, L2 = one.lower(), two.lower()
        assert not np.triu(L1, 1).any() and not np.triu(L2, 1).any()          # zeroed on the GPU
        assert np.abs(L1 - L2).max() <= 1e-4 * np.abs(L2).max()
    finally:
        one.release()
        two.release()


@pytest.mark.parametrize("m, n", [(1, 2), (3, 5), (17, 40)])
def test_normal_system_uploads_a_sparse_a_at_its_first_factor(ctx, rng, m, n):
    """A sparse A (the LP's) waits on the host until the first float32 factor needs it, low parts
    given before or after that upload; the factor is then the dense A's own.  The LP's float64
    factor needs none of it: a system never factored in float32 uploads nothing."""
    import scipy.sparse as sp
    from glgpgpu.compute.normal import OneBufferNormal as NormalSystem
    A64 = sp.random(m, n, density=0.3, random_state=rng, format="csr") + sp.eye(m, n, format="csr")
    A32 = A64.astype(np.float32)
    low = (A64 - A32.astype(np.float64)).astype(np.float32)
    d = rng.uniform(0.5, 2.0, n).astype(np.float32)
    s = rng.uniform(0.5, 2.0, m)
    lazy, eager = NormalSystem(A32, ctx=ctx), NormalSystem(A32.toarray(), ctx=ctx)
    idle = NormalSystem(A32, ctx=ctx)
    try:
        lazy.keep_low_part(low)
        idle.keep_low_part(low)
        assert lazy.A is None and lazy.A_lo is None
        lazy.factor(d, row_scale=s)
        eager.factor(d, row_scale=s.astype(np.float32))
        eager.keep_low_part(low.toarray())                        # after the upload: uploaded at once
        assert lazy.A is not None and lazy.A_lo is not None and eager.A_lo is not None
        assert np.array_equal(blas.download(ctx, lazy.A)[:m, :n], A32.toarray())
        assert np.array_equal(blas.download(ctx, lazy.A_lo)[:m, :n], low.toarray())
        assert np.abs(lazy.lower() - eager.lower()).max() <= 1e-4 * np.abs(eager.lower()).max()
        assert idle.A is None and idle.A_lo is None
    finally:
        for ns in (lazy, eager, idle):
            ns.release()


# -- the float64 factor (compute/float64.py: the same kernels with FP64 defined)

@pytest.mark.parametrize("m", [1, 2, 3, 64, 65, 130, 197, 581])     # 581: a solve step over 2+ workgroups
def test_float64_factor_meets_the_float64_bounds(ctx, rng, m):
    """|M - L L^T| <= gamma_{m+1} |L| |L|^T and the solve's |b - M x| <=
    gamma_{3m+1} |L| |L|^T |x| (Higham, Theorems 10.3 and 10.4) with float64's
    unit roundoff: a float32 factor misses these by eight orders of magnitude.
    M is given sparse (its lower triangle is scattered on the GPU) and ill-conditioned."""
    from scipy import sparse
    from bounds import gamma64
    from glgpgpu.compute.float64 import Float64Cholesky
    B = rng.standard_normal((m, m)) * (rng.random((m, m)) < 0.1) + 1e-3 * np.eye(m)
    C = B @ B.T                                                # sparse rows: entries absent
    before = ctx.buffers.outstanding
    F = Float64Cholesky(ctx, sparse.csr_matrix(C))
    try:
        L = np.tril(F.L.get(ctx))
        LL = np.abs(L) @ np.abs(L).T
        assert np.all(np.abs(C - L @ L.T) <= gamma64(m + 1) * LL)
        assert np.array_equal(F.pivots(), np.diag(L))
        b = rng.standard_normal(m)
        x = F.solve(b)
        assert x.dtype == np.float64
        assert np.all(np.abs(b - C @ x) <= gamma64(3 * m + 1) * LL @ np.abs(x))
    finally:
        F.release()
    assert ctx.buffers.outstanding == before


@pytest.mark.parametrize("m", [1, 3, 70])
def test_float64_factor_of_a_dense_m_is_the_sparse_ones(ctx, rng, m):
    """A dense M (the LP's when A D A^T is dense) is uploaded as it is, upper part and
    all: the factor and the solve are bit for bit those of the same M given sparse."""
    from scipy import sparse
    from glgpgpu.compute.float64 import Float64Cholesky
    C = spd(m, 1e6, rng)
    b = rng.standard_normal(m)
    out = []
    for given in (C, sparse.csr_matrix(C)):
        F = Float64Cholesky(ctx, given)
        try:
            out.append((np.tril(F.L.get(ctx)), F.solve(b)))
        finally:
            F.release()
    assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1])


@pytest.mark.parametrize("m", [1, 2, 3, 70, 131])
def test_float64_factor_on_kept_places_is_the_sparse_ones(ctx, rng, m):
    """The LP's pattern route: the places of M's lower triangle uploaded once (EntryPlaces)
    and only the values given per factorization -- the factor and the solve bit for bit
    those of the same M given sparse, twice on the same places, every buffer back."""
    from scipy import sparse
    from glgpgpu.compute.float64 import EntryPlaces, Float64Cholesky
    low = sparse.tril(sparse.csr_matrix(spd(m, 1e5, rng) * (rng.random((m, m)) < 0.3) + m * np.eye(m))).tocoo()
    C = (low + sparse.tril(low, -1).T).tocsr()
    b = rng.standard_normal(m)
    before = ctx.buffers.outstanding
    places = EntryPlaces(ctx, m, low.row, low.col)
    out = []
    try:
        for given in (C, low.data, low.data):
            F = Float64Cholesky(ctx, given, None if given is C else places)
            try:
                out.append((np.tril(F.L.get(ctx)), F.solve(b)))
            finally:
                F.release()
    finally:
        places.give()
    assert ctx.buffers.outstanding == before
    for L, x in out[1:]:
        assert np.array_equal(L, out[0][0]) and np.array_equal(x, out[0][1])


@pytest.mark.parametrize("m,n", [(1, 3), (2, 1), (3, 7), (70, 150), (131, 290)])
def test_normal_entries_summed_on_the_gpu_are_the_hosts_bit_for_bit(ctx, rng, m, n):
    """M = A D A^T + delta I scaled and shifted, its entries summed on the GPU from d through the
    pattern's W kept there (EntryPlaces(sums=), normal_entries.comp): the factor bit for bit the one
    of the host's sums (NormalPattern's data, scale, shift), in the analysis's order too."""
    from scipy import sparse
    from glgpgpu.compute.float64 import EntryPlaces, Float64Cholesky, NormalValues
    from glgpgpu.solvers.lp.mixed.normal_pattern import NormalPattern
    from glgpgpu.solvers.sparse_cholesky import CholeskyAnalysis
    A = sparse.random(m, n, density=min(1.0, 3.0 / m), random_state=rng, format="lil")
    A[:, 0] = rng.standard_normal((m, 1))                 # a dense column
    A = sparse.csc_matrix(A)
    d = 10.0 ** rng.uniform(-6, 6, n)
    delta, shift = 1e-8, 1e-12
    P = NormalPattern(A, border=False)
    data = P.data(d, delta)
    inv = 1.0 / np.sqrt(np.maximum(data[P.diagonal_at], 1e-300))
    P.scale(data, inv)
    data[P.diagonal_at] += shift
    before = ctx.buffers.outstanding
    for order in (None, CholeskyAnalysis.of(A)):
        out = []
        for sums in (None, P.sums):
            places = EntryPlaces(ctx, m, P.col_of, P.row_of, order, sums=sums)
            try:
                assert places.sums == (sums is not None)
                F = Float64Cholesky(ctx, data if sums is None else NormalValues(d, inv, delta, shift), places)
                try:
                    out.append(np.tril(F.L.get(ctx)))
                finally:
                    F.release()
            finally:
                places.give()
        assert np.array_equal(out[0], out[1])
    assert ctx.buffers.outstanding == before


@pytest.mark.parametrize("m,n,density", [(3, 5, 0.4), (200, 420, 0.006), (320, 0, 0)])
def test_float64_factor_on_a_tile_pattern_is_the_dense_ones_bit_for_bit(ctx, rng, m, n, density):
    """Places with an order (the analysis's permutation and tile pattern): the factor skips the
    tiles the order leaves zero, in its substitutions, updates and solves -- and is bit for bit
    the dense factor of the permuted M, its solve the dense solve permuted back."""
    from scipy import sparse
    from glgpgpu.compute.float64 import EntryPlaces, Float64Cholesky
    from glgpgpu.solvers.sparse_cholesky import CholeskyAnalysis
    from glgpgpu.symbolic import colamd_available
    from support import staircase
    if n:
        A = sparse.random(m, n, density=density, random_state=rng, format="csr") + sparse.eye(m, n, format="csr")
    else:                                                 # four staircase blocks of 80 rows: zero tiles
        A = staircase(4, 80, rng)
    n = A.shape[1]
    M = (A.multiply(10.0 ** rng.uniform(-2, 2, n)[None, :]) @ A.T).tocsr() + 1e-6 * sparse.eye(m, format="csr")
    an = CholeskyAnalysis(A, "colamd" if colamd_available() else "natural")
    low = sparse.tril(M).tocoo()
    M = (low + sparse.tril(low, -1).T).tocsr()          # symmetric bit for bit (the product's is not)
    b = rng.standard_normal(m)
    before = ctx.buffers.outstanding
    places = EntryPlaces(ctx, m, low.row, low.col, order=an)
    try:
        F = Float64Cholesky(ctx, low.data, places)
        G = Float64Cholesky(ctx, sparse.csr_matrix(M[an.perm][:, an.perm]))
        try:
            assert np.array_equal(np.tril(F.L.get(ctx)), np.tril(G.L.get(ctx)))
            y = G.solve(b[an.perm])
            x = F.solve(b)
            assert np.array_equal(x[an.perm], y)
            assert np.linalg.norm(b - M @ x) <= 1e-10 * np.linalg.norm(b)
            if m == 320 and colamd_available():
                t = places.tiles.blocks
                assert places.tiles.updates < sum((t - k) * (t - k - 1) // 2 for k in range(t))
        finally:
            F.release()
            G.release()
    finally:
        places.give()
    assert ctx.buffers.outstanding == before


def test_entry_places_refuse_what_is_not_the_lower_triangle(ctx):
    from glgpgpu.compute.float64 import EntryPlaces, Float64Cholesky
    with pytest.raises(ValueError, match="lower triangle"):
        EntryPlaces(ctx, 3, [0], [1])                     # (0, 1): above the diagonal
    with pytest.raises(ValueError, match="lower triangle"):
        EntryPlaces(ctx, 3, [3], [0])                     # row 3 of an order-3 matrix
    places = EntryPlaces(ctx, 3, [0, 1, 2], [0, 1, 2])
    try:
        with pytest.raises(ValueError, match="expected 3 entry values"):
            Float64Cholesky(ctx, np.ones(2), places)
    finally:
        places.give()


@pytest.mark.parametrize("m", [65, 130, 197])
def test_float64_trailing_update_is_gemms_bit_for_bit(ctx, rng, m, monkeypatch):
    """syrk64.comp (the float64 factor's trailing update, in tiles that suit float64)
    sums each entry as gemm.comp does: the factor is the same bit for bit."""
    from scipy import sparse
    from glgpgpu.compute import dense
    from glgpgpu.compute.float64 import Float64Cholesky
    C = sparse.csr_matrix(spd(m, 1e4, rng))
    out = []
    for by_gemm in (False, True):
        if by_gemm:
            monkeypatch.setattr(dense, "syrk64", lambda ctx, A, r0, k0, nb, n: blas.gemm(
                ctx, A, A, A, m=n, n=n, k=nb, alpha=-1.0, beta=1.0, a_at=(r0, k0), b_at=(r0, k0), c_at=(r0, r0),
                lower=True, fp64=True))
        F = Float64Cholesky(ctx, C)
        try:
            out.append(np.tril(F.L.get(ctx)))
        finally:
            F.release()
    assert np.array_equal(out[0], out[1])


def test_float64_factor_names_a_matrix_that_is_not_positive_definite(ctx):
    from scipy import sparse
    from glgpgpu.compute.float64 import Float64Cholesky
    from glgpgpu.errors import NotPositiveDefiniteError
    M = np.eye(70)
    M[66, 66] = -1.0
    before = ctx.buffers.outstanding
    with pytest.raises(NotPositiveDefiniteError, match="pivot 66 .* in float64") as info:
        Float64Cholesky(ctx, sparse.csr_matrix(M))
    assert info.value.pivot == 66 and ctx.buffers.outstanding == before
    with pytest.raises(ValueError, match="square"):
        Float64Cholesky(ctx, sparse.csr_matrix(np.ones((3, 4))))


def test_float64_factor_over_the_storage_block_says_so(ctx, monkeypatch):
    from scipy import sparse
    from glgpgpu.compute.float64 import Float64Cholesky
    monkeypatch.setattr(ctx, "caps", dataclasses.replace(ctx.caps, max_storage_block=4096))
    with pytest.raises(ValueError, match="float64.*storage buffer"):
        Float64Cholesky(ctx, sparse.eye(40, format="csr"))


def test_float64_div_and_sqrt_are_doubles_to_an_ulp(ctx, rng):
    """real.glsl's DIV and SQRT in float64 (float's reciprocal / inverse square root, then
    Newton steps in fma): within an ulp or so of numpy's correctly rounded a / b and sqrt(s),
    across double's range -- beyond float's too, where GLSL's own operators take over --
    and exact at 0, with NaN for a negative square root."""
    from glgpgpu.gl.programs import shader_path
    real = shader_path("real.glsl").read_text()
    src = ("#version 430\n#define FP64 1\n#define NB 64\n" + real +
           "layout(local_size_x = 64) in;\n"
           "layout(std430, binding = 0) buffer O { double o[]; };\n"
           "layout(std430, binding = 1) readonly buffer V { double v[]; };\n"
           "uniform int u_n;\n"
           "void main() { int i = int(gl_GlobalInvocationID.x); if (i >= u_n) return;\n"
           "  o[2 * i] = DIV(v[2 * i], v[2 * i + 1]); o[2 * i + 1] = SQRT(v[2 * i + 1]); }\n")
    n = 4096
    a = rng.standard_normal(n) * 10.0 ** rng.uniform(-250, 250, n)
    b = np.abs(rng.standard_normal(n)) * 10.0 ** rng.uniform(-300, 300, n)
    b[:4] = [1.0, 4.0, 1e-320, 1e300]                      # exact, a perfect square, subnormal, beyond float
    cs = ctx.gl.compute_shader(src)
    out, inp = ctx.gl.buffer(np.zeros(2 * n)), ctx.gl.buffer(np.column_stack([a, b]).ravel())
    try:
        out.bind_to_storage_buffer(0)
        inp.bind_to_storage_buffer(1)
        cs["u_n"] = n
        cs.run(n // 64, 1, 1)
        ctx.gl.finish()
        got = np.frombuffer(out.read(), np.float64).reshape(n, 2)
    finally:
        out.release()
        inp.release()
        cs.release()
    with np.errstate(over="ignore", under="ignore"):
        quotient, root = a / b, np.sqrt(b)
    ok = np.isfinite(quotient) & (np.abs(quotient) > 1e-300)
    assert np.all(np.abs(got[ok, 0] - quotient[ok]) <= 2 * np.spacing(np.abs(quotient[ok])))
    assert np.all(np.abs(got[:, 1] - root) <= 2 * np.spacing(root))
    assert got[1, 1] == 2.0 and got[0, 0] == a[0]


@pytest.mark.parametrize("software", [True, False])
def test_float64_solve_is_right_whether_its_waits_hold_or_give_up(ctx, rng, monkeypatch, software):
    """trsv_chain.comp's blocks wait on each other's flags; llvmpipe ends a loop after 65,535
    iterations, so a wait can give up and a block go on unsolved.  A software renderer solves a
    block a dispatch from the start (nothing waits); elsewhere a wait that gave up says so and the
    solve is made again a block a dispatch -- forced here by a raised give-up flag.  Either way
    the answer is the stepped one, bit for bit, and meets the float64 bound."""
    from scipy import sparse
    from bounds import gamma64
    from glgpgpu.compute.float64 import Float64Cholesky
    from glgpgpu.gl.context import Capabilities
    m = 300                                               # five blocks
    C = spd(m, 1e4, rng)
    b = rng.standard_normal(m)
    F = Float64Cholesky(ctx, sparse.csr_matrix(C))
    try:
        ref = F.solve(b)                                  # the software renderer's way: a block a dispatch
        monkeypatch.setattr(Capabilities, "software", property(lambda self: software))
        blocks = -(-m // 64)
        if not software:
            # every flag already at the first epoch's value (each wait passes at once, blocks go on
            # unsolved: a wrong answer) and the give-up flag raised, as after llvmpipe's cut loops
            flags = np.ones((1, 2 + blocks), np.int32)
            flags[0, 0] = 0
            F.solves._sync.write(flags.view(np.float32))
            F.solves._tickets = F.solves._epoch = 0
        x = F.solve(b)
        assert np.array_equal(x, ref)
        L = np.tril(F.L.get(ctx))
        LL = np.abs(L) @ np.abs(L).T
        assert np.all(np.abs(b - C @ x) <= gamma64(3 * m + 1) * LL @ np.abs(x))
    finally:
        F.release()


def test_normal_entries_refuse_an_entry_past_a_software_loop_limit(ctx, rng):
    """A diagonal entry sums as many terms as its row of A has nonzeros; llvmpipe ends a shader
    loop after 65,535 iterations, nested ones too (a test of nesting lost the rest, silently).
    EntryPlaces refuses such sums, naming why, and the LP sums M on the host then."""
    from glgpgpu.compute.float64 import SUM_TERMS
    from support import float64_sums_case
    for n, ok in ((SUM_TERMS, True), (SUM_TERMS + 1, False)):
        float64_sums_case(ctx, rng, n, summed=ok)


def test_normal_values_need_places_with_their_sums(ctx):
    """NormalValues (the GPU sums M from d) are refused on places made without sums, and with
    d or the scaling of the wrong length -- by name, before anything runs."""
    from scipy import sparse
    from glgpgpu.compute.float64 import EntryPlaces, Float64Cholesky, NormalValues
    from glgpgpu.solvers.lp.mixed.normal_pattern import NormalPattern
    P = NormalPattern(sparse.csc_matrix(np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]])), border=False)
    before = ctx.buffers.outstanding
    plain = EntryPlaces(ctx, 2, P.col_of, P.row_of)
    summed = EntryPlaces(ctx, 2, P.col_of, P.row_of, sums=P.sums)
    try:
        with pytest.raises(ValueError, match="with their sums"):
            Float64Cholesky(ctx, NormalValues(np.ones(3), np.ones(2)), plain)
        with pytest.raises(ValueError, match=r"d \(3,\)"):
            Float64Cholesky(ctx, NormalValues(np.ones(4), np.ones(2)), summed)
        with pytest.raises(ValueError, match="rows for"):
            EntryPlaces(ctx, 2, P.col_of, P.row_of, sums=P.sums[:-1])
        F = Float64Cholesky(ctx, NormalValues(np.ones(3), np.ones(2)), summed)
        F.release()
    finally:
        plain.give()
        summed.give()
    assert ctx.buffers.outstanding == before


@pytest.mark.parametrize("lower", [False, True])
def test_row_tiles_give_the_k_major_kernels_bits(ctx, rng, lower):
    """gemm_rows.comp (row-major shared tiles, unmasked loads, a masked tail slice) sums every
    entry as gemm.comp does -- fma over k in order from zero -- so the two give the same bits:
    sums of 1 to 33 terms (the tail slice alone, a full slice, both), rows and columns past a
    tile, scaled columns, squared distances with the kernel function and its diagonal, alpha and
    beta, slices inside a larger matrix."""
    from glgpgpu.compute import blas
    cases = [(1, 1, 1), (3, 5, 7), (16, 16, 16), (129, 130, 17), (200, 200, 33), (131, 131, 32), (64, 64, 15)]
    rbf = {"u_kind": 2, "u_gamma": 0.3, "u_coef0": 0.0, "u_degree": 3, "u_diag": 0.5}
    for m, n, k in cases:
        if lower and m != n:
            n = m
        A = rng.standard_normal((m + 3, k + 8)).astype(np.float32)
        B = rng.standard_normal((n + 5, k + 4)).astype(np.float32)
        C0 = rng.standard_normal((m + 4, n + 4)).astype(np.float32)
        d = (rng.random((1, k)) + 0.5).astype(np.float32)
        a, b, db = blas.upload(ctx, A), blas.upload(ctx, B), blas.upload(ctx, d)
        c = blas.upload(ctx, C0)
        try:
            for opts in ({"alpha": -1.0, "beta": 1.0, "d": db}, {"dist2": True, "kernel": rbf},
                         {"alpha": 0.5, "a_at": (2, 4), "b_at": (4, 0), "c_at": (4, 4) if lower else (1, 3)}):
                got = []
                for rows in (True, False):
                    blas.ROW_TILES = rows
                    blas.write(ctx, c, C0)
                    blas.gemm(ctx, c, a, b if not lower else a, m=m, n=n, k=k, lower=lower,
                              **({**opts, "b_at": opts.get("a_at", (0, 0))} if lower else opts))
                    got.append(blas.download(ctx, c))
                assert np.array_equal(got[0], got[1]), (m, n, k, lower, sorted(opts))
        finally:
            blas.ROW_TILES = True
            for buf in (a, b, db, c):
                buf.give()


@pytest.mark.parametrize("software", [True, False])
def test_float32_chained_solves_are_right_whether_their_waits_hold_or_give_up(ctx, rng, monkeypatch, software):
    """The LS-SVM's float32 factor solves a few right-hand sides by the chained solve
    (compute/chain.py, as the float64 factor does): a block a dispatch on a software renderer;
    elsewhere a wait that gave up -- forced here by flags already up and the give-up mark
    raised -- makes it solve again a block a dispatch (counted: the retry is taken, whatever
    order the renderer ran the blocks in).  Either way the same bits."""
    from glgpgpu.compute.normal import OneBufferKernelFactor
    from glgpgpu.gl.context import Capabilities
    X = rng.standard_normal((300, 4)).astype(np.float32)
    blocks = -(-300 // 64)                                                # five blocks of rows
    F = OneBufferKernelFactor(X, kernel="rbf", gamma=0.5, degree=3, coef0=0.0, diag=0.1, ctx=ctx)
    R = rng.standard_normal((300, 1))
    try:
        ref = F.solve(R)
        monkeypatch.setattr(Capabilities, "software", property(lambda self: software))
        if not software:
            flags = np.ones((1, 2 + blocks), np.int32)
            flags[0, 0] = 0
            F.solves.restart()
            F.solves._sync.write(flags.view(np.float32))
            F.solves._tickets = F.solves._epoch = 0
        with ctx.kernels.recording() as rec:
            got = F.solve(R)
        chained = [k for k, _ in rec.dispatches].count("trsv_chain")
        assert chained == (2 * blocks if software else 2 + 2 * blocks)
        assert np.array_equal(got, ref)
    finally:
        F.release()


@pytest.mark.parametrize("fp64", [False, True])
@pytest.mark.parametrize("k", [2, 5, 9])
def test_chained_solves_of_several_columns_are_each_columns_own(ctx, rng, fp64, k):
    """ChainSolves.solve_columns takes its columns together (trsv_chain.comp's KCOLS: up to 8
    float32 or 4 float64 a dispatch, in groups past that): every column the same bits as its
    one-column solve, and L L^T X = B to the factor's precision."""
    from glgpgpu.compute.chain import ChainSolves, Vector32
    from glgpgpu.compute.float64 import Float64Matrix
    m = 133
    C = spd(m, 1e2, rng)
    L = np.linalg.cholesky(C)
    if fp64:
        Lb = Float64Matrix(ctx, m, m, "L")
        Lb.put(ctx, L)
        buf, ld = Lb.buf, Lb.ld
    else:
        Lb = blas.upload(ctx, L.astype(np.float32))
        buf, ld = Lb.buf, Lb.ld
    solves = ChainSolves(ctx, buf, ld, m, fp64=fp64, vector=Float64Matrix if fp64 else Vector32)
    try:
        B = rng.standard_normal((m, k))
        X = solves.solve_columns(B)
        one = np.column_stack([solves.solve(B[:, c]) for c in range(k)])
    finally:
        solves.release()
        Lb.give()
    assert np.array_equal(X, one)
    # two substitutions (Higham, Theorem 8.5) with L rounded to the factor's precision once
    u = U64 if fp64 else U32
    tol = gamma_u(2 * m + GLSL_DIV_SQRT, u) + 3 * u
    assert (np.abs(C @ X - B) <= tol * (np.abs(L) @ (np.abs(L).T @ np.abs(X)))).all()


@pytest.mark.parametrize("fp64", [False, True])
def test_a_one_step_chained_solve_does_not_read_an_old_give_up_mark(ctx, rng, fp64):
    """One substitution (L y = b alone, as the tiles' solves take them) ends in the solutions'
    buffer, whose slot past the solution the kernel writes only where a wait gave up: a pooled
    buffer that held other numbers must not read as a give-up (the solve made again a block a
    dispatch).  The pool is dirtied first with buffers of the solutions' size."""
    from glgpgpu.compute.chain import ChainSolves, Vector32
    from glgpgpu.compute.float64 import Float64Matrix
    m, k = 70, 3
    L = np.linalg.cholesky(spd(m, 1e2, rng))
    vector = Float64Matrix if fp64 else Vector32
    dirty = [vector(ctx, k, m + 1, "old numbers") for _ in range(4)]
    for v in dirty:
        v.put(ctx, np.full((k, m + 1), 5.0))
        v.give()
    if fp64:
        Lb = Float64Matrix(ctx, m, m, "L")
        Lb.put(ctx, L)
    else:
        Lb = blas.upload(ctx, L.astype(np.float32))
    solves = ChainSolves(ctx, Lb.buf, Lb.ld, m, fp64=fp64, vector=vector)
    restarts = []
    real = solves.restart
    solves.restart = lambda: restarts.append(1) or real()
    try:
        B = rng.standard_normal((m, k))
        Y = solves.solve_columns(B, (False,))
    finally:
        solves.release()
        Lb.give()
    assert len(restarts) == 1                     # the first run's, no retry
    u = U64 if fp64 else U32                      # one substitution, L rounded once (Higham, Theorem 8.5)
    assert (np.abs(L @ Y - B) <= (gamma_u(m + GLSL_DIV_SQRT, u) + 2 * u) * (np.abs(L) @ np.abs(Y))).all()


@pytest.mark.parametrize("m, k", [(97, 2), (200, 1), (250, 3), (300, 8)])
def test_resident_tiled_solves_meet_the_substitutions_bound(ctx, rng, m, k):
    """ComputeTiles.solve_resident (the right-hand sides kept on the GPU across tile rows)
    against the generic tile-row path: both within two substitutions' bound; more than
    chain.MOST_COLUMNS right-hand sides go the generic way (None)."""
    from glgpgpu import limits, tiled
    from glgpgpu.compute.tile_kernels import ComputeTiles
    C = spd(m, 1e2, rng).astype(np.float32)
    with limits.override({"gl.context.TEXTURE_SIZE": 96}):
        ops = ComputeTiles(ctx)
        T = tiled.upload_checked(ctx, C, ops, "the test's matrix")
        try:
            tiled.factor(T)
            B = rng.standard_normal((m, k)).astype(np.float32)
            X = ops.solve_resident(T, B, (False, True))
            assert ops.solve_resident(T, np.ones((m, 9), np.float32), (False,)) is None
            L = T.read().astype(np.float64)
        finally:
            T.release()
    assert X is not None and T.grid.count >= 2
    tol = gamma_u(2 * m + GLSL_DIV_SQRT, U32) + 3 * U32
    assert (np.abs(L @ (L.T @ X) - B) <= tol * (np.abs(L) @ (np.abs(L).T @ np.abs(X)))).all()


@pytest.mark.parametrize("m", [250, 301])
def test_the_tile_downdate_by_alpha_gives_the_bits_of_a_d_of_minus_ones(ctx, rng, m):
    """ComputeTiles.downdate (C -= R S^T with alpha = -1, no d) against TileKernels' (update
    with a d row of -1s): the same tiled factor bit for bit, on tiles of 96 (the last partial)
    -- negation is exact, so either way each sum is the other's negative."""
    from glgpgpu import limits, tiled
    from glgpgpu.compute.tile_kernels import ComputeTiles
    from glgpgpu.tiled import TileKernels

    class SignByD(ComputeTiles):
        downdate = TileKernels.downdate

    C = spd(m, 1e2, rng).astype(np.float32)
    factors = []
    with limits.override({"gl.context.TEXTURE_SIZE": 96}):
        for ops in (ComputeTiles(ctx), SignByD(ctx)):
            T = tiled.upload_checked(ctx, C, ops, "the test's matrix")
            try:
                pivots = tiled.factor(T)
                factors.append((T.read(), pivots, T.grid.count))
            finally:
                T.release()
    (L, p, count), (L1, p1, _) = factors
    assert count >= 3
    assert np.array_equal(L, L1) and np.array_equal(p, p1)
    check_factor(L, C)
