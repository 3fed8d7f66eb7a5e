"""Scale invariance as a property (hypothesis): each public function's input scaled by
2^k, k in [-120, 120] (wherever the float64 answer exists), gives the unscaled answer
scaled by the matching power of two within the unscaled problem's float32 bound, with
the same status.  Exact power-of-two scaling around every float32 computation
(layouts/scaling.py) is what makes this hold."""
import numpy as np
from hypothesis import given, strategies as st

import glgpgpu
from bounds import check_adat, check_factor, spd

K = st.integers(-120, 120)
METHOD = st.sampled_from(["paper", "blocked", "compute"])
SEED = st.integers(0, 2 ** 32 - 1)


def f64(x):
    return np.asarray(x, np.float64)


@given(k=st.integers(-60, 60), method=METHOD, seed=SEED)
def test_adat(ctx, k, method, seed):
    """k in [-60, 60]: the answer, A D A^T ~ 2^2k, is returned in float32 (normal there)."""
    rng = np.random.default_rng(seed)
    A, d2 = rng.standard_normal((5, 9)), rng.random(9) + 0.1
    s = 2.0 ** k
    C = f64(glgpgpu.adat(A * s, d2, method=method)) / (s * s)           # exact: powers of two
    check_adat(C.astype(np.float32), A, d2)


@given(k=K, method=METHOD, seed=SEED)
def test_cholesky_and_solves(ctx, k, method, seed):
    rng = np.random.default_rng(seed)
    S, b = spd(6, 1e2, rng), rng.standard_normal(6)
    s = 2.0 ** k
    L = glgpgpu.cholesky(S * s, method=method)                            # L = sqrt(s) L0
    check_factor((f64(L) / np.sqrt(s)).astype(np.float32), S)
    L0 = glgpgpu.cholesky(S, method=method)
    x0 = f64(glgpgpu.cho_solve(L0, b, method=method))
    assert np.allclose(f64(glgpgpu.cho_solve(L0, b * s, method=method)) / s, x0, rtol=1e-6, atol=0)
    y0 = f64(glgpgpu.solve_triangular(L0, b, method=method))
    assert np.allclose(f64(glgpgpu.solve_triangular(L0 * s, b, method=method)) * s, y0, rtol=1e-6, atol=0)


@given(k=K, seed=SEED)
def test_lstsq(ctx, k, seed):
    rng = np.random.default_rng(seed)
    A, b = rng.random((12, 4)), rng.random(12)
    s = 2.0 ** k
    x0, i0 = glgpgpu.lstsq(A, b)
    x, info = glgpgpu.lstsq(A * s, b)                                     # x = x0 / s
    assert info.status == i0.status == "converged"
    assert np.abs(x * s - x0).max() <= 1e-12 * np.abs(x0).max()
    x, info = glgpgpu.lstsq(A, b * s)                                     # x = x0 s
    assert info.status == "converged" and np.abs(x / s - x0).max() <= 1e-12 * np.abs(x0).max()


@given(k=K, seed=SEED)
def test_wls(ctx, k, seed):
    rng = np.random.default_rng(seed)
    A, b, d = rng.random((5, 12)), rng.random(12), rng.random(12) + 0.1
    s = 2.0 ** k
    x0, i0 = glgpgpu.wls(A, d, b)
    x, info = glgpgpu.wls(A, d * s, b)                                    # weights scaled: x unchanged
    assert info.status == i0.status == "converged"
    # both meet the stopping test ||r|| / ||x|| <= tol (1e-8) relative to M = A D A^T's size:
    # each within cond(M) tol of the answer
    kappa = np.linalg.cond((A * d) @ A.T)
    assert np.abs(x - x0).max() <= 2 * kappa * 1e-8 * np.abs(x0).max()


@given(k=st.integers(-120, 60), seed=SEED)
def test_linprog(ctx, k, seed):
    """b scaled by 2^k scales the objective by 2^k, c scaled by 2^k too, with the status
    unchanged.  Below 1 and beyond 2^30 the solver brings the data near 1 by powers of two
    (exact), so the answer is the unscaled one scaled; between, the objective meets the
    stopping test's own measure, HiGHS's: relative to 1 + |objective|.  Up to
    2^60: right-hand sides and costs of 1e20 and more are infinite (HiGHS's rule)."""
    rng = np.random.default_rng(seed)
    A = rng.random((4, 7)) + 0.1
    b, c = A @ (rng.random(7) + 0.5), rng.random(7) + 0.1
    s = 2.0 ** k
    r0 = glgpgpu.optimize.linprog(c, A_ub=-A, b_ub=-b)
    r1 = glgpgpu.optimize.linprog(c, A_ub=-A, b_ub=-b * s)
    r2 = glgpgpu.optimize.linprog(c * s, A_ub=-A, b_ub=-b)
    assert r0.status == r1.status == r2.status == 0
    for r in (r1, r2):
        assert abs(r.fun - s * r0.fun) <= 1e-7 * (abs(s * r0.fun) + (1 if 0 <= k <= 32 else 0))


@given(k=st.integers(-600, 600), seed=SEED)
def test_sparse_lstsq(ctx, k, seed):
    """Sparse input anywhere in float64's range: A scaled by 2^k gives x / 2^k (the
    sparse QR sees A scaled back to near 1 by powers of two)."""
    import scipy.sparse as sp
    rng = np.random.default_rng(seed)
    A = sp.random(30, 8, density=0.4, random_state=rng, format="csr") + sp.eye(30, 8)
    b = rng.standard_normal(30)
    s = 2.0 ** k
    x0, i0 = glgpgpu.sparse_lstsq(A, b)
    x, info = glgpgpu.sparse_lstsq(A * s, b)
    assert info.status == i0.status and info.rank == i0.rank == 8
    assert np.abs(x * s - x0).max() <= 1e-10 * np.abs(x0).max()


@given(k=st.integers(-900, 900), seed=SEED)
def test_linalg_float64(ctx, k, seed):
    """glgpgpu.linalg in float64 anywhere in float64's range (2^-900 ... 2^900, far past
    float32's): cholesky, qr, solve and lstsq scale as the mathematics says, each to
    float64 accuracy."""
    from glgpgpu import linalg
    rng = np.random.default_rng(seed)
    S, A, b = spd(7, 1e2, rng).astype(np.float64), rng.standard_normal((9, 5)), rng.standard_normal(9)
    s = 2.0 ** k
    U0, U = linalg.cholesky(S), linalg.cholesky(S * s)          # U = sqrt(s) U0 (k odd: not exact)
    assert np.abs(U / np.sqrt(s) - U0).max() <= 1e-13 * np.abs(U0).max()
    R0, R = linalg.qr(A, mode="r")[0], linalg.qr(A * s, mode="r")[0]
    assert np.abs(np.abs(R / s) - np.abs(R0)).max() <= 1e-13 * np.abs(R0).max()
    x0 = linalg.solve(S, b[:7])
    assert np.abs(linalg.solve(S * s, b[:7]) * s - x0).max() <= 1e-12 * np.abs(x0).max()
    y0 = linalg.lstsq(A, b)[0]
    assert np.abs(linalg.lstsq(A * s, b)[0] * s - y0).max() <= 1e-12 * np.abs(y0).max()


@given(k=st.integers(-200, 200), seed=SEED)
def test_linprog_coefficients(ctx, k, seed):
    """A's rows scaled by 2^k (with their right-hand sides) describe the same polytope: the
    same optimum, whatever k (geometric scaling in float64 first; a bound is infinite at
    1e20 times its row's largest coefficient, not at 1e20)."""
    rng = np.random.default_rng(seed)
    A = rng.random((4, 7)) + 0.1
    b, c = A @ (rng.random(7) + 0.5), rng.random(7) + 0.1
    s = 2.0 ** k
    r0 = glgpgpu.optimize.linprog(c, A_ub=-A, b_ub=-b)
    r1 = glgpgpu.optimize.linprog(c, A_ub=-A * s, b_ub=-b * s)
    assert r0.status == r1.status == 0
    assert abs(r1.fun - r0.fun) <= 1e-7 * (1 + abs(r0.fun))
