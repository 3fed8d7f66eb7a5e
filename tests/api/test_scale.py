"""Data of any size that float32 holds: adat, cholesky and the solves scale their input
by exact powers of two first (layouts/scaling.py), so products neither under- nor
overflow, and scaling the input by 2^k scales the answer by the same power exactly
(the float32 bound of the unscaled problem holds)."""
import numpy as np
import pytest

import glgpgpu
from bounds import check_adat, check_factor, spd

SCALES = [-60, -45, 0, 45, 60]          # the inputs stay normal float32 numbers


@pytest.mark.parametrize("k", SCALES)
@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_adat_at_any_scale(ctx, rng, k, method):
    A = rng.standard_normal((9, 14))
    d2 = rng.random(14) + 0.1
    s = 2.0 ** k
    C = glgpgpu.adat(A * s, d2, method=method).astype(np.float64) / (s * s)
    check_adat(C.astype(np.float32), A, d2)


@pytest.mark.parametrize("k", SCALES)
@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_cholesky_and_solves_at_any_scale(ctx, rng, k, method):
    S = spd(9, 1e2, rng)
    s = 2.0 ** k
    L = glgpgpu.cholesky(S * s * s, method=method)
    check_factor((L.astype(np.float64) / s).astype(np.float32), S)
    L0 = glgpgpu.cholesky(S, method=method)
    b = rng.standard_normal(9)
    x0 = glgpgpu.cho_solve(L0, b, method=method)
    x = glgpgpu.cho_solve(L0 * s, b * s, method=method)             # (s L)(s L)^T x = s b: x = x0 / s
    assert np.allclose(x * s, x0, rtol=1e-6, atol=0)
    y = glgpgpu.solve_triangular(L0 * s, b, method=method)
    assert np.allclose(y * s, glgpgpu.solve_triangular(L0, b, method=method), rtol=1e-6, atol=0)


@pytest.mark.parametrize("s", [1e-40, 1e-30, 1e-8, 1e8, 1e30, 1e38])
def test_wls_status_does_not_depend_on_the_weights_scale(ctx, rng, s):
    """The normal equations' refinement measures its residual against the matrix's own
    size, and each float32 correction runs on a residual scaled to size 1: weights of
    1e8 (sigma = 1e-4) or 1e-30 converge like weights of 1; weights of 1e38 or 1e-40 (whose
    products over- or underflow float32) are divided by a power of two first (x does not
    change with D's scale) -- they were 'not positive definite' with x = NaN."""
    A = rng.random((12, 40))
    b = rng.random(40)
    d = rng.random(40) + 0.1
    x1, i1 = glgpgpu.wls(A, d, b)
    xs, is_ = glgpgpu.wls(A, d * s, b)
    assert is_.status == i1.status == "converged"
    assert np.abs(xs - x1).max() <= 1e-10 * np.abs(x1).max()


@pytest.mark.parametrize("s", [1e-36, 1e-20, 1e20])
def test_lstsq_at_any_scale_of_b(ctx, rng, s):
    A = rng.random((40, 6))
    b = rng.random(40)
    x0 = np.linalg.lstsq(A, b, rcond=None)[0]
    x, info = glgpgpu.lstsq(A, b * s)
    assert info.status == "converged"
    assert np.abs(x / s - x0).max() <= 1e-12 * np.abs(x0).max()
