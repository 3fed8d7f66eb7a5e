"""The LP's last-resort float64 factorization on the host (HostFactor): a sparse LDL^T
where the normal matrix is sparse, LAPACK's dense Cholesky otherwise -- the same
regularized answer either way (no GL)."""
import numpy as np
import pytest
import scipy.sparse as sp

from glgpgpu.solvers.lp.mixed import host_factor as mixed_normal
from glgpgpu.solvers.lp.mixed.host_factor import HostFactor

try:                                    # glgpgpu[lp] installs it; without it the sparse kind is the dense one
    import qdldl  # noqa: F401
    SPARSE = "sparse"
except ImportError:
    SPARSE = "dense"


def _normal_matrix(rng, m, n, density, rank=None):
    A = sp.random(m, n, density=density, random_state=rng, format="csr")
    A = A + sp.eye(m, n, format="csr")              # no empty row
    if rank is not None:                             # rows rank.. copy earlier rows: singular M
        A = sp.vstack([A[:rank], A[: m - rank]]).tocsr()
    d = 10.0 ** rng.uniform(-6, 6, n)
    M = (A.multiply(d[None, :]) @ A.T).tocsc()
    s = 1 / np.sqrt(M.diagonal())
    return (sp.diags(s) @ M @ sp.diags(s)).tocsc()


@pytest.mark.parametrize("m", [1, 2, 3, 17, 60, 131])
def test_sparse_and_dense_factors_solve_alike(m):
    rng = np.random.default_rng(m)
    M = _normal_matrix(rng, m, 2 * m + 1, min(1.0, 3.0 / m))
    b = rng.standard_normal(m)
    sparse, dense = HostFactor(M, 1e-14), HostFactor(M, 1e-14)
    dense.kind, dense.L = "dense", mixed_normal._regularized_cholesky(M.toarray(), 1e-14)
    x_s, x_d = sparse.solve(b), dense.solve(b)
    kappa = np.linalg.cond(M.toarray())
    bound = 64 * m * kappa * np.finfo(float).eps          # backward-stable solves of the same M
    assert np.linalg.norm(M @ x_s - b) <= bound * np.linalg.norm(b) * 10
    assert np.linalg.norm(x_s - x_d) <= bound * np.linalg.norm(x_d) * 10
    assert sparse.kind == (SPARSE if M.nnz <= mixed_normal.SPARSE_SHARE * m * m else "dense")


def test_a_singular_matrix_is_regularized_not_refused():
    rng = np.random.default_rng(5)
    M = _normal_matrix(rng, 300, 700, 0.003, rank=240)      # 60 dependent rows
    F = HostFactor(M, 1e-14)
    assert F.kind == SPARSE
    b = M @ rng.standard_normal(300)                         # consistent: in M's range
    x = F.solve(b)
    assert np.all(np.isfinite(x))
    assert np.linalg.norm(M @ x - b) <= 1e-6 * np.linalg.norm(b)


def test_a_dense_matrix_takes_the_dense_path():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((30, 30))
    M = sp.csc_matrix(X @ X.T + 30 * np.eye(30))
    F = HostFactor(M, 1e-14)
    assert F.kind == "dense"
    b = rng.standard_normal(30)
    assert np.allclose(M @ F.solve(b), b, rtol=0, atol=1e-10 * np.linalg.norm(b))


def test_without_qdldl_the_dense_factor_answers(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_qdldl(name, *a, **k):
        if name == "qdldl":
            raise ImportError("no qdldl")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_qdldl)
    rng = np.random.default_rng(3)
    M = _normal_matrix(rng, 90, 200, 0.02)
    F = HostFactor(M, 1e-14)
    assert F.kind == "dense"
    b = rng.standard_normal(90)
    assert np.linalg.norm(M @ F.solve(b) - b) <= 1e-8 * np.linalg.norm(b)


def test_a_costly_factor_is_multifrontal_and_solves_alike(monkeypatch):
    from glgpgpu.symbolic import colamd_available
    from glgpgpu.solvers.sparse_cholesky import CholeskyAnalysis
    rng = np.random.default_rng(11)
    A = sp.random(150, 400, density=0.01, random_state=rng, format="csr") + sp.eye(150, 400, format="csr")
    d = 10.0 ** rng.uniform(-6, 6, 400)
    M = (A.multiply(d[None, :]) @ A.T).tocsc()
    s = 1 / np.sqrt(M.diagonal())
    M = (sp.diags(s) @ M @ sp.diags(s)).tocsc()
    an = CholeskyAnalysis(A, "colamd" if colamd_available() else "natural")   # any order: the factor is right
    monkeypatch.setattr(mixed_normal, "MULTIFRONTAL_FLOPS", 0.0)
    F = HostFactor(M, 1e-14, an)
    assert F.kind == "multifrontal"
    monkeypatch.setattr(mixed_normal, "MULTIFRONTAL_FLOPS", np.inf)
    G = HostFactor(M, 1e-14, an)
    assert G.kind == SPARSE
    b = rng.standard_normal(150)
    x, y = F.solve(b), G.solve(b)
    assert np.linalg.norm(x - y) <= 1e-6 * np.linalg.norm(y)


@pytest.mark.parametrize("m", [3, 40, 150])
def test_a_factor_that_fills_is_dense(m, monkeypatch):
    """A sparse M whose analysis counts DENSE_FILL or more of the dense factor's m^3 / 3 flops (a
    random sparse LP's fills so) is factored by LAPACK's dense Cholesky, not the multifrontal or
    qdldl's, and solves as they do."""
    from glgpgpu.symbolic import colamd_available
    from glgpgpu.solvers.sparse_cholesky import CholeskyAnalysis
    rng = np.random.default_rng(m)
    A = sp.random(m, 3 * m, density=min(1.0, 4.0 / m), random_state=rng, format="csr") + sp.eye(m, 3 * m, format="csr")
    d = 10.0 ** rng.uniform(-3, 3, 3 * m)
    M = (A.multiply(d[None, :]) @ A.T).tocsc()
    s = 1 / np.sqrt(M.diagonal())
    M = (sp.diags(s) @ M @ sp.diags(s)).tocsc()
    an = CholeskyAnalysis(A, "colamd" if colamd_available() else "natural")
    monkeypatch.setattr(mixed_normal, "MULTIFRONTAL_FLOPS", 0.0)
    monkeypatch.setattr(mixed_normal, "SPARSE_SHARE", 1.0)
    monkeypatch.setattr(mixed_normal, "DENSE_FILL", 0.0)               # every factor "fills"
    F = HostFactor(M, 1e-14, an)
    assert F.kind == "dense"
    monkeypatch.setattr(mixed_normal, "DENSE_FILL", np.inf)            # none does
    G = HostFactor(M, 1e-14, an)
    assert G.kind == "multifrontal"
    b = rng.standard_normal(m)
    assert np.linalg.norm(F.solve(b) - G.solve(b)) <= 1e-6 * np.linalg.norm(G.solve(b))
