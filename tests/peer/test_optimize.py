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
