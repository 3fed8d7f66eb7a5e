"""Weighted least squares with mixed-precision refinement (Algorithm 1).

The float32 x0 has relative error about kappa(C) * u; refinement must bring x to
the float64 solution: we require 1e-9 relative, as the issue asks, on random
(Table 1 style) and ill-conditioned (Table 2 style) problems.
"""
import numpy as np
import pytest

import glgpgpu
from glgpgpu.bench import wls_tables


def ref_solve(A, d2, b):
    return wls_tables.cpu_solve(A, d2, b)


@pytest.mark.parametrize("m", [64, 100, 256])
@pytest.mark.parametrize("table", [1, 2])
@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_refined_solution_matches_float64(ctx, m, table, method):
    A, d2, b = wls_tables.problem(table, m, np.random.default_rng(m))
    x, info = glgpgpu.wls(A, d2, b, method=method)
    xr = ref_solve(A, d2, b)
    assert info.status == "converged" and info.converged
    assert x.dtype == np.float64
    err = np.linalg.norm(x - xr) / np.linalg.norm(xr)
    assert err <= 1e-9, f"refined relative error {err:.3g}"
    # x0 is a float32 solution: error ~ kappa u, far above the refined error
    C = (A * d2) @ A.T
    err0 = np.linalg.norm(info.x0 - xr) / np.linalg.norm(xr)
    assert 1e-8 < err0 <= 10 * m * 2.0 ** -24 * np.linalg.cond(C)
    assert info.iterations == len(info.residuals) >= 1
    assert info.residuals[-1] <= 1e-8
    for phase in ("transfer", "assemble", "factor", "solve", "refine"):
        assert info.times[phase] >= 0.0


def test_packed_gives_the_same_answer(ctx):
    A, d2, b = wls_tables.problem(1, 37, np.random.default_rng(3))
    x1, i1 = glgpgpu.wls(A, d2, b, method="paper")
    x2, i2 = glgpgpu.wls(A, d2, b, packed=True, method="paper")
    assert np.array_equal(i1.x0, i2.x0)          # same float32 arithmetic
    assert np.allclose(x1, x2, rtol=1e-12)


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_rank_deficient_reports_failure(ctx, method):
    rng = np.random.default_rng(5)
    A = rng.random((6, 40))
    A[4] = A[1]                                  # two identical basis functions
    with pytest.warns(RuntimeWarning, match="rank deficient|not positive definite"):
        x, info = glgpgpu.wls(A, rng.random(40), rng.random(40), method=method)
    assert info.status in ("rank deficient", "not positive definite")
    assert not info.converged and np.isnan(x).all()


def test_iteration_limit_is_reported(ctx):
    A, d2, b = wls_tables.problem(2, 32, np.random.default_rng(1))
    with pytest.warns(RuntimeWarning, match="iteration limit"):
        x, info = glgpgpu.wls(A, d2, b, tol=1e-30, max_iter=3)
    assert info.status == "iteration limit" and info.iterations == 3


@pytest.mark.parametrize("args, match", [
    ((np.ones((5, 3)), np.ones(3), np.ones(3)), "m <= n"),
    ((np.ones((2, 3)), np.ones(4), np.ones(3)), "d2 has length 4"),
    ((np.ones((2, 3)), np.ones(3), np.ones(2)), "b has length 2"),
    ((np.ones((2, 3)), -np.ones(3), np.ones(3)), "negative weights"),
    ((np.ones((2, 3)), np.ones(3), [1, np.nan, 1]), "b holds a non-finite"),
])
def test_bad_input(ctx, args, match):
    with pytest.raises(ValueError, match=match):
        glgpgpu.wls(*args)


def test_table_command_runs(ctx, tmp_path, capsys):
    from glgpgpu.cli import main

    assert main(["wls", "--table", "1", "--sizes", "16,24", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Table 1" in out and "speedup" in out
    assert list(tmp_path.glob("wls-table1-*.csv"))
