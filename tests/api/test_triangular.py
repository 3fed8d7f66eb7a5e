"""Triangular solves on the GPU against scipy.linalg.solve_triangular.

Bound (Higham, Thm 8.5): substitution's computed x satisfies (T + dT) x = b with
|dT| <= gamma_m |T|, so the residual obeys |b - T x| <= gamma_m |T| |x|.
"""
import numpy as np
import pytest
import scipy.linalg as sla

import glgpgpu
from bounds import residual_ok, spd

SIZES = [1, 2, 3, 7, 8, 16, 33, 100]


def well_conditioned_lower(m, rng):
    return np.tril(rng.uniform(-1, 1, (m, m))) / np.sqrt(m) + np.diag(rng.uniform(1, 2, m))


CONFIGS = [("paper", False), ("paper", True), ("blocked", False), ("compute", False)]


@pytest.mark.parametrize("m", SIZES)
@pytest.mark.parametrize("nrhs", [1, 8])
@pytest.mark.parametrize("method, packed", CONFIGS, ids=["full", "packed", "blocked", "compute"])
@pytest.mark.parametrize("lower, trans", [(True, False), (True, True), (False, False), (False, True)])
def test_solve_triangular(ctx, rng, m, nrhs, method, packed, lower, trans):
    L = well_conditioned_lower(m, rng)
    T = L if lower else L.T
    B = rng.standard_normal((m, nrhs)) if nrhs > 1 else rng.standard_normal(m)
    X = glgpgpu.solve_triangular(T, B, lower=lower, trans=trans, packed=packed, method=method)
    assert X.shape == B.shape and X.dtype == np.float32
    op = T.T if trans else T
    ok, worst = residual_ok(op, X.reshape(m, -1), B.reshape(m, -1))
    assert ok, f"residual {worst:.3g} x the bound"
    ref = sla.solve_triangular(T, B, lower=lower, trans=1 if trans else 0)
    assert np.allclose(X, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("m", [1, 5, 16, 33])
@pytest.mark.parametrize("method, packed", CONFIGS, ids=["full", "packed", "blocked", "compute"])
def test_cho_solve(ctx, rng, m, method, packed):
    C = spd(m, 1e3, rng)
    L = glgpgpu.cholesky(C, packed=packed, method=method)
    B = rng.standard_normal((m, 8))
    X = glgpgpu.cho_solve(L, B, packed=packed, method=method)
    ref = sla.cho_solve((np.linalg.cholesky(C), True), B)
    # forward error of a backward-stable solve: <= c m u kappa
    rel = np.linalg.norm(X - ref) / np.linalg.norm(ref)
    assert rel <= 8 * m * 2.0 ** -24 * np.linalg.cond(C)


@pytest.mark.parametrize("m", [1, 3, 17, 40])
@pytest.mark.parametrize("method, packed", CONFIGS, ids=["full", "packed", "blocked", "compute"])
def test_the_other_triangle_is_never_read(ctx, rng, m, method, packed):
    """As scipy: solve_triangular reads only the triangle `lower` names, cho_solve
    only L's lower triangle -- huge numbers in the other one change nothing (the
    solves are handed the matrix itself or its transposed view, no tril copy)."""
    L = well_conditioned_lower(m, rng)
    junk = np.triu(np.full((m, m), 3e37), 1)
    B = rng.standard_normal((m, 2))
    for lower in (True, False):
        T = L if lower else L.T
        dirty = T + (junk if lower else junk.T)
        for trans in (False, True):
            clean = glgpgpu.solve_triangular(T, B, lower=lower, trans=trans, packed=packed, method=method)
            got = glgpgpu.solve_triangular(dirty, B, lower=lower, trans=trans, packed=packed, method=method)
            assert np.array_equal(got, clean), (lower, trans)
    assert np.array_equal(glgpgpu.cho_solve(L + junk, B, packed=packed, method=method),
                          glgpgpu.cho_solve(L, B, packed=packed, method=method))


def test_solve_bad_input(ctx):
    with pytest.raises(ValueError, match="B has 2 rows but the matrix has order 3"):
        glgpgpu.solve_triangular(np.eye(3), np.ones(2))
    with pytest.raises(ValueError, match="non-finite"):
        glgpgpu.cho_solve(np.eye(2), [1.0, np.inf])
