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
    (where HiGHS refuses callbacks); the crossover after them counts its own (crossover_nit)."""
    seen = []
    res = glgpgpu.optimize.linprog([-1.0, 4.0], A_ub=[[-3.0, 1.0], [1.0, 2.0]], b_ub=[6.0, 4.0],
                                   bounds=[(None, None), (-3, None)], callback=lambda r: seen.append((r.nit, r.fun)))
    assert res.status == 0 and res.crossover_nit >= 1
    assert [nit for nit, _ in seen] == list(range(res.nit + 1))
    assert abs(seen[-1][1] - res.fun) <= 1e-8 * (1 + abs(res.fun))


FACE = dict(c=[0.0, 0.0, 1.0], A_ub=[[1.0, 1.0, 0.0]], b_ub=[4.0], A_eq=[[0.0, 0.0, 1.0]], b_eq=[1.0])


def test_crossover_returns_a_vertex_as_highs_ipm_does(ctx):
    """A face of optima (c = 0 on x0, x1 in x0 + x1 <= 4, x >= 0): the interior point stops near
    the face's centre; crossover (on by default, as scipy's highs-ipm) returns a vertex -- every
    column at a bound or basic, at most one basic per row -- with duals satisfying the optimality
    conditions exactly; options={"crossover": False} keeps the interior point (crossover_nit 0)."""
    res = glgpgpu.optimize.linprog(**FACE)
    assert res.status == 0 and res.crossover_nit >= 1 and abs(res.fun - 1.0) <= 1e-12
    x = res.x
    at_bound = np.isclose(x[:2], 0.0, atol=1e-12).sum() + np.isclose(res.slack, 0.0, atol=1e-12).sum()
    assert at_bound >= 2                              # 2 of the 3 nonbasic among x0, x1 and the slack
    inside = glgpgpu.optimize.linprog(**FACE, options={"crossover": False})
    assert inside.status == 0 and inside.crossover_nit == 0
    assert np.all(inside.x[:2] > 1e-3) and inside.slack[0] > 1e-3             # the face's inside
    assert abs(inside.fun - res.fun) <= 1e-8


def test_crossover_in_glgpgpu_linprog_is_asked_for(ctx):
    """glgpgpu.linprog crosses over only when asked (crossover=True); precision="single" has no
    duals to start from and says so; a crossover HiGHS does not finish leaves the interior point's
    answer, and the message says why."""
    from glgpgpu.solvers.lp import solver
    kw = {k: v for k, v in FACE.items() if k != "c"}
    plain = glgpgpu.linprog(FACE["c"], **kw)
    vertex = glgpgpu.linprog(FACE["c"], **kw, crossover=True)
    assert plain.crossover_iterations == 0 and vertex.crossover_iterations >= 1
    assert abs(vertex.objective - plain.objective) <= 1e-8 and vertex.violation <= 1e-12
    with pytest.raises(ValueError, match="precision='single'"):
        glgpgpu.linprog(FACE["c"], **kw, crossover=True, precision="single")
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(solver, "to_vertex", lambda lp, x, y: None)
        kept = glgpgpu.linprog(FACE["c"], **kw, crossover=True)
    finally:
        mp.undo()
    assert kept.status == "optimal" and kept.crossover_iterations == 0 and "crossover did not" in kept.message
    assert np.allclose(kept.x, plain.x)


@pytest.mark.parametrize("name", ["afiro", "sc50b", "adlittle", "blend", "agg2", "bandm"])
def test_crossover_on_netlib_reaches_highs_optimum(ctx, name):
    """The vertex of shipped NETLIB problems: HiGHS's optimum (data/netlib/optima.csv) to 1e-9
    relative, primal feasible to 1e-9 of the rows' size."""
    import csv
    from glgpgpu.bench import lp_table3
    from glgpgpu.solvers.lp.problem import from_mps, max_violation
    from glgpgpu.solvers.lp.solver import solve_general
    folder = lp_table3.data_dir()
    want = {r["problem"]: float(r["highs_objective"]) for r in csv.DictReader(open(folder / "optima.csv"))}[name]
    lp = from_mps(str(folder / f"{name}.mps.gz"))
    res = solve_general(lp, crossover=True)
    assert res.status == "optimal" and res.crossover_iterations >= 1
    assert abs(res.objective - want) <= 1e-9 * max(1.0, abs(want))
    size = 1.0 + max(np.abs(lp.row_up[np.isfinite(lp.row_up)]).max(initial=0.0),
                     np.abs(lp.row_lo[np.isfinite(lp.row_lo)]).max(initial=0.0))
    assert max_violation(lp, res.x) <= 1e-9 * size


@pytest.mark.parametrize("alpha", [0.0, 0.05])
def test_sklearn_quantile_regressor_through_glgpgpu(ctx, alpha, monkeypatch):
    """scikit-learn's QuantileRegressor solves its LP by scipy's linprog; with glgpgpu's in its
    place it reaches the pinball loss (plus penalty) of scikit-learn's own HiGHS fit to 1e-7.
    alpha = 0 writes each coefficient as beta+ - beta- at no cost (an unbounded optimal face),
    which ended in numerical trouble before a stalled run was solved again with each pair made
    one free column."""
    sklearn = pytest.importorskip("sklearn")
    from sklearn.linear_model import QuantileRegressor, _quantile
    rng = np.random.default_rng(7)
    X = rng.standard_normal((600, 8))
    y = X @ rng.standard_normal(8) + rng.standard_normal(600)

    def objective(model):
        r = y - model.predict(X)
        return float(np.sum(np.maximum(0.3 * r, (0.3 - 1) * r)) / len(y) + alpha * np.abs(model.coef_).sum())

    ref = QuantileRegressor(quantile=0.3, alpha=alpha, solver="highs").fit(X, y)
    monkeypatch.setattr(_quantile, "linprog", glgpgpu.optimize.linprog)
    ours = QuantileRegressor(quantile=0.3, alpha=alpha, solver="highs").fit(X, y)
    assert sklearn.__version__ and abs(objective(ours) - objective(ref)) <= 1e-7 * max(1.0, objective(ref))
