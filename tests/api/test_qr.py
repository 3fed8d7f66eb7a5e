"""Householder QR by drawing (paper: four draws per column; blocked: seed 004's
tile algorithm) against float64 numpy / scipy.

Bounds (u = 2^-24): Householder QR is normwise backward stable, A + dA = Q R with
||dA||_F <= c s m u ||A||_F in the worst case (Higham, Thm 19.4; s = min(m, n)
reflectors of length <= m), and ||Q^T Q - I|| of the same order.  Rounding
errors of the s reflections add up like a sum of s terms of size m u, so we test
the tighter c (m + s) u with c = 4 -- a wrong row, column or reflector is O(1).
R is unique up to the signs of its rows for full-rank A, and its forward error is
about kappa(A) times the backward error (Higham, Thm 19.7's perturbation bound).
"""
import numpy as np
import pytest
import scipy.linalg as sla

import glgpgpu
from glgpgpu.blocked import qr as bqr
from bounds import U32

SHAPES = [(1, 1), (2, 1), (1, 2), (3, 3), (2, 3), (7, 4), (4, 7), (8, 8), (33, 17), (17, 33), (65, 40), (40, 65)]
METHODS = ["paper", "blocked", "compute"]


def bound(m, n):
    return 4 * (max(m, n) + min(m, n)) * U32


def check_qr(Q, R, A):
    m, n = A.shape
    A64 = A.astype(np.float64)
    Q64, R64 = Q.astype(np.float64), R.astype(np.float64)
    assert (np.tril(R, -1) == 0).all()
    tol = bound(m, n)
    assert np.linalg.norm(Q64 @ R64 - A64) <= tol * np.linalg.norm(A64) + 1e-30
    assert np.linalg.norm(Q64.T @ Q64 - np.eye(Q.shape[1])) <= tol * np.sqrt(Q.shape[1])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_qr_economic(ctx, rng, method, shape):
    A = rng.standard_normal(shape).astype(np.float32)
    Q, R = glgpgpu.qr(A, method=method)
    k = min(shape)
    assert Q.shape == (shape[0], k) and R.shape == (k, shape[1])
    check_qr(Q, R, A)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (6, 6)])
def test_qr_full_and_r_modes(ctx, rng, method, shape):
    A = rng.standard_normal(shape).astype(np.float32)
    Q, R = glgpgpu.qr(A, mode="full", method=method)
    assert Q.shape == (shape[0], shape[0]) and R.shape == shape
    check_qr(Q, R, A)
    R2 = glgpgpu.qr(A, mode="r", method=method)
    assert np.array_equal(R2, R[:min(shape)])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("shape", [(9, 9), (40, 12), (12, 40)])
def test_r_and_tau_match_lapack(ctx, rng, method, shape):
    """Same sign convention as LAPACK geqrf (slarfg), so R and tau match scipy's
    within kappa(A) times the backward bound, not just up to signs."""
    A = rng.standard_normal(shape).astype(np.float32)
    F, tau = glgpgpu.qr(A, mode="raw", method=method)
    (Fs, taus), Rs = sla.qr(A.astype(np.float64), mode="raw")
    k = min(shape)
    kappa = np.linalg.cond(A.astype(np.float64)[:, :k] if shape[0] >= shape[1] else A.astype(np.float64))
    tol = kappa * bound(*shape)
    assert np.linalg.norm(np.triu(F[:k]) - Rs[:k]) <= tol * np.linalg.norm(A)
    assert np.abs(tau - taus).max() <= 2 * tol


@pytest.mark.parametrize("nb,chunk", [(4, 5), (8, 3), (12, 8)])
def test_tiles_not_dividing_the_shape(ctx, rng, nb, chunk):
    """The tile algorithm with panels and chunks that do not divide m or n equals
    the unblocked one to rounding."""
    for shape in [(23, 13), (13, 23), (30, 30)]:
        A = rng.standard_normal(shape).astype(np.float32)
        F, tau = bqr.qr_raw(A, nb=nb, chunk=chunk, ctx=ctx)
        k = min(shape)
        Q = bqr.apply_q(F, tau, np.eye(shape[0], k, dtype=np.float32), nb=nb, chunk=chunk, ctx=ctx)
        check_qr(Q, np.triu(F[:k]), A)


@pytest.mark.parametrize("method", METHODS)
def test_rank_deficient_shows_a_zero_pivot(ctx, rng, method):
    B = rng.standard_normal((20, 4)).astype(np.float32)
    A = np.hstack([B, B[:, :2], np.zeros((20, 1), np.float32), B[:, 3:]])    # rank 4 of 8
    Q, R = glgpgpu.qr(A, method=method)
    assert np.isfinite(Q).all() and np.isfinite(R).all()
    check_qr(Q, R, A)
    d = np.sort(np.abs(np.diag(R)))
    assert (d[:4] <= 8 * bound(*A.shape) * np.linalg.norm(A)).all()
    assert (d[4:] > 0.1).all()


@pytest.mark.parametrize("method", METHODS)
def test_zero_and_extreme_scales(ctx, rng, method):
    Z = np.zeros((4, 3), np.float32)
    F, tau = glgpgpu.qr(Z, mode="raw", method=method)
    assert (F == 0).all() and (tau == 0).all()
    A = rng.standard_normal((6, 4)).astype(np.float32)
    A[0, 0] = 3.0                                  # max |A| in [2, 4): the compute method scales on the GPU
    F, tau = glgpgpu.qr(A, mode="raw", method=method)
    R = np.triu(F[:4])
    # sigma = sum of squares would over/underflow; the compute method scales 2^100 on the GPU,
    # 2^-100 and 2^124 (max |A| past 2^126) on the host: the reflectors the same bits, R scaled
    for s in (2.0 ** 100, 2.0 ** -100, 2.0 ** 124):
        Fs, taus = glgpgpu.qr(A * np.float32(s), mode="raw", method=method)
        assert np.array_equal(np.triu(Fs[:4]), R * np.float32(s))
        assert np.array_equal(np.tril(Fs, -1), np.tril(F, -1)) and np.array_equal(taus, tau)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("trans", [False, True])
def test_apply_q_without_forming_q(ctx, rng, method, trans):
    A = rng.standard_normal((11, 6)).astype(np.float32)
    F, tau = glgpgpu.qr(A, mode="raw", method=method)
    Q, _ = glgpgpu.qr(A, mode="full", method=method)
    C = rng.standard_normal((11, 3)).astype(np.float32)
    got = glgpgpu.apply_q(F, tau, C, trans=trans, method=method)
    want = (Q.T if trans else Q).astype(np.float64) @ C
    assert np.abs(got - want).max() <= bound(11, 6) * np.abs(C).sum(0).max() * 4
    v = glgpgpu.apply_q(F, tau, C[:, 0], trans=trans, method=method)
    assert v.shape == (11,) and np.allclose(v, got[:, 0], atol=1e-6)


BATCH = [(5, 3), (3, 5), (40, 7), (1, 1), (16, 16), (70, 2), (37, 45), (90, 33), (33, 90), (600, 5)]


@pytest.mark.parametrize("method", METHODS)
def test_batched_equals_one_by_one_bit_for_bit(ctx, rng, method):
    """Many fronts factored by the same draws (paper: side by side in an R32F atlas,
    blocked: in an RGBA atlas, the bucket scheduler's launches merged): each result is
    the matrix's own QR, bit for bit -- panels of different widths, fronts that finish
    launches apart, wide and tall, row chunks of 16 and 64 in one atlas."""
    mats = [rng.standard_normal(s).astype(np.float32) * 10.0 ** (i % 5) for i, s in enumerate(BATCH)]
    together = glgpgpu.qr_batched(mats, method=method)
    for A, (F, tau) in zip(mats, together):
        F1, tau1 = glgpgpu.qr(A, mode="raw", method=method)
        assert np.array_equal(F, F1) and np.array_equal(tau, tau1)
        k = min(A.shape)
        check_qr(glgpgpu.apply_q(F, tau, np.eye(A.shape[0], k, dtype=np.float32), method=method), np.triu(F[:k]), A)


@pytest.mark.parametrize("method", METHODS)
def test_batched_splits_atlases_at_the_texture_limit(rng, method):
    small = glgpgpu.Context(max_texture_size=16)
    try:
        mats = [rng.standard_normal((6, 7)).astype(np.float32) for _ in range(5)]   # 35 columns > 16
        mats += [rng.standard_normal((16, 9)).astype(np.float32) for _ in range(3)]
        together = glgpgpu.qr_batched(mats, method=method, ctx=small)
        for A, (F, tau) in zip(mats, together):
            F1, tau1 = glgpgpu.qr(A, mode="raw", method=method, ctx=small)
            assert np.array_equal(F, F1) and np.array_equal(tau, tau1)
        assert small.pool.outstanding == 0
    finally:
        small.release()


def test_bad_input_names_the_problem(ctx):
    with pytest.raises(ValueError, match="A"):
        glgpgpu.qr(np.ones(3))
    with pytest.raises(ValueError, match="finite|NaN"):
        glgpgpu.qr(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="mode"):
        glgpgpu.qr(np.ones((2, 2)), mode="reduced-ish")
    F, tau = glgpgpu.qr(np.eye(3), mode="raw")
    with pytest.raises(ValueError, match="tau"):
        glgpgpu.apply_q(F, np.ones(4), np.ones(3))
    with pytest.raises(ValueError, match="C"):
        glgpgpu.apply_q(F, tau, np.ones(4))
    with pytest.raises(ValueError, match="list"):
        glgpgpu.qr_batched([])
    with pytest.raises(ValueError, match="panel"):
        bqr.qr_raw(np.ones((3, 3), np.float32), nb=6, ctx=ctx)
