"""scipy's habits must not give silent wrong answers: an upper matrix where the lower
triangle is read (solve_triangular's default, scipy's upper Cholesky factor, np.triu(A)
to cholesky) is refused by name; the lower forms still work, and a matrix whose first
column is empty below the diagonal is not mistaken for an upper one."""
import numpy as np
import pytest

import glgpgpu


@pytest.fixture
def spd(rng):
    A = rng.standard_normal((7, 7))
    return A @ A.T + 7 * np.eye(7)


def test_upper_matrix_with_lower_default(ctx, spd):
    U = np.linalg.cholesky(spd).T
    with pytest.raises(ValueError, match="lower=False"):
        glgpgpu.solve_triangular(U, np.ones(7))
    x = glgpgpu.solve_triangular(U, np.ones(7), lower=False)
    assert np.abs(U @ x - 1).max() < 1e-5
    with pytest.raises(ValueError, match="lower=True"):
        glgpgpu.solve_triangular(U.T, np.ones(7), lower=False)


def test_scipy_upper_factor_to_cho_solve(ctx, spd):
    U = np.linalg.cholesky(spd).T
    with pytest.raises(ValueError, match="upper factor"):
        glgpgpu.cho_solve(U, np.ones(7))
    x = glgpgpu.cho_solve(U.T, np.ones(7))
    assert np.abs(spd @ x - 1).max() < 1e-4


def test_triu_to_cholesky(ctx, spd):
    with pytest.raises(ValueError, match="lower triangle"):
        glgpgpu.cholesky(np.triu(spd))
    L = glgpgpu.cholesky(np.tril(spd))
    assert np.abs(L.astype(np.float64) @ L.T - spd).max() < 1e-4


def test_diagonal_and_sparse_first_column_are_fine(ctx, rng):
    assert np.array_equal(glgpgpu.cholesky(np.diag([4.0, 9.0, 16.0])), np.diag([2.0, 3.0, 4.0]).astype(np.float32))
    L = np.tril(rng.random((6, 6))) + 6 * np.eye(6)
    L[1:, 0] = 0                                   # data below the diagonal, not in column 0
    x = glgpgpu.solve_triangular(L, np.ones(6))
    assert np.abs(L @ x - 1).max() < 1e-5


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
@pytest.mark.parametrize("m, i", [(2, 1), (5, 3), (67, 66)])
def test_a_factor_that_overflows_is_refused_at_its_pivot(ctx, method, m, i):
    """cholesky keeps no pass over L for inf or NaN: an entry of row i past float32's range
    (here l_i0 = c_i0 / sqrt(c_00) ~ 1e21, its square inf) makes pivot i -inf or NaN, and the
    pivot check names row i instead of returning a factor that is not finite."""
    C = np.eye(m, dtype=np.float32)
    C[0, 0] = 1e-36
    C[i, 0] = C[0, i] = 1e3
    with pytest.raises(glgpgpu.NotPositiveDefiniteError) as err:
        glgpgpu.cholesky(C, method=method)
    assert err.value.pivot == i
