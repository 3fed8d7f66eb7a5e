"""sparse_qr and sparse_lstsq on the shapes users bring: wide and rank-deficient A give R
with every column (rank x n, upper trapezoidal, the dependent columns last, as
SuiteSparseQR) and R^T R = (A P)^T (A P) to float32 level; sparse_lstsq solves them, the
basic solution by default and the minimum-norm one on request; b as (m,), (m, 1), (m, k)."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import glgpgpu
from bounds import qr_bound


def wide(m, n, seed):
    rng = np.random.default_rng(seed)
    return (sp.random(m, n, density=0.15, random_state=rng, format="csc") + sp.eye(m, n, format="csc")).tocsc()


def deficient(m, n, r, seed):
    """m x n of rank r: r random sparse columns and n - r combinations of them."""
    rng = np.random.default_rng(seed)
    base = sp.random(m, r, density=0.2, random_state=rng, format="csc") + sp.eye(m, r, format="csc")
    mix = sp.random(r, n - r, density=0.3, random_state=rng, format="csc")
    A = sp.hstack([base, base @ mix], format="csc")
    return A[:, rng.permutation(n)].tocsc()


CASES = {"wide 17x30": wide(17, 30, 1), "wide 41x43": wide(41, 43, 2), "wide 3x8": wide(3, 8, 3),
         "deficient 60x25 r19": deficient(60, 25, 19, 4), "deficient 30x30 r29": deficient(30, 30, 29, 5),
         "wide deficient 20x35 r12": deficient(20, 35, 12, 6)}


@pytest.mark.parametrize("method", ["host", "blocked", "compute"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_r_has_every_column(ctx, method, name):
    A = CASES[name]
    m, n = A.shape
    fac = glgpgpu.sparse_qr(A, method=method)
    r = fac.rank
    assert fac.R.shape == (r, n) and r <= min(m, n) and sorted(fac.E) == list(range(n))
    assert r == np.linalg.matrix_rank(A.toarray())
    R = fac.R.toarray().astype(np.float64)
    assert not np.tril(R[:, :r], -1).any()
    AP = A[:, fac.E].toarray()
    beta = qr_bound(m, n)
    assert np.linalg.norm(R.T @ R - AP.T @ AP) <= 4 * beta * np.linalg.norm(AP) ** 2


@pytest.mark.parametrize("name", sorted(CASES))
def test_lstsq_basic_and_minimum_norm(ctx, name):
    A = CASES[name]
    m, n = A.shape
    b = np.random.default_rng(7).standard_normal(m)
    x, info = glgpgpu.sparse_lstsq(A, b)
    assert info.converged
    r = b - A @ x
    assert np.linalg.norm(A.T @ r) <= 1e-10 * spla.norm(A) * max(np.linalg.norm(r), 1e-300) + 1e-12
    assert np.count_nonzero(x) <= info.rank                          # basic: zero on the dependent columns
    xm, info_m = glgpgpu.sparse_lstsq(A, b, solution="minimum-norm")
    want = np.linalg.lstsq(A.toarray(), b, rcond=None)[0]
    assert info_m.converged and np.linalg.norm(xm - want) <= 1e-8 * np.linalg.norm(want)
    assert np.linalg.norm(xm) <= np.linalg.norm(x) * (1 + 1e-12)


@pytest.mark.parametrize("shape", ["(m,)", "(m, 1)", "(m, 3)"])
def test_right_hand_side_shapes(ctx, shape):
    A = CASES["deficient 60x25 r19"]
    rng = np.random.default_rng(8)
    B = rng.standard_normal((60, 3))
    b = {"(m,)": B[:, 0], "(m, 1)": B[:, :1], "(m, 3)": B}[shape]
    x, info = glgpgpu.sparse_lstsq(A, b)
    assert x.shape == ((25, 3) if shape == "(m, 3)" else (25,)) and info.converged
    X = x.reshape(25, -1)
    for j in range(X.shape[1]):
        one, _ = glgpgpu.sparse_lstsq(A, B[:, j])
        assert np.allclose(X[:, j], one, rtol=1e-9, atol=1e-12)
    assert glgpgpu.sparse_lstsq(sp.csc_matrix([[2.0]]), 3.0)[0] == pytest.approx([1.5])
