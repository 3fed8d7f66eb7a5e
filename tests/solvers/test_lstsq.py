"""Least squares by GPU QR + Bjorck's float64 refinement (solvers/lstsq.py), and
wls(solver="qr").  The refined x is compared with float64 LAPACK (numpy's
lstsq); its accuracy is that of float64 on the problem, kappa(A) u64 times a
small constant, far below float32's kappa u32 -- a solve that only reached float32
accuracy fails by orders of magnitude."""
import warnings

import numpy as np
import pytest

import glgpgpu
from glgpgpu.bench.wls_tables import problem

METHODS = ["paper", "blocked", "compute"]
U64 = 2.0 ** -53


def ill_conditioned(m, n, kappa, rng, residual=1.0):
    U, _ = np.linalg.qr(rng.standard_normal((m, n)))
    V, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = (U * np.logspace(0, -np.log10(kappa), n)) @ V.T
    x = rng.standard_normal(n)
    r = rng.standard_normal(m)
    r -= U @ (U.T @ r)                    # orthogonal to range(A): the LS residual
    return A, A @ x + residual * r / np.linalg.norm(r), x


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("shape", [(1, 1), (3, 2), (8, 8), (41, 13), (64, 33)])
def test_lstsq_reaches_float64(ctx, rng, method, shape):
    A = rng.standard_normal(shape)
    b = rng.standard_normal(shape[0])
    x, info = glgpgpu.lstsq(A, b, method=method)
    ref = np.linalg.lstsq(A, b, rcond=None)[0]
    assert info.converged
    kappa = np.linalg.cond(A)
    assert np.linalg.norm(x - ref) <= 1e3 * kappa ** 2 * U64 * np.linalg.norm(ref) + 1e-300
    assert np.linalg.norm(info.x0 - ref) > 0 or shape == (1, 1)


@pytest.mark.parametrize("method", METHODS)
def test_kappa_squared_beyond_float32_still_converges(ctx, rng, method):
    """kappa = 1e5: kappa^2 u32 = 600, so A^T A is singular in float32 and the
    normal equations fail; QR corrections contract by about kappa u32 = 6e-3."""
    A, b, _ = ill_conditioned(60, 20, 1e5, rng)
    x, info = glgpgpu.lstsq(A, b, method=method)
    ref = np.linalg.lstsq(A, b, rcond=None)[0]
    assert info.converged and info.iterations <= 10
    assert np.linalg.norm(x - ref) <= 1e-6 * np.linalg.norm(ref)      # kappa^2 u64 ~ 1e-6: LAPACK's own accuracy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        xn, ninfo = glgpgpu.wls(A.T, np.ones(60), b, method=method)
    assert not ninfo.converged                                      # the normal equations cannot


@pytest.mark.parametrize("method", METHODS)
def test_table2_fewer_steps_than_normal_equations(ctx, method):
    """The 2008 paper's Table 2 problem (D^2 from 1e-4 to 1e4): QR refinement needs
    fewer steps than Algorithm 1 and its x0 is far more accurate."""
    A, d2, b = problem(2, 48, np.random.default_rng(2008))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        xn, ne = glgpgpu.wls(A, d2, b, method=method)
        xq, qr = glgpgpu.wls(A, d2, b, method=method, solver="qr")
    ref = np.linalg.lstsq((A * np.sqrt(d2)).T, np.sqrt(d2) * b, rcond=None)[0]
    assert qr.converged and ne.converged
    assert qr.iterations < ne.iterations
    assert np.linalg.norm(xq - ref) <= 1e-9 * np.linalg.norm(ref)
    assert np.linalg.norm(qr.x0 - ref) < np.linalg.norm(ne.x0 - ref) / 10


def test_rank_deficient_and_bad_shapes(ctx, rng):
    A = rng.standard_normal((10, 3))
    A = np.hstack([A, A[:, :1]])
    with pytest.warns(RuntimeWarning, match="rank deficient"):
        x, info = glgpgpu.lstsq(A, rng.standard_normal(10))
    assert info.status == "rank deficient" and info.rank == 3
    want = np.linalg.lstsq(A, b := np.random.default_rng(2).standard_normal(10), rcond=None)[0]
    with pytest.warns(RuntimeWarning, match="rank deficient"):
        x, info = glgpgpu.lstsq(A, b)
    assert np.abs(x - want).max() <= 1e-6 * np.abs(want).max()          # numpy's minimum-norm solution
    with pytest.raises(ValueError, match="fewer rows"):
        glgpgpu.lstsq(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="b has length"):
        glgpgpu.lstsq(np.ones((3, 2)), np.ones(2))
    with pytest.raises(ValueError, match="solver"):
        glgpgpu.wls(np.ones((2, 3)), np.ones(3), np.ones(3), solver="svd")
    with pytest.raises(ValueError, match="packed"):
        glgpgpu.wls(np.ones((2, 3)), np.ones(3), np.ones(3), solver="qr", packed=True)
