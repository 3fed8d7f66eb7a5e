"""glgpgpu.optimize.linprog takes scipy.optimize.linprog's arguments and returns its
OptimizeResult, with scipy's integer statuses; infeasible bounds are reported as such."""
import numpy as np
import pytest
import scipy.optimize as so
import scipy.sparse as sp

import glgpgpu


def test_result_like_scipys(ctx):
    c = [-1.0, 4.0]
    A = [[-3.0, 1.0], [1.0, 2.0]]
    b = [6.0, 4.0]
    bounds = [(None, None), (-3, None)]
    got = glgpgpu.optimize.linprog(c, A_ub=sp.csr_matrix(A), b_ub=np.array(b)[:, None], bounds=bounds)
    want = so.linprog(c, A_ub=A, b_ub=b, bounds=bounds)
    assert got.status == want.status == 0 and got.success
    assert abs(got.fun - want.fun) <= 1e-8 * max(1, abs(want.fun))
    assert np.allclose(got.x, want.x, atol=1e-6) and np.allclose(got.slack, want.slack, atol=1e-6)
    assert got.nit >= 1 and isinstance(got.message, str)


@pytest.mark.parametrize("bound", [(np.inf, np.inf), (-np.inf, -np.inf), (None, -np.inf), (3, 1)])
def test_bounds_that_admit_no_value_are_infeasible(ctx, bound):
    res = glgpgpu.optimize.linprog([1.0, 1.0], bounds=[bound, (0, None)])
    assert res.status == 2 and res.x is None and not res.success


def test_scalar_rhs_equality_and_statuses(ctx):
    res = glgpgpu.optimize.linprog([1.0, 1.0], A_eq=[[1.0, 1.0]], b_eq=2.0)
    assert res.status == 0 and abs(res.fun - 2.0) < 1e-8 and res.con.shape == (1,)
    assert glgpgpu.optimize.linprog([-1.0, 1.0]).status == 3           # unbounded
    with pytest.raises(ValueError, match="simplex"):
        glgpgpu.optimize.linprog([1.0], method="highs-ds")
    with pytest.warns(so.OptimizeWarning):
        glgpgpu.optimize.linprog([1.0], options={"nonsense": 1})


@pytest.mark.parametrize("seed", [0, 42])
def test_marginals_agree_with_highs(ctx, seed):
    """Duals from the interior point's float64 multipliers: scipy's random LP with
    equalities, inequalities and finite and infinite bounds, against HiGHS's marginals."""
    from scipy.optimize.tests.test_linprog import very_random_gen
    c, A_ub, b_ub, A_eq, b_eq, bounds = very_random_gen(seed)
    got = glgpgpu.optimize.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds)
    want = so.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds)
    for key in ("ineqlin", "eqlin", "lower", "upper"):
        scale = 1 + np.abs(want[key].marginals).max()
        assert np.abs(got[key].marginals - want[key].marginals).max() <= 1e-7 * scale, key
    resid = -c + A_ub.T @ got.ineqlin.marginals + A_eq.T @ got.eqlin.marginals + got.lower.marginals + got.upper.marginals
    assert np.abs(resid).max() <= 1e-12                      # exactly dual feasible (float64 rounding)
    tiny = 1e-9 * (1 + np.abs(got.ineqlin.marginals).max())       # the interior point's duals, to its tolerance
    assert (got.ineqlin.marginals <= tiny).all() and (got.lower.marginals >= -tiny).all()
    assert (got.upper.marginals <= tiny).all()


def test_infeasible_is_not_unbounded(ctx):
    """A negative-cost column in no constraint makes c^T x fall forever -- but only a
    feasible problem is unbounded: here x1 >= 0 cannot equal -1."""
    res = glgpgpu.optimize.linprog([-1.0, 0.0], A_eq=[[0.0, 1.0]], b_eq=[-1.0])
    assert res.status == 2, res.message
    m = 50                                                   # scipy's enzo example, presolve off
    t = 2 * np.pi * np.arange(m) / (m + 1)
    res = glgpgpu.optimize.linprog(-np.ones(m), A_eq=np.vstack((np.cos(t) - 1, np.sin(t))), b_eq=[1, 1],
                                   options={"presolve": False})
    assert res.status == 2, res.message
    assert glgpgpu.optimize.linprog([-1.0, 0.0], A_eq=[[0.0, 1.0]], b_eq=[1.0]).status == 3   # feasible: unbounded


def test_rows_presolve_and_duals_of_dropped_rows(ctx):
    """Singleton rows become bounds (found infeasible with 0 iterations); a dropped row
    whose bound holds its variable gets the multiplier back."""
    res = glgpgpu.optimize.linprog([1.0], A_ub=[[2.0]], b_ub=[4.0], bounds=(5, 6))
    assert res.status == 2 and res.nit == 0
    c, A, b = [-1.0, -2.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [3.0, 2.0, 4.0]
    got, want = glgpgpu.optimize.linprog(c, A_ub=A, b_ub=b), so.linprog(c, A_ub=A, b_ub=b)
    assert np.allclose(got.ineqlin.marginals, want.ineqlin.marginals, atol=1e-8)
    assert np.allclose(got.x, want.x, atol=1e-7)


def test_huge_bounds_and_costs(ctx):
    """A finite bound of 1e300 is no bound (HiGHS's rule: >= 1e20); a cost of 1e30 is refused
    by name (HiGHS: infinite cost) rather than answered from a relative tolerance."""
    res = glgpgpu.optimize.linprog([1.0, 1.0], A_ub=[[-1.0, -1.0]], b_ub=[-1.0], bounds=[(0, 1e300), (0, None)])
    assert res.status == 0 and abs(res.fun - 1.0) < 1e-8
    with pytest.raises(ValueError, match="infinite"):
        glgpgpu.optimize.linprog([1e30, 1.0], A_ub=[[-1.0, -1.0]], b_ub=[-1.0])


def test_callback_once_per_iteration(ctx):
    """callback= gets scipy's OptimizeResult (fun, nit) once per interior-point iteration
    (where HiGHS refuses callbacks); crossover_nit is 0: there is no crossover."""
    seen = []
    res = glgpgpu.optimize.linprog([-1.0, 4.0], A_ub=[[-3.0, 1.0], [1.0, 2.0]], b_ub=[6.0, 4.0],
                                   bounds=[(None, None), (-3, None)], callback=lambda r: seen.append((r.nit, r.fun)))
    assert res.status == 0 and res.crossover_nit == 0
    assert [nit for nit, _ in seen] == list(range(res.nit + 1))
    assert abs(seen[-1][1] - res.fun) <= 1e-8 * (1 + abs(res.fun))


@pytest.mark.parametrize("A_ub, b_ub, c, status", [([[1, 1]], [-1], [1, 1], 2), ([[1, -1]], [1], [-1, -1], 3)])
def test_infeasible_and_unbounded_results_have_scipys_keys(ctx, A_ub, b_ub, c, status):
    """As scipy's HiGHS methods: no point, so x, fun, slack, con and every marginal are None,
    and the four dual entries are there."""
    import scipy.optimize
    want = scipy.optimize.linprog(c, A_ub=A_ub, b_ub=b_ub, method="highs-ipm")
    got = glgpgpu.optimize.linprog(c, A_ub=A_ub, b_ub=b_ub)
    assert got.status == want.status == status
    for key in ("x", "fun", "slack", "con"):
        assert got[key] is None and want[key] is None, key
    for key in ("ineqlin", "eqlin", "lower", "upper"):
        assert got[key].residual is None and got[key].marginals is None, key
