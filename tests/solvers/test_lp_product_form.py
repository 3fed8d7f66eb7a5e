"""The product-form factor of a normal matrix with long columns (ProductFormLDL): K11's LDL^T
and one rank-one update of the diagonal a long column, each solve by cumulative sums -- against
numpy's dense solve of the same M, with the long columns' weights spanning many orders (where
the border's quasi-definite LDL^T loses its accuracy).  No GL."""
import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("qdldl")                            # glgpgpu[lp] installs it

from glgpgpu.solvers.lp.mixed.normal_pattern import NormalPattern  # noqa: E402
from glgpgpu.solvers.lp.mixed.product_form import ProductFormLDL, _lower_solve, _upper_solve  # noqa: E402
from glgpgpu.solvers.lp.mixed.host_factor import SparseLDL  # noqa: E402


def _schur(P, data):
    U = P.matrix(data).toarray()
    K = U + np.triu(U, 1).T
    return K[:P.m, :P.m] + K[:P.m, P.m:] @ K[:P.m, P.m:].T


@pytest.mark.parametrize("m", [1, 2, 3, 8])
def test_one_rank_one_update_and_its_solves(m):
    """D + q q^T = L(q, beta) D' L(q, beta)^T (method C1), and both triangular solves with L."""
    rng = np.random.default_rng(m)
    d, q, b = rng.uniform(0.1, 2.0, m), rng.standard_normal(m), rng.standard_normal(m)
    t = 1.0 + np.cumsum(q * q / d)
    before = np.concatenate([[1.0], t[:-1]])
    L = np.eye(m) + np.tril(np.outer(q, q / (d * t)), -1)
    assert np.allclose(L @ np.diag(d * t / before) @ L.T, np.diag(d) + np.outer(q, q), rtol=1e-12, atol=1e-12)
    assert np.allclose(L @ _lower_solve(q, d, before, b), b, rtol=1e-12, atol=1e-12)
    assert np.allclose(L.T @ _upper_solve(q, d, before, b), b, rtol=1e-12, atol=1e-12)


def _backward(M, x, b):
    """The normwise backward error of x as a solve of M x = b."""
    return np.linalg.norm(M @ x - b) / (np.linalg.norm(M, 2) * np.linalg.norm(x) + np.linalg.norm(b))


@pytest.mark.parametrize("m, spread", [(3, 4), (40, 8), (97, 12), (200, 16)])
def test_product_form_solves_m_with_long_columns(m, spread):
    """A sparse A with 3 long columns (from 33 rows: the pattern's border) and weights spanning
    10^(2 spread): the product form's solve of M = A D A^T + delta I is backward stable, its
    error the regularization's (a shift of 1e-14 of the largest diagonal entry)."""
    rng = np.random.default_rng(m)
    n = 3 * m + 5
    A = sp.random(m, n, density=min(1.0, 2.5 / m), random_state=rng, format="lil")
    for j in range(3):
        A[:, j] = rng.standard_normal((m, 1))
    P = NormalPattern(sp.csr_matrix(A))
    assert P.long.size == (3 if m >= 33 else 0)
    data = P.data(10.0 ** rng.uniform(-spread, spread, n), 1e-8)
    M, b = _schur(P, data), rng.standard_normal(m)
    assert _backward(M, ProductFormLDL(P).factor(data, 1e-14).solve(b), b) <= 1e-12


@pytest.mark.parametrize("weight", [1e6, 1e9, 1e12])
def test_product_form_where_the_border_fails(weight):
    """Quantile regression's shape: a few dense columns with large weights, two short columns a
    row (u and v) whose weights are tiny on as many rows as there are dense columns.  The
    bordered LDL^T's solve has a backward error of 7e-2 to 9e-2; the product form's is float64's."""
    rng = np.random.default_rng(7)
    m, p = 400, 6
    A = sp.hstack([sp.csr_matrix(rng.standard_normal((m, p))), sp.eye(m), -sp.eye(m)]).tocsr()
    d = np.concatenate([np.full(p, weight), 10.0 ** rng.uniform(-10, 2, 2 * m)])
    d[p:2 * p] = d[p + m:p + m + p] = 1e-14
    P = NormalPattern(A)
    data = P.data(d, 1e-12)
    M = _schur(P, data)
    b = M @ rng.standard_normal(m)
    assert _backward(M, ProductFormLDL(P).factor(data.copy(), 1e-14).solve(b), b) <= 1e-14
    try:
        bordered = _backward(M, SparseLDL(P).factor(data.copy(), 1e-14).solve(b), b)
    except np.linalg.LinAlgError:
        bordered = np.inf
    assert bordered > 1e-3, bordered
