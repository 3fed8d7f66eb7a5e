"""glgpgpu.linalg against scipy.linalg: the same signatures, defaults and return forms;
float32 in gives float32 out within the float32 bound, float64 in gives float64 solves
refined to float64 accuracy; empty, batched and integer input; what is refused."""
import numpy as np
import pytest
import scipy.linalg as sla

from glgpgpu import linalg
from bounds import check_factor


@pytest.fixture
def spd(rng):
    A = rng.standard_normal((9, 9))
    return A @ A.T + 9 * np.eye(9)


@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_and_cho_factor(ctx, spd, lower):
    c = linalg.cholesky(spd, lower=lower)
    ref = sla.cholesky(spd, lower=lower)
    assert c.dtype == np.float64 and np.abs(c - ref).max() <= 1e-5 * np.abs(ref).max()
    check_factor(c if lower else c.T.copy(), spd)
    cf, low = linalg.cho_factor(spd, lower=lower)
    assert low is lower
    b = np.arange(9.0)
    x = linalg.cho_solve((cf, low), b)
    L = cf if low else cf.T
    assert np.abs(L @ (L.T @ x) - b).max() <= 1e-12 * np.abs(b).max()        # refined to float64
    x = linalg.cho_solve(sla.cho_factor(spd, lower=lower), b)                   # scipy's factor works too
    assert np.abs(spd @ x - b).max() <= 1e-10


def test_float32_stays_float32(ctx, spd, rng):
    s32 = spd.astype(np.float32)
    assert linalg.cholesky(s32).dtype == np.float32
    b = rng.standard_normal(9).astype(np.float32)
    assert linalg.cho_solve(linalg.cho_factor(s32), b).dtype == np.float32
    assert linalg.solve_triangular(np.triu(s32), b).dtype == np.float32


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_triangular_like_scipy(ctx, rng, trans, lower):
    T = np.triu(rng.random((8, 8))) + 4 * np.eye(8)
    T = T.T if lower else T
    B = rng.standard_normal((8, 3))
    got = linalg.solve_triangular(T, B, trans=trans, lower=lower)
    want = sla.solve_triangular(T, B, trans=trans, lower=lower)
    assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max()
    got = linalg.solve_triangular(T, B, trans=trans, lower=lower, unit_diagonal=True)
    want = sla.solve_triangular(T, B, trans=trans, lower=lower, unit_diagonal=True)
    assert np.abs(got - want).max() <= 1e-10 * np.abs(want).max()


@pytest.mark.parametrize("mode", ["full", "economic", "r", "raw"])
@pytest.mark.parametrize("shape", [(7, 4), (4, 7), (5, 5)])
def test_qr_forms(ctx, rng, mode, shape):
    A = rng.standard_normal(shape)
    got, want = linalg.qr(A, mode=mode), sla.qr(A, mode=mode)
    assert type(got) is type(want) and len(got) == len(want)
    if mode in ("full", "economic"):
        Q, R = got
        assert Q.shape == want[0].shape and R.shape == want[1].shape
        assert np.abs(Q @ R - A).max() <= 1e-5
    elif mode == "r":
        assert got[0].shape == want[0].shape
    else:
        (F, tau), R = got
        assert F.shape == want[0][0].shape and tau.shape == want[0][1].shape and R.shape == want[1].shape


@pytest.mark.parametrize("mode", ["left", "right"])
def test_qr_multiply(ctx, rng, mode):
    A = rng.standard_normal((7, 4))
    c = rng.standard_normal((4, 3)) if mode == "left" else rng.standard_normal((3, 7))
    got, R = linalg.qr_multiply(A, c, mode=mode)
    want, R0 = sla.qr_multiply(A, c, mode=mode)
    assert np.abs(np.abs(got) - np.abs(want)).max() <= 1e-5 and got.shape == want.shape


def test_solve_lstsq_and_refinement_to_float64(ctx, spd, rng):
    b = rng.standard_normal(9)
    x = linalg.solve(spd, b, assume_a="pos")
    assert np.abs(spd @ x - b).max() <= 1e-12 * np.abs(spd).max() * np.abs(x).max()
    A = rng.standard_normal((9, 9)) + 5 * np.eye(9)
    x = linalg.solve(A, b)
    assert np.abs(A @ x - b).max() <= 1e-12 * np.abs(A).max() * np.abs(x).max()
    M = rng.standard_normal((20, 5))
    b = rng.standard_normal(20)
    x, res, rank, s = linalg.lstsq(M, b)
    want = sla.lstsq(M, b)
    assert x.shape == (5,) and rank == 5 and s is None and np.shape(res) == np.shape(want[1])    # scipy's: 0-d
    assert np.allclose(res, want[1], rtol=1e-12)


def test_empty_batched_integer_and_refusals(ctx, spd):
    assert linalg.cholesky(np.empty((0, 0))).shape == (0, 0)
    batch = linalg.cholesky(np.stack([spd, 2 * spd]), lower=True)
    assert batch.shape == (2, 9, 9) and np.allclose(batch[1], np.sqrt(2) * batch[0], atol=1e-4)
    assert linalg.cholesky(np.array([[4, 2], [2, 5]])).dtype == np.float64
    with pytest.raises(ValueError, match="complex"):
        linalg.cholesky(spd + 0j)
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.cholesky(np.full((2, 2), np.nan))
    with pytest.raises(NotImplementedError, match="pivoting"):
        linalg.qr(spd, pivoting=True)
    with pytest.raises(np.linalg.LinAlgError):
        linalg.cholesky(-spd)
    with pytest.raises(ValueError, match="trans"):
        linalg.solve_triangular(np.eye(2), np.ones(2), trans=3)


def test_batched_qr_and_the_unread_triangle(ctx, rng):
    """qr over a batch (leading axes looped, results stacked); cholesky reads one triangle
    only, so NaN in the other is fine (scipy 1.18's rule), but not in the one read."""
    a = rng.standard_normal((2, 5, 3))
    Q, R = linalg.qr(a, mode="economic")
    assert Q.shape == (2, 5, 3) and R.shape == (2, 3, 3)
    assert np.abs(Q @ R - a).max() <= 1e-5
    (F, tau), R = linalg.qr(a, mode="raw")
    assert F.shape == (2, 5, 3) and tau.shape == (2, 3)
    A = 4 * np.eye(3)
    A[0, 2] = np.nan
    assert np.allclose(linalg.cholesky(A, lower=True), 2 * np.eye(3))
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.cholesky(A)                                    # upper: the NaN is read
    with pytest.raises(ValueError, match="square"):
        linalg.cholesky(np.ones((2, 3)))
