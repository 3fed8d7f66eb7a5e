"""Column singletons (SuiteSparseQR's first step), no GL: the columns found and their
rows against the definition, the block form they leave, the given-order run, the
tolerance, and what they change downstream -- their rows of R are A's rows as they
stand, R keeps no explicit zeros, the flop count is SuiteSparseQR's."""
import numpy as np
import pytest
import scipy.sparse as sp

from glgpgpu.solvers.sparse_fronts import HostQR
from glgpgpu.solvers.sparse_qr import factorize
from glgpgpu.symbolic import analyze, column_singletons, leading_singletons

SIZES = [(1, 1), (2, 1), (1, 2), (3, 2), (2, 3), (7, 5), (9, 9), (30, 17), (41, 40), (64, 33)]


def with_singletons(m, n, seed):
    """A random sparse matrix with a few chains of column singletons planted: column j
    of the chain has one entry in its own row and the chain's later rows see it."""
    rng = np.random.default_rng(seed)
    A = sp.random(m, n, density=0.2, random_state=rng, format="lil")
    for j in range(0, n, 3):
        A[:, j] = 0
        A[rng.integers(0, m), j] = rng.uniform(0.5, 2.0)
    if n > 4:
        A[:, n - 1] = 0                                     # an empty column: a dead singleton
    return A.tocsc()


def host_engine(an):
    return HostQR(), None, "host"


@pytest.mark.parametrize("m,n", SIZES)
def test_singletons_match_the_definition_and_leave_a_block_form(m, n):
    A = with_singletons(m, n, seed=m * 31 + n)
    cols, rows = column_singletons(A)
    assert len(set(cols.tolist())) == cols.size and len(set(rows[rows >= 0].tolist())) == (rows >= 0).sum()
    D = A.toarray()
    taken = np.zeros(m, bool)
    for j, i in zip(cols, rows):                # each, at its turn, has at most one entry left
        live = np.flatnonzero((D[:, j] != 0) & ~taken)
        if i < 0:
            assert live.size == 0
        else:
            assert live.tolist() == [i]
            taken[i] = True
    rest = np.setdiff1d(np.arange(n), cols)
    for j in rest:                              # and none is left over: the search is complete
        assert np.count_nonzero(D[~taken, j]) >= 2
    assert not D[~taken][:, cols].any()          # the rows left do not touch them: [[A11, A12], [0, A2]]
    A11 = D[rows[rows >= 0]][:, cols[rows >= 0]]
    assert np.allclose(A11, np.triu(A11))


def test_a_tiny_entry_is_not_a_singleton_and_a_given_order_keeps_its_leading_run():
    A = sp.csc_matrix(np.array([[1e-12, 0, 1.0], [0, 2.0, 1.0], [0, 0, 3.0], [0, 0, 4.0]]))
    cols, rows = column_singletons(A, tol=1e-9)
    assert cols.tolist() == [1] and rows.tolist() == [1]
    assert column_singletons(A)[0].tolist() == [0, 1]
    assert leading_singletons(A).tolist() == [0, 1]
    assert leading_singletons(A[:, [2, 0, 1]]).tolist() == []           # the run stops at a non-singleton
    assert leading_singletons(A[:, [1, 0, 2]], tol=1e-9).tolist() == [1]


@pytest.mark.parametrize("m,n", [(7, 5), (30, 17), (64, 33)])
def test_singleton_rows_of_r_are_as_in_a_and_r_keeps_no_zeros(m, n):
    A = with_singletons(m, n, seed=n)
    fac = factorize(A, None, ordering="colamd", tol=-1, engine=host_engine)
    an = fac.analysis
    assert an.n1 > 0
    AP = A[:, fac.perm].toarray().astype(np.float32)
    R = fac.R.toarray()
    for f in range(an.n1):
        if an.fm[f]:
            np.testing.assert_array_equal(R[f], AP[an.s_rows[f][0]])       # bit for bit: no arithmetic
        else:
            assert not R[f].any()                                           # dead: no row
    assert np.all(fac.R.data != 0)
    Ad = AP.astype(np.float64)
    assert np.linalg.norm(R.T.astype(float) @ R - Ad.T @ Ad) <= 1e-5 * np.linalg.norm(Ad) ** 2


def spqr_flops(an) -> float:
    """SuiteSparseQR's count (spqr_front.cpp), front by front: column k while rows are
    left, its reflector spanning max(t, k + 1) - k rows, t its staircase."""
    total = 0.0
    for f in range(an.n1, an.nfronts):
        fn, lo = int(an.fn[f]), an.leftmost[f]
        for k in range(min(int(an.fm[f]), fn)):
            h = max(int(np.sum(lo <= k)), k + 1) - k
            total += h * (3 + 4 * (fn - k - 1))
    return total


@pytest.mark.parametrize("m,n", [(3, 2), (30, 17), (64, 33), (41, 40)])
def test_flops_are_counted_as_suitesparseqr_counts_them(m, n):
    an = analyze(with_singletons(m, n, seed=m), "natural")
    assert an.flops == spqr_flops(an)


def test_a_second_rank_pass_keeps_the_first_ones_order(monkeypatch):
    """agg^T (NETLIB): the dependent columns of a subtree that LSMR on the float32 block
    cannot settle are decided densely; the rank is the SVD's at SuiteSparseQR's
    tolerance (154), and the pass after the first orders what is left as the first did."""
    import glgpgpu.solvers.sparse_qr as sq
    from pathlib import Path
    from glgpgpu.bench.matrices import netlib_at
    A = netlib_at(Path(__file__).parents[1] / "data" / "netlib" / "agg.mps.gz")
    seen = []
    real = sq.factorize

    def spy(A_, B, **kw):
        fac = real(A_, B, **kw)
        seen.append((kw["ordering"], fac.perm.copy(), fac.dead.copy()))
        return fac
    monkeypatch.setattr(sq, "factorize", spy)
    fac = sq.factorize_rank(A, None, ordering="colamd", tol=sq.default_tol(A), engine=host_engine)
    assert fac.rank == 154
    (_, perm1, dead1), (order2, _, _) = seen[0], seen[1]
    alive = np.delete(perm1, dead1)
    np.testing.assert_array_equal(np.argsort(np.argsort(alive)), order2)


def test_the_qr_orders_with_suitesparseqrs_colamd_knob_and_the_lps_cholesky_with_colamds(monkeypatch):
    """SuiteSparseQR reaches COLAMD through CHOLMOD, which ignores only rows that are
    entirely dense (knob -1); the LP's Cholesky of A D A^T keeps COLAMD's default."""
    import glgpgpu.symbolic.ordering as ordering
    from glgpgpu.solvers.sparse_cholesky import CholeskyAnalysis
    seen = []
    real = ordering.colamd
    monkeypatch.setattr(ordering, "colamd", lambda A, dense_rows=None: seen.append(dense_rows) or real(A, dense_rows))
    A = with_singletons(30, 17, seed=2)
    analyze(A)
    CholeskyAnalysis(A.T.tocsc(), "colamd")
    assert seen == [-1.0, None]
