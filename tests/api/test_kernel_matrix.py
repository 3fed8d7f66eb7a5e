"""Kernel matrices by rasterization (issue 15, step 1) against float64 numpy.

Bounds (float32, u = 2^-24): the Gram entry g = x_i.x_j is a sum of d products, so
|dg| <= E = gamma_{d+2} (|X||X|^T)_ij (Higham, Thm 3.5), the norms likewise.
poly: b = gamma g + coef0 has |db| <= gamma E + u|b|, and b^deg by deg - 1 products
adds (deg - 1) u |b|^deg: |dK| <= deg |b|^(deg-1) (gamma E + u|b|) + deg u |b|^deg.
rbf: D = n_i + n_j - 2 g has |dD| <= gamma_{d+2}(n_i + n_j + 2 (|X||X|^T)_ij) + 3u(n_i + n_j + 2|g|),
and exp adds a few ulps of its argument: |dK| <= K (gamma |dD| + 4u (1 + gamma D)).
Constants are 2x these first-order bounds; a wrong row/column fetch fails by O(1).
"""
import numpy as np
import pytest

import glgpgpu
from bounds import kernel_reference

SIZES = [1, 2, 3, 7, 8, 33]


reference = kernel_reference


@pytest.mark.parametrize("N", SIZES)
@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
@pytest.mark.parametrize("packed", [False, True], ids=["full", "packed"])
@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_kernel_matrix_matches_numpy(ctx, rng, N, kernel, packed, method):
    if method == "compute" and packed:                 # no packed layout: refused by name
        with pytest.raises(ValueError, match="no packed layout"):
            glgpgpu.kernel_matrix(rng.standard_normal((N, 5)), kernel=kernel, packed=True, method=method)
        return
    d = 5
    X = rng.standard_normal((N, d))
    g, deg, c0 = 0.3, 3, 0.5
    K = glgpgpu.kernel_matrix(X, kernel=kernel, gamma=g, degree=deg, coef0=c0, packed=packed, method=method)
    want, bound = reference(X, kernel, g, deg, c0)
    low = np.tril(np.ones((N, N), bool))
    err = np.abs(K.astype(np.float64) - want)
    assert (err[low] <= 2 * bound[low] + 1e-30).all(), (err / np.maximum(bound, 1e-300))[low].max()
    assert (K[~low] == 0).all()                   # only the lower triangle is computed


@pytest.mark.parametrize("N", [6, 7])
def test_packed_equals_full_bit_for_bit(ctx, rng, N):
    X = rng.standard_normal((N, 4))
    for kernel in ("linear", "poly", "rbf"):
        a = glgpgpu.kernel_matrix(X, kernel=kernel, method="paper")
        b = glgpgpu.kernel_matrix(X, kernel=kernel, packed=True, method="paper")
        assert np.array_equal(a, b)


def test_default_gamma_is_one_over_features(ctx, rng):
    X = rng.standard_normal((5, 4))
    assert np.array_equal(glgpgpu.kernel_matrix(X), glgpgpu.kernel_matrix(X, gamma=0.25))


@pytest.mark.parametrize("kw, err, match", [
    (dict(gamma=0.0), ValueError, "gamma must be in"),
    (dict(gamma=-1.0), ValueError, "gamma must be in"),
    (dict(degree=0, kernel="poly"), ValueError, "degree must be in"),
    (dict(degree=2.5, kernel="poly"), TypeError, "degree must be an integer"),
    (dict(kernel="sigmoid"), ValueError, "kernel must be one of"),
])
def test_bad_hyperparameters(ctx, kw, err, match):
    with pytest.raises(err, match=match):
        glgpgpu.kernel_matrix(np.ones((3, 2)), **kw)


@pytest.mark.parametrize("X, match", [(np.ones(3), "X must be 2-D"), (np.array([[1.0, np.nan]]), "non-finite")])
def test_bad_data(ctx, X, match):
    with pytest.raises(ValueError, match=match):
        glgpgpu.kernel_matrix(X)


def test_compute_refuses_packed(ctx):
    with pytest.raises(ValueError, match="no packed layout"):
        glgpgpu.kernel_matrix(np.ones((3, 2)), packed=True, method="compute")


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_rbf_far_apart_and_tiny_points(ctx, method):
    """Points ~1e20 apart (true K = I: their squared norms overflowed float32, and K came
    back with ones off the diagonal), and points ~1e-25 apart with gamma 1e49 (squared
    norms underflow): divided by a power of two first, gamma times its square."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((6, 3)) * 1e20
    assert np.array_equal(glgpgpu.kernel_matrix(X, kernel="rbf", method=method), np.eye(6, dtype=np.float32))
    X = rng.standard_normal((6, 3)) * 1e-25
    ref = np.tril(np.exp(-1e49 * ((X[:, None] - X[None]) ** 2).sum(-1)))
    K = glgpgpu.kernel_matrix(X, kernel="rbf", gamma=1e49, method=method)
    assert np.abs(K - ref).max() <= 64 * 2.0 ** -24          # exp of a float32 argument of size ~10
