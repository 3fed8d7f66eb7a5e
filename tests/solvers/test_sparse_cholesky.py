"""The multifrontal sparse Cholesky (float64, host) on the sparse QR's symbolic
analysis: L L^T reproduces A D A^T + shift I in its permuted order, solves agree with
a dense factorization, a matrix that is not positive definite is refused (no GL)."""
import numpy as np
import pytest
import scipy.sparse as sp

from glgpgpu.symbolic import colamd_available
from support import staircase
from glgpgpu.solvers.sparse_cholesky import CholeskyAnalysis, MultifrontalCholesky

#: COLAMD where the system has it (the product's order), else A's own order: the factor is right for any
ORDER = "colamd" if colamd_available() else "natural"


def _problem(m, n, density, seed, dense_column=False):
    rng = np.random.default_rng(seed)
    A = sp.random(m, n, density=density, random_state=rng, format="csr") + sp.eye(m, n, format="csr")
    A = sp.hstack([A, A[:, :1]]).tocsr()       # a duplicated column pattern
    if dense_column:                           # M dense: one front
        A = sp.hstack([A, sp.csr_matrix(rng.standard_normal((m, 1)))]).tocsr()
    d = 10.0 ** rng.uniform(-3, 3, A.shape[1])
    M = (A.multiply(d[None, :]) @ A.T).tocsc() + 1e-8 * sp.eye(m, format="csc")
    return A, M, rng


def _dense_l(F, m):
    L = np.zeros((m, m))
    for lo, hi, rest, L11, L21 in F.fronts:
        L[lo:hi, lo:hi] = np.tril(L11)
        L[rest, lo:hi] = L21
    return L


@pytest.mark.parametrize("m,n,density,dense_column", [(1, 1, 1.0, False), (2, 3, 0.5, False), (3, 5, 0.4, True),
                                                      (17, 40, 0.1, False), (60, 150, 0.03, False),
                                                      (131, 300, 0.01, False), (200, 64, 0.05, True)])
def test_factor_reproduces_the_matrix_and_solves(m, n, density, dense_column):
    A, M, rng = _problem(m, n, density, m, dense_column)
    an = CholeskyAnalysis(A, ORDER)
    if m > 50 and not dense_column:
        assert an.nfronts > 3 and any(an.children)        # fronts with children: the extend-add runs
    F = MultifrontalCholesky(an, M)
    L = _dense_l(F, m)
    Mp = M.toarray()[np.ix_(an.perm, an.perm)]
    eps = np.finfo(float).eps
    assert np.abs(L @ L.T - Mp).max() <= 8 * m * eps * np.abs(Mp).max()
    b = rng.standard_normal(m)
    x = F.solve(b)
    x_ref = np.linalg.solve(M.toarray(), b)
    kappa = np.linalg.cond(M.toarray())
    assert np.linalg.norm(x - x_ref) <= 16 * m * kappa * eps * np.linalg.norm(x_ref)


def test_the_analysis_serves_every_factorization_of_the_pattern():
    A, M, rng = _problem(90, 200, 0.02, 7)
    an = CholeskyAnalysis(A, ORDER)
    for seed in range(3):
        d = 10.0 ** np.random.default_rng(seed).uniform(-6, 6, A.shape[1])
        Mk = (A.multiply(d[None, :]) @ A.T).tocsc() + 1e-6 * sp.eye(90, format="csc")
        b = rng.standard_normal(90)
        x = MultifrontalCholesky(an, Mk).solve(b)
        assert np.linalg.norm(Mk @ x - b) <= 1e-8 * np.linalg.norm(b) * np.linalg.cond(Mk.toarray()) ** 0.5


def test_not_positive_definite_is_refused():
    A, M, _ = _problem(40, 90, 0.05, 3)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        MultifrontalCholesky(CholeskyAnalysis(A, ORDER), M - 2 * sp.eye(40, format="csc") * abs(M.diagonal()).max())


def test_the_analysis_is_reused_for_the_same_pattern_only():
    A, _, _ = _problem(30, 70, 0.05, 9)
    an = CholeskyAnalysis.of(A, ORDER)
    assert CholeskyAnalysis.of(A.multiply(3.0), ORDER) is an          # same pattern, other values
    B = A.tolil()
    B[0, 69] = 1.0 if B[0, 69] == 0 else 0.0                   # one entry more or less
    other = CholeskyAnalysis.of(B.tocsr(), ORDER)
    assert other is not an
    assert CholeskyAnalysis.of(B.tocsr(), ORDER) is other


def test_a_big_factor_gets_larger_fronts_and_the_same_answer(monkeypatch):
    """From BIG_FLOPS on the fronts are amalgamated further (fewer extend-adds): fewer fronts, the
    same flops count for the choices between factors, and L L^T still M's permuted matrix."""
    import glgpgpu.solvers.sparse_cholesky as sc
    A, M, rng = _problem(131, 300, 0.01, 3)
    usual = CholeskyAnalysis(A, ORDER)
    monkeypatch.setattr(sc, "BIG_FLOPS", 0.0)
    big = CholeskyAnalysis(A, ORDER)
    assert big.flops == usual.flops and big.nfronts < usual.nfronts
    F = MultifrontalCholesky(big, M)
    L = _dense_l(F, 131)
    Mp = M.toarray()[np.ix_(big.perm, big.perm)]
    assert np.abs(L @ L.T - Mp).max() <= 8 * 131 * np.finfo(float).eps * np.abs(Mp).max()


@pytest.mark.parametrize("m,n,density,nb", [(1, 1, 1.0, 64), (3, 5, 0.4, 2), (60, 150, 0.03, 8), (131, 300, 0.01, 16),
                                            (320, 0, 0, 64)])
def test_tiles_hold_every_nonzero_of_l_and_close_under_the_updates(m, n, density, nb):
    """CholeskyAnalysis.tiles (the GPU's float64 factor skips the tiles outside it): every tile
    where L has a nonzero is in, and with tiles (I, K) and (J, K) in, (I, J) is in too -- so a
    right-looking factor that skips the rest skips only exact zeros (no GL)."""
    A, M, rng = _problem(m, n, density, seed=m) if n else _problem(1, 1, 1.0, seed=1)
    if not n:                                          # a staircase: four blocks of 80 rows
        A = staircase(4, 80, rng)
        M = (A @ A.T).tocsc() + 1e-8 * sp.eye(m, format="csc")
    an = CholeskyAnalysis(A, ORDER)
    B = an.tiles(nb)
    t = -(-m // nb)
    assert B.shape == (t, t) and not np.triu(B, 1).any() and np.diag(B).all()
    L = _dense_l(MultifrontalCholesky(an, M), m)
    rows, cols = np.nonzero(L)
    assert B[rows // nb, cols // nb].all()
    for k in range(t):
        below = np.flatnonzero(B[k:, k]) + k
        assert B[np.maximum.outer(below, below), np.minimum.outer(below, below)].all()
    if not n and ORDER == "colamd":
        assert B.sum() < 0.9 * t * (t + 1) / 2            # a fill-reducing order leaves tiles out
