"""Round 3 of the hostile inputs: each row right or named (data far from 1 in size,
complex values in any sparse format, an SPD matrix whose diagonal spans float32's range,
max_iter=0, a bytes path, float32's smallest numbers)."""
import numpy as np
import pytest
import scipy.sparse as sp

import glgpgpu


@pytest.mark.parametrize("fmt", ["lil", "dok", "csr", "coo"])
def test_complex_sparse_is_refused_in_every_format(fmt):
    A = sp.random(6, 3, density=0.6, random_state=np.random.default_rng(1)).astype(complex).tolil()
    A[0, 0] = 1 + 2j
    A = A.asformat(fmt)
    for call in (lambda: glgpgpu.sparse_lstsq(A, np.ones(6)), lambda: glgpgpu.sparse_qr(A)):
        with pytest.raises(ValueError, match="complex"):
            call()


@pytest.mark.parametrize("scale_a", [1e-200, 1e-100, 1e-46, 1e39, 1e200])
@pytest.mark.parametrize("scale_b", [1.0, 1e-150, 1e150])
def test_sparse_lstsq_far_from_one(ctx, scale_a, scale_b):
    rng = np.random.default_rng(3)
    A = sp.random(40, 15, density=0.3, random_state=rng, format="csr") + sp.eye(40, 15)
    b = rng.standard_normal(40)
    if scale_b / scale_a > 1e300:                   # the answer itself passes float64's range: named
        with pytest.raises(OverflowError, match="float64's range"):
            glgpgpu.sparse_lstsq(A * scale_a, b * scale_b, method="host")
        return
    x, info = glgpgpu.sparse_lstsq(A * scale_a, b * scale_b, method="host")
    want = np.linalg.lstsq(A.toarray(), b, rcond=None)[0] * (scale_b / scale_a)
    assert info.converged and info.rank == 15
    top = np.abs(want).max()                        # compared at size 1: norms of 1e196s overflow
    if top < 1e-300:                                # the answer is below float64's normal numbers
        assert np.abs(x).max() < 1e-300
        return
    assert np.linalg.norm(x / top - want / top) <= 1e-10 * np.linalg.norm(want / top)


def test_sparse_qr_names_an_r_beyond_float32():
    A = sp.eye(5, 3, format="csc") * 1e-200
    with pytest.raises(ValueError, match="outside float32's range"):
        glgpgpu.sparse_qr(A)
    fac = glgpgpu.sparse_qr(sp.eye(5, 3, format="csc") * 1e-20)
    assert fac.rank == 3 and np.allclose(np.abs(fac.R.diagonal()), 1e-20)


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_cholesky_of_a_diagonal_spanning_float32(ctx, method):
    """diag(1e-30, 1, 1e30) is SPD in float32: equilibrated by powers of two, not refused;
    and a pivot that fails is named where it fails (pivot 1 here, not 0)."""
    L = glgpgpu.cholesky(np.diag([1e-30, 1.0, 1e30]), method=method)
    assert np.allclose(np.diagonal(L), [1e-15, 1.0, 1e15], rtol=1e-6)
    with pytest.raises(np.linalg.LinAlgError, match="pivot 1 ") as err:
        glgpgpu.cholesky(np.array([[1e-30, 1e19], [1e19, 1.0]]), method=method)
    assert err.value.pivot == 1


@pytest.mark.parametrize("scale", [1e-60, 1e-40, 1e40, 1e60])
def test_lstsq_and_wls_far_from_one(ctx, scale):
    rng = np.random.default_rng(4)
    A = rng.standard_normal((50, 8))
    b = rng.standard_normal(50)
    x, info = glgpgpu.lstsq(A * scale, b)
    want = np.linalg.lstsq(A, b, rcond=None)[0] / scale
    assert info.converged and np.linalg.norm(x - want) <= 1e-12 * np.linalg.norm(want)
    d2 = rng.random(50) + 0.5
    x0, _ = glgpgpu.wls(A.T, d2, b, solver="qr")
    for method in ("paper", "compute"):
        x, info = glgpgpu.wls(A.T * min(scale, 1e30), d2, b, solver="qr", method=method)
        assert info.converged and np.linalg.norm(x * min(scale, 1e30) - x0) <= 1e-7 * np.linalg.norm(x0)


def test_lstsq_max_iter_zero_says_not_refined(ctx):
    rng = np.random.default_rng(5)
    x, info = glgpgpu.lstsq(rng.standard_normal((30, 4)), rng.standard_normal(30), max_iter=0)
    assert info.status == "not refined" and not info.converged and "not refined" in info.message


def test_bytes_paths_and_float32s_smallest(ctx):
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "data" / "netlib" / "afiro.mps.gz"
    assert glgpgpu.solve_mps(bytes(path)).status == "optimal"
    R = glgpgpu.qr(np.full((4, 3), 1e-45), mode="r")
    assert np.isfinite(R).all() and abs(R[0, 0]) > 0


@pytest.mark.parametrize("c", [[-1.0, -1.0], [0.0, 0.0], [1.0, -2.0]])
def test_lp_with_no_feasible_point_is_infeasible_whatever_the_objective(ctx, c):
    """x1 - x2 >= 1 and x1 - x2 <= -1: empty.  With c = (-1, -1) the dual is empty too
    (a falling ray exists), with c = 0 the interior point stalls; both are 'infeasible'."""
    res = glgpgpu.linprog(c, A_ub=[[-1, 1], [1, -1]], b_ub=[-1, -1], ctx=ctx)
    assert res.status == "infeasible", res.message


def test_lp_unbounded_stays_unbounded(ctx):
    res = glgpgpu.linprog([-1, -1], A_ub=[[1, -1]], b_ub=[1], ctx=ctx)
    assert res.status == "unbounded"


@pytest.mark.parametrize("scale", [1e20, 1e30, 1e100])
def test_lp_row_bound_beyond_1e20_counts_relative_to_its_coefficients(ctx, scale):
    """scale x1 + scale x2 <= scale is x1 + x2 <= 1 (HiGHS's 1e20 rule read on the row's scale)."""
    res = glgpgpu.linprog([-1, -1], A_ub=[[scale, scale]], b_ub=[scale], ctx=ctx)
    assert res.status == "optimal" and res.objective == pytest.approx(-1.0, abs=1e-7)
    free = glgpgpu.linprog([-1, -1], A_ub=[[1, 1]], b_ub=[1e30], bounds=[(0, 1), (0, 1)], ctx=ctx)
    assert free.status == "optimal" and free.objective == pytest.approx(-2.0, abs=1e-7)


@pytest.mark.parametrize("kw, match", [
    (dict(bounds=[None, (0, 1)]), r"bounds\[0\] must be a pair"),
    (dict(bounds=[(0, 1, 2), (0, 1)]), r"bounds\[0\] must be a pair"),
    (dict(bounds=[[0, 1], [0, 2], [0, 3]]), "3 pairs but c has 2"),
    (dict(options=5), "options must be a dict"),
    (dict(integrality=[0, 0, 0]), "integrality must have one entry per variable"),
])
def test_optimize_linprog_names_malformed_arguments(kw, match):
    from glgpgpu import optimize
    with pytest.raises((ValueError, TypeError), match=match):
        optimize.linprog([1, 1], A_ub=[[1, 1]], b_ub=[10], **kw)


def test_optimize_linprog_broadcasts_one_pair_in_a_list(ctx):
    from glgpgpu import optimize
    res = optimize.linprog([1, 1], A_ub=[[1, 1]], b_ub=[10], bounds=[(2, 5)], options={"gpu_method": "auto"})
    assert res.status == 0 and np.allclose(res.x, [2, 2], atol=1e-7)


def test_memory_budget_is_honoured_by_the_compute_method(ctx):
    from glgpgpu.errors import GPUMemoryError
    rng = np.random.default_rng(0)
    A = rng.random((40, 9))
    C = A @ A.T + np.eye(40)
    old = ctx.memory_budget
    ctx.memory_budget = 1000
    try:
        for call in (lambda: glgpgpu.cholesky(C, method="compute", ctx=ctx),
                     lambda: glgpgpu.adat(A, np.ones(9), method="compute", ctx=ctx)):
            with pytest.raises(GPUMemoryError, match="memory_budget"):
                call()
    finally:
        ctx.memory_budget = old
    assert ctx.buffers.outstanding == 0
    L = glgpgpu.cholesky(C, method="compute", ctx=ctx)
    assert np.allclose(L @ L.T, C, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("call", [
    lambda: glgpgpu.cholesky(np.broadcast_to(np.float32(1), (10 ** 6, 10 ** 6))),
    lambda: glgpgpu.adat(np.broadcast_to(np.float32(1), (10 ** 6, 4)), np.ones(4), method="blocked"),
    lambda: __import__("glgpgpu.linalg").linalg.cholesky(np.broadcast_to(np.eye(100), (10 ** 7, 100, 100))),
])
def test_huge_requests_are_refused_within_a_second(call):
    import time
    from glgpgpu.errors import HostMemoryError
    t = time.perf_counter()
    with pytest.raises(HostMemoryError, match="GiB of host memory"):
        call()
    assert time.perf_counter() - t < 1.0


def test_broadcast_batch_is_checked_without_a_full_size_mask():
    from glgpgpu import linalg
    a = np.broadcast_to(4.0 * np.eye(3), (6, 3, 3))
    assert np.allclose(linalg.cholesky(a), 2.0 * np.eye(3))
    bad = np.broadcast_to(np.array([[np.nan, 0.0], [0.0, 1.0]]), (4, 2, 2))
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.cholesky(bad)
