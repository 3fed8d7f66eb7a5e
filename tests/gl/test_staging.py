"""Transfers through the mapped buffers (gl/staging.py).  Hardware drivers use them for
every upload and read; llvmpipe, where CI runs, goes direct, so these tests force them
on, with rings of a few hundred bytes so that every transfer is cut into bands that
wrap round the ring -- and must still give back the very bits sent."""
import numpy as np
import pytest

from glgpgpu.gl import staging
from glgpgpu.gl.staging import Stager, _bands, copy_parts, copy_rows


@pytest.fixture
def staged(ctx):
    """ctx with staging forced on and a Stager of 512 bytes (bands of at most 256).
    Every driver these tests run on (llvmpipe in CI, the H100's) has GL 4.5: one
    without it must say so here, not pass by skipping."""
    assert staging.available(ctx.caps), (
        f"{ctx.caps.renderer} ({ctx.caps.version}) lacks GL 4.5 buffer storage / direct state access, "
        "so the staged transfers cannot be tested on it")
    saved = ctx.staging, ctx._stager
    ctx.staging, ctx._stager = True, Stager(512)
    try:
        yield ctx
    finally:
        ctx._stager.release()
        ctx.staging, ctx._stager = saved


def test_bands_cover_the_rows_within_one_half():
    for rows, row_bytes, half in ((1, 4, 256), (37, 20, 256), (64, 256, 256), (5, 300, 256), (10, 16, 1 << 20)):
        bands = _bands(rows, row_bytes, half)
        assert bands[0][0] == 0 and bands[-1][1] == rows
        assert all(a1 == b0 for (_, a1), (b0, _) in zip(bands, bands[1:]))
        assert all((r1 - r0) * row_bytes <= max(half, row_bytes) for r0, r1 in bands)


@pytest.mark.parametrize("threaded_from", [0, 1 << 40])
def test_copy_rows_of_a_strided_view(monkeypatch, threaded_from):
    monkeypatch.setattr(staging, "THREADED_COPY_FROM", threaded_from)
    src = np.arange(7 * 11, dtype=np.float32).reshape(7, 11)
    for view in (src, src[1:6, :4], src[:, 3:], src[2:3]):
        dst = np.zeros(view.shape, np.float32)
        copy_rows(dst, view)
        assert np.array_equal(dst, view)


@pytest.mark.parametrize("threaded_from", [0, 1 << 40])
def test_copy_parts_of_several_shapes(monkeypatch, threaded_from):
    """Several (dst, src) pairs, a row-band of a triangle each, copied together: every
    element lands, nothing outside the parts is written."""
    monkeypatch.setattr(staging, "THREADED_COPY_FROM", threaded_from)
    src = np.arange(40 * 40, dtype=np.float32).reshape(40, 40)
    out = np.full((40, 40), -1.0, np.float32)
    bands = [(0, 1), (1, 7), (7, 30), (30, 40)]
    copy_parts([(out[r0:r1, :r1], src[r0:r1, :r1]) for r0, r1 in bands])
    for r0, r1 in bands:
        assert np.array_equal(out[r0:r1, :r1], src[r0:r1, :r1]) and (out[r0:r1, r1:] == -1).all()


@pytest.mark.parametrize("m, ring", [(700, 1 << 20), (300, 64 << 10), (1, 512), (37, 512)])
def test_lower_triangle_round_trip_through_a_small_ring(ctx, m, ring):
    """A lower triangle up and back by row bands (compute.blas.upload_lower / download_lower:
    pieces of different sizes through the ring).  A read's piece j + 1 once wrapped onto
    piece j before the host had copied it out -- the H100's 16,383 Cholesky failed at pivot
    8,449; llvmpipe, whose copies run at once, shows it with a ring of 1 MiB at 700."""
    from glgpgpu.compute import blas
    saved = ctx.staging, ctx._stager
    ctx.staging, ctx._stager = True, Stager(ring)
    try:
        M = np.random.default_rng(m).standard_normal((m, m)).astype(np.float32)
        A = blas.upload_lower(ctx, M)
        try:
            blas.zero_upper(ctx, A, m)
            out = blas.download_lower(ctx, A, m, np.zeros((m, m), np.float32))
        finally:
            A.give()
        assert np.array_equal(out, np.tril(M))
    finally:
        ctx._stager.release()
        ctx.staging, ctx._stager = saved


def test_software_renderers_go_direct(ctx):
    if ctx.caps.software and ctx.staging is None:
        assert ctx.stager is None
    saved = ctx.staging
    try:
        ctx.staging = False
        assert ctx.stager is None
    finally:
        ctx.staging = saved


@pytest.mark.parametrize("components", [1, 2, 4])
@pytest.mark.parametrize("rows,cols", [(1, 1), (2, 3), (3, 2), (37, 5), (64, 64), (17, 31)])
@pytest.mark.parametrize("threaded_from", [0, 1 << 40])
def test_round_trip_is_bit_exact(staged, monkeypatch, components, rows, cols, threaded_from):
    monkeypatch.setattr(staging, "THREADED_COPY_FROM", threaded_from)
    shape = (rows, cols) if components == 1 else (rows, cols, components)
    rng = np.random.default_rng(rows * cols)
    tex = staged.pool.take(rows, cols, "probe", components=components)
    try:
        for _ in range(3):                       # back to back: the halves are reused
            M = rng.standard_normal(shape).astype(np.float32)
            tex.write(M)
            assert np.array_equal(tex.read(), M)
            out = np.empty(shape, np.float32)
            assert tex.read(out) is out and np.array_equal(out, M)
    finally:
        staged.pool.give(tex)


@pytest.mark.parametrize("components", [1, 4])
def test_rows_and_regions(staged, components):
    """write_rows puts a band at y0; read_region_into reads a rectangle at (x, y);
    what the GPU drew (a clear) reads back too."""
    rows, cols = 23, 9
    shape = (rows, cols) if components == 1 else (rows, cols, 4)
    M = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    tex = staged.pool.take(rows, cols, "probe", components=components)
    try:
        tex.clear(0.25)
        assert (tex.read() == 0.25).all()
        tex.write_rows(M[7:19], 7)
        got = tex.read()
        assert np.array_equal(got[7:19], M[7:19])
        assert (got[:7] == 0.25).all() and (got[19:] == 0.25).all()
        out = np.empty((5, 4) + shape[2:], np.float32)
        tex.read_region_into(out, 3, 10)           # columns 3..6, rows 10..14
        assert np.array_equal(out, got[10:15, 3:7])
    finally:
        staged.pool.give(tex)


def test_write_lower_sends_the_trapezoid_bands(staged):
    m = 29
    M = np.random.default_rng(7).standard_normal((m, m)).astype(np.float32)
    tex = staged.pool.take(m, m, "probe")
    try:
        tex.clear(np.nan)
        tex.write_lower(M)
        got = tex.read()
        low = np.tril(np.ones((m, m), bool))
        assert np.array_equal(got[low], M[low])
        assert np.isnan(got[0, -1])                # above the bands: the texture's old contents
    finally:
        staged.pool.give(tex)


def test_release_is_idempotent_and_the_next_use_remaps(staged):
    st = staged.stager
    tex = staged.pool.take(4, 4, "probe")
    try:
        tex.write(np.eye(4, dtype=np.float32))
        st.release()
        st.release()
        assert st.up is None and st.down is None
        assert np.array_equal(tex.read(), np.eye(4, dtype=np.float32))
    finally:
        staged.pool.give(tex)


def test_a_driver_that_will_not_map_falls_back_to_direct_transfers(staged, monkeypatch):
    """No mapped buffer to be had (out of pinned memory, say): the transfer goes the
    direct way, the same bits, and the context stops trying."""
    def refuse(self, *a, **k):
        raise staging.StagingUnavailable("no mapped buffer for the test")

    monkeypatch.setattr(staging.MappedBuffer, "__init__", refuse)
    M = np.random.default_rng(9).standard_normal((13, 6)).astype(np.float32)
    tex = staged.pool.take(13, 6, "probe")
    try:
        tex.write(M)
        assert staged.staging is False and staged.stager is None
        assert np.array_equal(tex.read(), M)
        staged.staging = True                       # the read's own fall-back
        out = np.empty((13, 6), np.float32)
        assert np.array_equal(tex.read(out), M) and staged.staging is False
    finally:
        staged.pool.give(tex)


def test_the_ring_hands_out_regions_that_no_queued_transfer_still_uses(staged):
    """MappedBuffer.take: regions are aligned, wrap round, and a region is handed out
    again only after the fence of every transfer queued on it; reads of many bands
    (a 512-byte ring: 256-byte bands) come back whole, uploads queued back to back too."""
    from glgpgpu.gl.staging import ALIGN, PIXEL_UNPACK_BUFFER, MAP_WRITE, MappedBuffer

    ring = MappedBuffer(4 * ALIGN, PIXEL_UNPACK_BUFFER, MAP_WRITE)
    try:
        spans = []
        for nbytes in (100, ALIGN, 3 * ALIGN, 5, 2 * ALIGN, ALIGN):
            at = ring.take(nbytes)
            assert at % ALIGN == 0 and at + nbytes <= ring.nbytes
            for a, b, _ in ring.inflight:                  # never over a region still queued
                assert b <= at or at + nbytes <= a
            ring.fence(at, nbytes)
            spans.append(at)
        assert 0 in spans[1:]                              # it wrapped round
    finally:
        ring.release()
    rng = np.random.default_rng(11)
    tex = staged.pool.take(40, 16, "probe", components=4)     # 256 bytes a row: 40 bands
    try:
        Ms = [rng.standard_normal((40, 16, 4)).astype(np.float32) for _ in range(3)]
        for M in Ms:
            tex.write(M)
            assert np.array_equal(tex.read(), M)
        for M in Ms:                                       # uploads back to back, then one read
            tex.write(M)
        assert np.array_equal(tex.read(), Ms[-1])
    finally:
        staged.pool.give(tex)


def test_many_small_uploads_keep_few_fences(staged):
    """A long run of small uploads (an iterative solver's vectors) never holds more than
    MAX_INFLIGHT fences, however rarely the ring comes round."""
    from glgpgpu.gl.staging import MAX_INFLIGHT

    staged._stager.release()
    staged._stager = Stager(1 << 20)                     # a roomy ring: it wraps rarely
    tex = staged.pool.take(1, 3, "probe")
    try:
        for i in range(3 * MAX_INFLIGHT):
            v = np.full((1, 3), i, np.float32)
            tex.write(v)
            assert len(staged.stager.up.inflight) <= MAX_INFLIGHT + 1
        assert np.array_equal(tex.read(), v)
    finally:
        staged.pool.give(tex)


@pytest.mark.parametrize("through_ring", [True, False])
def test_a_buffer_reads_into_a_view_whose_rows_lie_apart(staged, through_ring):
    """compute's download into a block of a larger matrix (the tiled read-back): the ring's
    bands go straight into the view's rows; the driver's read goes through one array."""
    from glgpgpu.compute import blas
    staged.staging = through_ring
    M = np.arange(13 * 9, dtype=np.float32).reshape(13, 9)
    B = blas.upload(staged, M)
    try:
        out = np.full((20, 30), -1.0, np.float32)
        blas.download(staged, B, out[3:15, 5:12], 12, 7)
    finally:
        B.give()
    want = np.full((20, 30), -1.0, np.float32)
    want[3:15, 5:12] = M[:12, :7]
    assert np.array_equal(out, want)
