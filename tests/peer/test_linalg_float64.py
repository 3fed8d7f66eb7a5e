"""glgpgpu.linalg keeps the input's dtype and its accuracy: float64 in, float64 accuracy out
(the GPU's Cholesky and Householder QR kernels in double), within float64 bounds --
Higham's theorems with u = 2^-53 -- at sizes 1 ... 300, odd, even, prime; scipy's
behaviour for singular and ill-conditioned systems, assume_a and its triangle, batched
(broadcast) and empty input, lstsq's cond, and one factorization for many right-hand
sides."""
import warnings

import numpy as np
import pytest
import scipy.linalg as sla

from bounds import U64, gamma64, qr_bound
from glgpgpu import api, linalg
from glgpgpu.solvers import normal_equations

SIZES = [1, 2, 3, 37, 64, 97, 130, 300]


def spd(n, rng, cond=1e6):
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = (q * np.logspace(0, -np.log10(cond), n)) @ q.T if n > 1 else np.ones((1, 1))
    return (A + A.T) / 2                                 # symmetric exactly: either triangle is A


def solve_error(A, x, b):
    """Normwise backward error ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) (Rigal-Gaches).
    The residual is computed in float64 too, which adds up to gamma_{n+1} of the same
    scale: the bounds below allow for it (gamma_{4n+2} for a solve's gamma_{3n+1})."""
    return np.abs(b - A @ x).max() / (np.abs(A).sum(1).max() * np.abs(x).max() + np.abs(b).max())


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_in_float64(ctx, n, lower):
    """|U^T U - A| <= gamma_{n+1} |U^T||U| elementwise in float64 (Higham, Thm 10.3); the
    check's own float64 product and difference add gamma_{n+1} |U^T||U| + u |A| at most."""
    rng = np.random.default_rng(n)
    A = spd(n, rng)
    U = linalg.cholesky(A, lower=lower)
    L = U if lower else U.T
    assert U.dtype == np.float64 and not (np.triu(L, 1)).any()
    err = np.abs(np.tril(L @ L.T - A))                 # the triangle read (A is symmetric to rounding)
    assert (err <= 2 * gamma64(n + 1) * (np.abs(L) @ np.abs(L).T) + U64 * np.abs(A) + 1e-300).all()
    b = rng.standard_normal((n, 3))
    x = linalg.cho_solve(linalg.cho_factor(A, lower=lower), b)
    assert solve_error(A, x, b) <= gamma64(4 * n + 2)
    assert solve_error(A, linalg.solve(A, b, assume_a="pos"), b) <= gamma64(4 * n + 2)


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (3, 2), (37, 37), (97, 64), (64, 97), (300, 130), (130, 300)])
def test_qr_in_float64(ctx, shape):
    rng = np.random.default_rng(sum(shape))
    A = rng.standard_normal(shape)
    Q, R = linalg.qr(A, mode="economic")
    assert Q.dtype == R.dtype == np.float64
    beta = qr_bound(*shape, u=U64)
    assert np.linalg.norm(Q @ R - A) <= beta * np.linalg.norm(A)
    assert np.linalg.norm(Q.T @ Q - np.eye(Q.shape[1])) <= beta * np.sqrt(Q.shape[1])
    Qf, Rf = linalg.qr(A, mode="full")
    assert np.linalg.norm(Qf @ Rf - A) <= beta * np.linalg.norm(A)
    (F, tau), Rr = linalg.qr(A, mode="raw")
    F0, tau0 = sla.qr(A, mode="raw")[0]
    assert np.abs(np.abs(np.triu(F)) - np.abs(np.triu(F0))).max() <= 8 * beta * np.abs(A).max() * np.sqrt(shape[1])
    c = rng.standard_normal((3, shape[0]))
    got, _ = linalg.qr_multiply(A, c, mode="right")
    assert np.abs(got - c @ Q).max() <= beta * np.abs(c).sum(1).max()


@pytest.mark.parametrize("n", SIZES)
def test_solve_and_lstsq_in_float64(ctx, n):
    rng = np.random.default_rng(n + 7)
    A = rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n)
    B = rng.standard_normal((n, 4))
    assert solve_error(A, linalg.solve(A, B), B) <= gamma64(4 * n + 2)
    assert solve_error(A.T, linalg.solve(A, B, transposed=True), B) <= gamma64(4 * n + 2)
    M = rng.standard_normal((2 * n + 3, n))
    b = rng.standard_normal(2 * n + 3)
    x, res, rank, s = linalg.lstsq(M, b)
    want, wres, wrank, _ = sla.lstsq(M, b)
    kappa = np.linalg.cond(M)
    assert rank == wrank == n and s is None and np.shape(res) == np.shape(wres)
    assert np.linalg.norm(x - want) <= 16 * n * U64 * kappa ** 2 * np.linalg.norm(want)
    assert abs(res - wres) <= 1e-12 * wres


def _count_routes(monkeypatch):
    """Which factorization each general solve took: 'gram' (the refined normal equations'
    float64 factor) or 'qr' (the float64 Householder QR it falls back on)."""
    taken = []
    for name, route in (("gram_cholesky64", "gram"), ("qr_raw64", "qr")):
        real = getattr(api, name)
        monkeypatch.setattr(api, name, lambda *a, real=real, route=route, **k: taken.append(route) or real(*a, **k))
    return taken


@pytest.mark.parametrize("n", [2, 3, 37, 64, 97, 130, 300])
def test_general_solve_by_the_refined_normal_equations(ctx, n, monkeypatch):
    """The general solve refines L L^T = A Dc^2 A^T against A to LAPACK dsgesv's backward
    error (||r||_inf <= sqrt(n) eps ||A||_inf ||x||_inf), with no QR: well conditioned, kappa
    = 1e6 (a step gains ~kappa^2 eps = 1e-4), and a column scaled by 1e-10 (Dc takes it out)."""
    rng = np.random.default_rng(n + 11)
    taken = _count_routes(monkeypatch)
    q1, _ = np.linalg.qr(rng.standard_normal((n, n)))
    q2, _ = np.linalg.qr(rng.standard_normal((n, n)))
    well = rng.standard_normal((n, n)) + 2 * np.sqrt(n) * np.eye(n)
    scaled = well.copy()
    scaled[:, n // 2] *= 1e-10
    for A in (well, (q1 * np.logspace(0, -6, n)) @ q2.T, scaled):
        B = rng.standard_normal((n, 3))
        X = linalg.solve(A, B)
        r = np.abs(B - A @ X).max(axis=0)
        assert np.all(r <= np.sqrt(n) * U64 * 2 * np.abs(A).sum(1).max() * np.abs(X).max(axis=0))
        assert solve_error(A, X, B) <= gamma64(4 * n + 2)
    assert taken == ["gram"] * 3


@pytest.mark.parametrize("steps", [1, 2, 3])
def test_general_solve_falls_back_on_the_qr(ctx, steps, monkeypatch):
    """Where the refinement does not reach float64's backward error the float64 QR answers, as
    accurate as scipy's LU: kappa 1e10 (a step gains nothing) whatever the steps; kappa 1e7 (a
    step gains ~kappa^2 eps = 2e-2, two steps get there here) with GRAM_STEPS crossed at 1, 2, 3."""
    rng = np.random.default_rng(0)
    n = 60
    q1, _ = np.linalg.qr(rng.standard_normal((n, n)))
    q2, _ = np.linalg.qr(rng.standard_normal((n, n)))
    monkeypatch.setattr(normal_equations, "GRAM_STEPS", steps)
    for kappa, route in ((1e10, "qr"), (1e7, "qr" if steps < 2 else "gram")):
        taken = _count_routes(monkeypatch)
        A = (q1 * np.logspace(0, -np.log10(kappa), n)) @ q2.T
        b = rng.standard_normal(n)
        x = linalg.solve(A, b)
        assert taken[-1] == route
        assert solve_error(A, x, b) <= gamma64(4 * n + 2)


def test_normal_equations_singular_to_float64_leave_it_to_the_qr():
    """A Dc^2 A^T of a matrix near singularity (kappa 4e16) rounds to a singular one, whose
    factor's solves are not A's (the GPU's float64 Cholesky took its pivot of ~1e-8 where the
    host's did too): the route declines, the QR answers and warns as scipy does -- whichever
    factor, whatever its rounding."""
    a = np.array([[1, 1], [1 + 1e-16, 1 - 1e-16]])
    host = lambda A, d: np.linalg.cholesky((A * d) @ A.T)          # noqa: E731
    assert normal_equations.refined_normal_solve(a, np.ones((2, 1)), host) is None


def test_float64_accuracy_where_float32_would_lose_it(ctx):
    """kappa = 1e8: a float32 factor loses every digit; the float64 kernels keep 1e-8 x's."""
    rng = np.random.default_rng(3)
    A = spd(80, rng, cond=1e8)
    x0 = rng.standard_normal(80)
    b = A @ x0
    for x in (linalg.cho_solve(linalg.cho_factor(A), b), linalg.solve(A, b, assume_a="pos"), linalg.solve(A, b)):
        assert np.linalg.norm(x - x0) <= 1e8 * 1e-13 * np.linalg.norm(x0)


def test_singular_systems_raise_and_ill_conditioned_ones_warn(ctx):
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        linalg.solve([[0.0]], [1.0])
    S = np.arange(1.0, 82.0).reshape(9, 9)             # rank 2, exactly singular in its LU
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        linalg.solve(S, np.ones(9))
    with pytest.raises(np.linalg.LinAlgError):
        linalg.solve(-np.eye(3), np.ones(3), assume_a="pos")
    with pytest.raises(np.linalg.LinAlgError, match="diagonal 1"):
        linalg.solve_triangular(np.array([[1.0, 2.0], [0.0, 0.0]]), np.ones(2))
    a = np.array([[1, 1], [1 + 1e-16, 1 - 1e-16]])
    with pytest.warns(sla.LinAlgWarning):
        linalg.solve(a, [1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linalg.solve(np.eye(3) + 0.1, np.ones(3))


def test_assume_a_reads_only_the_chosen_triangle(ctx):
    """References built by hand (the installed scipy may predate assume_a's newer kinds)."""
    a = np.array([[9.0, 100, 200], [1, 5, 300], [1, 1, 1]])
    b = np.array([10.0, 6, 0.2])
    for assume in ("sym", "her"):
        for lower in (True, False):
            S = np.tril(a) + np.tril(a, -1).T if lower else np.triu(a) + np.triu(a, 1).T
            assert np.allclose(linalg.solve(a, b, assume_a=assume, lower=lower), np.linalg.solve(S, b), rtol=1e-12)
    spd3 = np.array([[4.0, np.nan, np.nan], [1, 3, np.nan], [0.5, 1, 2]])    # NaN where nothing is read
    S = np.tril(np.nan_to_num(spd3)) + np.tril(np.nan_to_num(spd3), -1).T
    got = linalg.solve(spd3, b, assume_a="pos", lower=True, check_finite=False)
    assert np.allclose(got, np.linalg.solve(S, b), rtol=1e-12)
    for kind, T in (("upper triangular", np.triu(a) + 3 * np.eye(3)), ("lower triangular", np.tril(a)),
                    ("diagonal", np.diag([2.0, 4, 8]))):
        full = np.triu(T) if kind == "upper triangular" else (np.tril(T) if kind == "lower triangular" else T)
        assert np.allclose(linalg.solve(T, b, assume_a=kind), np.linalg.solve(full, b), rtol=1e-12)


@pytest.mark.parametrize("bshape", [(5,), (5, 1), (5, 3), (2, 5, 3), (1, 5, 2)])
def test_batched_inputs_broadcast_as_scipys(ctx, bshape):
    """scipy's batching rule (1.15 on): a 1-D b is one vector for every matrix, else b's last
    two axes are (n, k) and the leading axes broadcast -- references by an explicit loop."""
    rng = np.random.default_rng(len(bshape))
    a = rng.standard_normal((2, 5, 5)) + 4 * np.eye(5)
    b = rng.standard_normal(bshape)
    core = b.shape[-1:] if b.ndim == 1 else b.shape[-2:]
    B = np.broadcast_to(b, (2,) + core)
    want = {"solve": np.stack([np.linalg.solve(a[i], B[i]) for i in range(2)]),
            "solve_triangular": np.stack([sla.solve_triangular(a[i], B[i], lower=True) for i in range(2)]),
            "lstsq": np.stack([np.linalg.lstsq(a[i], B[i], rcond=None)[0] for i in range(2)])}
    assert linalg.solve(a, b).shape == want["solve"].shape
    assert np.allclose(linalg.solve(a, b), want["solve"], rtol=1e-10, atol=1e-12)
    assert np.allclose(linalg.solve_triangular(a, b, lower=True), want["solve_triangular"], rtol=1e-10)
    c = linalg.cho_factor(a @ np.swapaxes(a, -1, -2) + 0.0)[0]
    got = linalg.cho_solve((c, False), b)
    assert np.allclose(got, np.stack([sla.cho_solve((c[i], False), B[i]) for i in range(2)]), rtol=1e-10)
    x, res, rank, s = linalg.lstsq(a, b)
    assert x.shape == want["lstsq"].shape and np.allclose(x, want["lstsq"], rtol=1e-10, atol=1e-12)
    assert np.shape(rank) == (2,) and s is None


def test_empty_inputs(ctx):
    """scipy's shapes for empty systems (written out: older scipy releases raise on some)."""
    for n, k in ((0, 0), (0, 2)):
        a, b = np.empty((n, n)), np.empty((n, k))
        assert linalg.solve(a, b).shape == (0, k)
        assert linalg.solve_triangular(a, b).shape == (0, k)
        assert linalg.cho_solve((a, False), b).shape == (0, k)
        assert linalg.cholesky(a).shape == (0, 0)
    x = linalg.lstsq(np.empty((0, 3)), np.empty(0))[0]
    assert x.shape == (3,) and not x.any()


def test_lstsq_cond_wide_and_rank_deficient(ctx):
    rng = np.random.default_rng(11)
    D = rng.standard_normal((30, 5)) @ rng.standard_normal((5, 12))       # rank 5
    b = rng.standard_normal(30)
    x, res, rank, _ = linalg.lstsq(D, b)
    want = sla.lstsq(D, b)
    assert rank == want[2] == 5 and np.allclose(x, want[0], atol=1e-12)    # the minimum-norm solution
    s = np.linalg.svd(D[:, :6], compute_uv=False)
    A = D[:, :6] + 1e-9 * rng.standard_normal((30, 6))                   # kappa ~ 1e9
    assert linalg.lstsq(A, b)[2] == 6 and linalg.lstsq(A, b, cond=1e-6)[2] == sla.lstsq(A, b, cond=1e-6)[2] == 5
    assert s[0] > 0
    W = rng.standard_normal((7, 20))
    bw = rng.standard_normal(7)
    assert np.allclose(linalg.lstsq(W, bw)[0], sla.lstsq(W, bw)[0], atol=1e-12)


def test_one_factorization_for_many_right_hand_sides(ctx, monkeypatch):
    """solve (the normal equations' float64 factor) and lstsq (a float64 QR) factor A once for
    all of B's columns, and lstsq applies Q^T to them in that same pass (no second upload of
    the reflectors)."""
    calls = []
    for name in ("qr_raw64", "qr", "gram_cholesky64"):
        real = getattr(api, name)
        monkeypatch.setattr(api, name, lambda *a, real=real, name=name, **k: calls.append(name) or real(*a, **k))
    rng = np.random.default_rng(2)
    A = rng.standard_normal((40, 40)) + 7 * np.eye(40)
    B = rng.standard_normal((40, 20))
    linalg.solve(A, B)
    linalg.lstsq(A, B)
    assert calls == ["gram_cholesky64", "qr_raw64"]
    monkeypatch.setattr(api, "apply_q64", lambda *a, **k: pytest.fail("the reflectors went up twice"))
    linalg.solve(A, B)
    linalg.lstsq(A, B)
    linalg.qr(A)
