"""Property tests of linprog: random small LPs that are feasible and bounded by
construction (x0 >= 0 feasible, c = A^T y + s with s > 0 dual feasible), against
HiGHS through scipy.optimize.linprog."""
import numpy as np
import scipy.optimize as so
from hypothesis import given, strategies as st

import glgpgpu


@st.composite
def lps(draw):
    m = draw(st.integers(1, 5))
    n = draw(st.integers(m + 1, m + 6))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    A = np.round(rng.uniform(-3, 3, (m, n)), 1)
    x0 = rng.uniform(0, 2, n)
    b = A @ x0
    kind = draw(st.sampled_from(["eq", "ub"]))
    y = rng.uniform(-1, 1, m) if kind == "eq" else -rng.uniform(0, 1, m)   # A x <= b needs y <= 0
    c = A.T @ y + rng.uniform(0.1, 2, n)
    return c, A, b, kind


@given(lps(), st.sampled_from(["paper", "blocked"]))
def test_linprog_matches_highs(ctx, lp, method):
    c, A, b, kind = lp
    args = dict(A_eq=A, b_eq=b) if kind == "eq" else dict(A_ub=A, b_ub=b)
    ref = so.linprog(c, **args, method="highs")
    assert ref.status == 0
    res = glgpgpu.linprog(c, **args, method=method)
    assert res.status == "optimal", res.message
    assert abs(res.objective - ref.fun) <= 1e-7 * (1 + abs(ref.fun)), (res.objective, ref.fun)   # tol 1e-8
