"""The GPU interior-point LP solver: standard-form conversion against HiGHS,
NETLIB problems end to end at the paper's tolerances, infeasible and unbounded
toys, bad input."""

import numpy as np
import pytest
import scipy.optimize as so

import glgpgpu
from glgpgpu.bench import lp_table3 as table3
from glgpgpu.solvers.lp import problem
from glgpgpu.solvers.lp.problem import GeneralLP, to_standard_form

INF = np.inf


def every_bound_type():
    """A small feasible LP using every kind of row and column bound."""
    A = np.array([[1.0, 2.0, -1.0, 0.5, 1.0, 0.0],
                  [0.0, 1.0, 1.0, 1.0, -1.0, 1.0],
                  [2.0, -1.0, 0.0, 1.0, 0.0, 1.0],
                  [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
                  [0.3, 0.0, 0.0, 0.0, 0.0, 2.0]])
    row_lo = np.array([1.0, -INF, 0.5, -INF, -INF])        # >=, <=, ranged, <= , free
    row_up = np.array([INF, 4.0, 3.0, 10.0, INF])
    row_lo[3] = row_up[3] = 6.0                             # equality
    col_lo = np.array([0.0, -1.0, -INF, -INF, 2.0, 1.5])   # x>=0, boxed, upper only, free, lower, fixed
    col_up = np.array([INF, 2.0, 3.0, INF, INF, 1.5])
    c = np.array([1.0, -2.0, 0.5, 0.25, 1.0, 3.0])
    return GeneralLP(c, A, row_lo, row_up, col_lo, col_up, offset=7.0)


def highs_general(lp):
    rows = [(lp.A[i], lp.row_lo[i], lp.row_up[i]) for i in range(lp.A.shape[0])]
    A_ub, b_ub, A_eq, b_eq = [], [], [], []
    for a, lo, up in rows:
        if lo == up:
            A_eq.append(a), b_eq.append(lo)
            continue
        if up < INF:
            A_ub.append(a), b_ub.append(up)
        if lo > -INF:
            A_ub.append(-a), b_ub.append(-lo)
    r = so.linprog(lp.c, A_ub=np.array(A_ub), b_ub=b_ub, A_eq=np.array(A_eq) if A_eq else None,
                   b_eq=b_eq or None, bounds=list(zip(np.where(np.isinf(lp.col_lo), None, lp.col_lo),
                                                      np.where(np.isinf(lp.col_up), None, lp.col_up))))
    assert r.status == 0
    return r.fun + lp.offset


def test_standard_form_matches_highs_on_every_bound_type():
    lp = every_bound_type()
    sf = to_standard_form(lp)
    r = so.linprog(sf.c, A_eq=sf.A, b_eq=sf.b, bounds=(0, None))
    assert r.status == 0
    x = sf.recover(r.x)
    want = highs_general(lp)
    assert abs(problem.objective(lp, x) - want) <= 1e-9 * (1 + abs(want))
    assert abs(r.fun + sf.const - want) <= 1e-9 * (1 + abs(want))
    assert problem.max_violation(lp, x) <= 1e-9


def test_a_sparse_a_is_the_same_problem_as_its_dense_copy():
    """from_mps keeps A sparse (CSC: dfl001's dense copy was 74 M entries, and the row
    presolve's dense passes over it cost seconds); the row presolve and the general
    form's checks give the same answer for A sparse and A dense, and the fixed
    variables' part of a row is summed exactly, whatever the order of the nonzeros."""
    import scipy.sparse as sp
    from glgpgpu.solvers.lp import presolve
    lp = problem.from_mps(table3.data_dir() / "adlittle.mps.gz")
    assert sp.issparse(lp.A)
    dense = GeneralLP(lp.c, lp.A.toarray(), lp.row_lo, lp.row_up, lp.col_lo, lp.col_up, lp.offset)
    for a, b in [(lp, dense), (every_bound_type(), None)]:
        b = b or GeneralLP(a.c, sp.csc_matrix(a.A), a.row_lo, a.row_up, a.col_lo, a.col_up, a.offset)
        ta, tb = presolve.tighten(a), presolve.tighten(b)
        assert np.array_equal(ta.rows, tb.rows) and ta.order == tb.order
        assert np.array_equal(ta.lp.col_lo, tb.lp.col_lo) and np.array_equal(ta.lp.col_up, tb.lp.col_up)
        Aa, Ab = ta.lp.A, tb.lp.A
        assert np.array_equal(Aa.toarray() if sp.issparse(Aa) else Aa, Ab.toarray() if sp.issparse(Ab) else Ab)
        x = np.where(np.isfinite(a.col_lo), a.col_lo, 0.0)
        assert problem.max_violation(a, x) == problem.max_violation(b, x)
        y = np.linspace(-1, 1, len(ta.rows))
        assert np.allclose(presolve.row_duals(ta, a, y), presolve.row_duals(tb, b, y), rtol=1e-15, atol=0)
    vals = np.array([1e16, 1.0, -1e16, 1.0])
    assert presolve._exact_dot(vals, np.ones(4)) == presolve._exact_dot(vals[::-1], np.ones(4)) == 2.0


@pytest.mark.parametrize("device", ["gpu", "cpu64"])
def test_solver_on_every_bound_type(ctx, device):
    lp = every_bound_type()
    res = glgpgpu.solvers.lp.solve_general(lp, tol=1e-5 if device == "gpu" else 1e-8, device=device)
    want = highs_general(lp)
    assert res.status == "optimal"
    tol = 1e-7 if device == "cpu64" else 1e-4
    assert abs(res.objective - want) <= tol * (1 + abs(want))
    assert res.violation <= (1e-6 if device == "cpu64" else 1e-3)


def test_linprog_interface_matches_scipy(ctx):
    rng = np.random.default_rng(4)
    A_ub = rng.random((6, 9))
    b_ub = A_ub @ rng.random(9) + 0.5
    A_eq = rng.random((2, 9))
    b_eq = A_eq @ rng.random(9)
    c = rng.standard_normal(9)
    bounds = [(0, 2)] * 9
    want = so.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds).fun
    res = glgpgpu.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, tol=1e-5)
    assert res.status == "optimal" and res.success
    assert abs(res.objective - want) <= 1e-4 * (1 + abs(want))
    assert len(res.log) == res.iterations + 1


@pytest.mark.parametrize("name", ["afiro", "sc50b", "blend"])
@pytest.mark.parametrize("method", ["paper", "blocked"])
def test_netlib_end_to_end(ctx, name, method):
    ref, eps, paper_iters, *_ = table3.PAPER[name]
    res = glgpgpu.solve_mps(table3.data_dir() / f"{name}.mps.gz", tol=eps, method=method)
    assert res.status == "optimal", res.message
    assert abs(res.objective - ref) <= eps * abs(ref), f"objective {res.objective} vs {ref}"
    assert res.iterations <= 2 * paper_iters


def test_inner_and_outer_cholesky_agree(ctx):
    path = table3.data_dir() / "afiro.mps.gz"
    a = glgpgpu.solve_mps(path, tol=4e-5, cholesky="outer", method="paper")
    b = glgpgpu.solve_mps(path, tol=4e-5, cholesky="inner", method="paper")
    assert a.iterations == b.iterations and abs(a.objective - b.objective) <= 1e-6 * abs(a.objective)


@pytest.mark.parametrize("device", ["gpu", "cpu64"])
@pytest.mark.parametrize("args, status", [
    (dict(c=[1, 1], A_eq=[[1, 1]], b_eq=[-1]), "infeasible"),
    (dict(c=[1, 1], A_ub=[[1, 1], [-1, -1]], b_ub=[1, -3]), "infeasible"),
    (dict(c=[-1, 0], A_eq=[[1, -1]], b_eq=[0]), "unbounded"),
    (dict(c=[-1, -1], A_ub=[[1, -1]], b_ub=[1]), "unbounded"),
    (dict(c=[-1, 1], A_eq=[[0, 1]], b_eq=[1]), "unbounded"),        # x0 in no row, negative cost
    (dict(c=[1, 1], bounds=[(2, 1), (0, None)], A_eq=[[1, 1]], b_eq=[3]), "infeasible"),
])
@pytest.mark.parametrize("precision", ["mixed", "single"])
def test_infeasible_and_unbounded_are_reported(ctx, device, args, status, precision):
    res = glgpgpu.linprog(**args, device=device, max_iter=60, precision=precision)
    assert res.status == status, (res.status, res.message)
    # the optimal value of an infeasible minimization is +inf, of an unbounded one -inf
    assert not res.success and res.objective == (np.inf if status == "infeasible" else -np.inf)


def test_dependent_rows_are_removed(ctx):
    A_eq = np.array([[1.0, 1, 1], [2, 2, 2], [1, 0, 1]])
    res = glgpgpu.linprog([1, 2, 3], A_eq=A_eq, b_eq=[1, 2, 0.5], tol=1e-5)
    assert res.status == "optimal" and abs(res.objective - 1.5) < 1e-4
    bad = glgpgpu.linprog([1, 2, 3], A_eq=A_eq, b_eq=[1, 3, 0.5])
    assert bad.status == "infeasible"


@pytest.mark.parametrize("kwargs, match", [
    (dict(c=[1, 2], A_ub=[[1, 2, 3]], b_ub=[1]), "A_ub has 3 columns"),
    (dict(c=[1, 2], A_eq=[[1, 2]], b_eq=[1, 2]), "b_eq has 2 entries"),
    (dict(c=[1, np.nan], A_eq=[[1, 2]], b_eq=[1]), "non-finite"),
    (dict(c=[1, 2], A_eq=[[1, 2]], b_eq=[1], cholesky="diagonal"), "cholesky must be"),
    (dict(c=[1, 2], A_eq=[[1, 2]], b_eq=[1], tol=0), "tol must be"),
    (dict(c=[1, 2], A_eq=[[1, 2]], b_eq=[1], device="tpu"), "device must be"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        glgpgpu.linprog(**kwargs)


def test_missing_mps_file():
    with pytest.raises(FileNotFoundError):
        glgpgpu.solve_mps("/nonexistent/problem.mps")


def test_lp_command(ctx, capsys):
    from glgpgpu.cli import main

    path = str(table3.data_dir() / "afiro.mps.gz")
    assert main(["lp", path, "--tol", "4e-5"]) == 0
    out = capsys.readouterr().out
    assert "status: optimal" in out and "primal obj" in out


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_the_2006_solver_runs_on_every_method_and_gives_its_buffers_back(ctx, method):
    """precision="single" keeps its vectors in textures (the methods' ResidentNormal);
    the compute method's once failed releasing buffers it never had."""
    before = ctx.buffers.outstanding
    res = glgpgpu.solve_mps(table3.data_dir() / "afiro.mps.gz", precision="single", method=method, ctx=ctx)
    assert res.status == "optimal" and abs(res.objective + 464.7531428) <= 1e-3 * 464.75
    assert ctx.buffers.outstanding == before


@pytest.mark.parametrize("m,n,seed", [(1, 3, 0), (2, 5, 1), (7, 12, 2), (40, 90, 3), (41, 30, 4)])
def test_duals_held_by_bounds_are_the_minimum_norm_change(m, n, seed):
    """_held_by_bounds zeroes the reduced costs a missing bound cannot hold by the least
    change of y.  It solves only on the rows the loose columns touch; the change is the
    one a least-squares solve over all rows gives (zero on the untouched rows), sparse
    or dense A alike (no GL)."""
    import scipy.sparse as sp
    from glgpgpu.solvers.lp.solver import _held_by_bounds
    rng = np.random.default_rng(seed)
    A = sp.random(m, n, density=0.2, random_state=rng, format="csr").toarray()
    A[m // 2] = 0.0                                        # an untouched row
    col_lo = np.where(rng.random(n) < 0.5, -INF, 0.0)      # free or lower-bounded columns
    lp = GeneralLP(rng.standard_normal(n), A, np.full(m, -1.0), np.full(m, 1.0), col_lo, np.full(n, INF))
    y0 = rng.standard_normal(m)
    d = lp.c - A.T @ y0
    loose = ((d > 0) & ~np.isfinite(lp.col_lo)) | ((d < 0) & ~np.isfinite(lp.col_up))
    want = y0 + np.linalg.lstsq(A[:, loose].T, d[loose], rcond=None)[0] if loose.any() else y0
    for given in (A, sp.csc_matrix(A)):
        lp.A = given
        y, _ = _held_by_bounds(lp, y0, rounds=1)
        assert np.allclose(y, want, rtol=1e-10, atol=1e-10 * (1 + np.abs(want).max()))
        assert y[m // 2] == y0[m // 2]


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_linprog_keeps_a_sparse_a_sparse(fmt):
    """glgpgpu.linprog and glgpgpu.optimize.linprog take scipy.sparse A_ub / A_eq as they are (no dense
    copy): the same answer as the dense call; a non-finite entry is named by its place."""
    import scipy.sparse as sp
    import glgpgpu.optimize
    rng = np.random.default_rng(5)
    A_ub = sp.random(7, 11, density=0.4, random_state=rng, format=fmt) + sp.eye(7, 11, format=fmt)
    A_eq = sp.random(3, 11, density=0.5, random_state=rng, format=fmt)
    c, b_ub, b_eq = rng.uniform(0.5, 2, 11), np.full(7, 5.0), A_eq @ np.full(11, 0.3)
    sparse = glgpgpu.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, 4))
    dense = glgpgpu.linprog(c, A_ub=A_ub.toarray(), b_ub=b_ub, A_eq=A_eq.toarray(), b_eq=b_eq, bounds=(0, 4))
    assert sparse.status == dense.status == "optimal"
    assert abs(sparse.objective - dense.objective) <= 1e-9 * abs(dense.objective)
    assert glgpgpu.optimize.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, 4)).status == 0
    bad = sp.csr_matrix(A_ub, copy=True)
    bad.data[3] = np.nan
    i, j = bad.nonzero()[0][3], bad.nonzero()[1][3]
    with pytest.raises(ValueError, match=rf"A_ub must be finite; entry \({i}, {j}\) is nan"):
        glgpgpu.linprog(c, A_ub=bad, b_ub=b_ub)
    with pytest.raises(ValueError, match="A_eq has 10 columns but c has 11"):
        glgpgpu.linprog(c, A_eq=sp.csr_matrix(A_eq)[:, :10], b_eq=b_eq)


def test_a_large_sparse_lp_stays_sparse_and_on_the_host():
    """A 12,000-row multi-period LP (three products, 3,000 periods, inventory balances): A sparse
    in, its factor counted by the symbolic analysis (past device.COUNT_ROWS), cheap, so factored
    on the host -- no 12,000^2 dense normal matrix -- and HiGHS's optimum to 1e-8."""
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    T, P = 3000, 3
    nx = T * P
    r = np.arange(nx)
    t = r // P
    rows = np.concatenate([r, r, r[t > 0]])
    cols = np.concatenate([r, nx + r, nx + r[t > 0] - P])                   # x_tp - I_tp + I_(t-1)p = d_tp
    vals = np.concatenate([np.ones(nx), -np.ones(nx), np.ones(int((t > 0).sum()))])
    A_eq = sp.csr_matrix((vals, (rows, cols)), shape=(nx, 2 * nx))
    A_ub = sp.csr_matrix((np.ones(nx), (t, r)), shape=(T, 2 * nx))          # capacity per period
    b_eq, b_ub = rng.uniform(1, 10, nx), np.full(T, 25.0)
    c = np.concatenate([rng.uniform(1, 3, nx), rng.uniform(0.1, 0.5, nx)])
    res = glgpgpu.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq)
    assert res.status == "optimal" and res.stats["device"] == "cpu64" and res.stats["factor_flops"] < 1e8
    ref = so.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, method="highs")
    assert abs(res.objective - ref.fun) <= 1e-8 * abs(ref.fun)


@pytest.mark.parametrize("rows,cols,kind", [(1, 1, "plain"), (7, 3, "plain"), (120, 50, "ill"), (60, 30, "dependent"),
                                            (5, 9, "plain")])
def test_the_duals_least_change_is_lstsqs_minimum_norm_one(rows, cols, kind):
    """The duals' least change of y (solver._least_change): the minimum-norm dy with B^T dy = r
    by the Cholesky factor of B^T B, refined -- LAPACK's least squares' answer, also for an
    ill-conditioned B (cond 1e6, which B^T B squares), dependent columns and more columns
    than rows (those two by LAPACK itself)."""
    import scipy.sparse as sp
    from glgpgpu.solvers.lp.solver import _least_change
    rng = np.random.default_rng(rows)
    B = rng.standard_normal((rows, cols)) * (rng.random((rows, cols)) < 0.5) + np.eye(rows, cols)
    if kind == "ill":
        U, _, Vt = np.linalg.svd(B, full_matrices=False)
        B = U @ np.diag(np.logspace(0, -6, cols)) @ Vt
    if kind == "dependent":
        B[:, -1] = B[:, 0] + B[:, 1]
    r = rng.standard_normal(cols)
    dy = _least_change(sp.csr_matrix(B), r)
    ref = np.linalg.lstsq(B.T, r, rcond=None)[0]
    assert np.allclose(dy, ref, rtol=0, atol=1e-8 * np.abs(ref).max())
