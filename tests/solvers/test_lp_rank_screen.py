"""Presolve's dependent-row check: a sparse Cholesky of A A^T screens out the
clearly full-rank cases before the O(m^2 n) rank-revealing QR (no GL)."""
import numpy as np
import pytest
import scipy.sparse as sp

from glgpgpu.solvers.lp import presolve


def _rows(m, n, seed, density=0.05):
    rng = np.random.default_rng(seed)
    A = sp.random(m, n, density=density, random_state=rng).toarray() + np.eye(m, n)
    return A, rng


@pytest.mark.parametrize("m,n", [(2, 3), (3, 7), (17, 40), (60, 150), (131, 300)])
def test_independent_rows_are_clear_and_kept(m, n):
    A, rng = _rows(m, n, m)
    assert presolve.clearly_full_rank(A)
    keep, consistent = presolve.dependent_rows(A, rng.standard_normal(m))
    assert np.array_equal(keep, np.arange(m)) and consistent


@pytest.mark.parametrize("m,n", [(3, 7), (17, 40), (60, 150)])
def test_dependent_and_nearly_dependent_rows_go_to_the_qr(m, n):
    A, rng = _rows(m, n, m + 1)
    dup = A.copy()
    dup[-1] = 2 * A[0] - 0.5 * A[1]                     # an exact combination
    assert not presolve.clearly_full_rank(dup)
    b = rng.standard_normal(m)
    b[-1] = 2 * b[0] - 0.5 * b[1]
    keep, consistent = presolve.dependent_rows(dup, b)
    assert keep.shape[0] == m - 1 and consistent
    near = dup.copy()
    near[-1, -1] += 1e-6 * np.linalg.norm(near[-1])    # independent, but only just
    assert not presolve.clearly_full_rank(near)


def test_the_screen_agrees_with_the_qr_on_random_problems():
    for seed in range(20):
        rng = np.random.default_rng(seed)
        m = int(rng.integers(2, 40))
        A = sp.random(m, int(rng.integers(m, 3 * m + 2)), density=0.15, random_state=rng).toarray()
        A = A[np.any(A != 0, axis=1)]
        if A.shape[0] < 2:
            continue
        if presolve.clearly_full_rank(A):
            assert np.linalg.matrix_rank(A) == A.shape[0]


@pytest.mark.parametrize("m,n", [(1, 2), (3, 7), (17, 40), (60, 150)])
def test_the_screen_gives_the_same_verdicts_without_qdldl(m, n, monkeypatch):
    """qdldl screens where installed; the multifrontal factor (or none: the QR) otherwise."""
    A, _ = _rows(m, n, m + 2)
    dup = A.copy()
    dup[-1] = 2 * A[0] if m > 1 else 0 * A[0]
    with_qdldl = [presolve.clearly_full_rank(X) for X in (A, dup)]
    monkeypatch.setitem(__import__("sys").modules, "qdldl", None)          # import qdldl raises
    assert [presolve.clearly_full_rank(X) for X in (A, dup)] == with_qdldl == [True, False]


@pytest.mark.parametrize("m,n", [(2, 3), (3, 7), (17, 40), (60, 150), (131, 300)])
def test_the_gram_split_drops_exactly_dependent_rows_as_the_qr_does(m, n, monkeypatch):
    """Dependent rows (exact combinations, two of them) with a clear split: the pivoted Cholesky of the
    Gram matrix keeps as many rows as the rank-revealing QR, and checks their b the same way."""
    A, rng = _rows(m + 2, n, m + 3)
    A[-1] = 2 * A[0] - 0.5 * A[1 % m]
    A[-2] = 3 * A[m // 2]
    b = rng.standard_normal(m + 2)
    b[-1], b[-2] = 2 * b[0] - 0.5 * b[1 % m], 3 * b[m // 2]
    split = presolve._gram_split(A, b, 1e-9)
    assert split is not None
    keep, consistent = split
    assert keep.shape[0] == np.linalg.matrix_rank(A) == m and consistent
    assert np.linalg.matrix_rank(A[keep]) == m
    monkeypatch.setattr(presolve, "GRAM_ROWS", 0)                       # the QR alone
    qr_keep, qr_consistent = presolve.dependent_rows(A, b, rtol=1e-9)
    assert qr_keep.shape[0] == keep.shape[0] and qr_consistent
    b[-2] += 1e-3                                                       # the same rows, b not their combination
    assert presolve._gram_split(A, b, 1e-9)[1] is False


def test_a_near_dependence_is_left_to_the_qr():
    """A row only 1e-6 (relative) from the others' span: its pivot (1e-12) is neither clearly
    kept nor clearly rounding's, so the Gram split declines."""
    A, rng = _rows(20, 45, 9)
    A[-1] = A[0] + A[1]
    A[-1, -1] += 1e-6 * np.linalg.norm(A[-1])
    assert presolve._gram_split(A, rng.standard_normal(20), 1e-9) is None


@pytest.mark.parametrize("m,n", [(3, 7), (17, 40), (60, 150)])
def test_a_dense_gram_matrix_screens_by_lapack_with_the_same_verdicts(m, n, monkeypatch):
    """A A^T about dense (long columns: seba, fit2p) is screened by LAPACK's dense factor:
    the same verdicts as qdldl's on independent, dependent and nearly dependent rows, and
    the count device="auto" reads is the dense m^3/3."""
    A, _ = _rows(m, n, m + 3)
    A[:, 0] = 1.0                                      # a long column: A A^T dense
    dup, near = A.copy(), A.copy()
    dup[-1] = 2 * A[0] - 0.5 * A[1]
    near[-1] = dup[-1]
    near[-1, -1] += 1e-6 * np.linalg.norm(near[-1])
    verdicts = {}
    for share in (0.0, 1.0):                           # 0: every A A^T dense; 1: none
        monkeypatch.setattr(presolve, "DENSE_SHARE", share)
        count = {}
        verdicts[share] = [presolve.clearly_full_rank(X, count if X is A else None) for X in (A, dup, near)]
        if share == 0.0:
            assert count["flops"] == pytest.approx(m ** 3 / 3)
    assert verdicts[0.0] == verdicts[1.0] == [True, False, False]


@pytest.mark.parametrize("m,n", [(3, 7), (17, 40), (60, 150)])
def test_rows_with_a_column_of_their_own_are_kept_and_the_rest_decided_among_themselves(m, n, monkeypatch):
    """Slack-like columns (one entry) make their rows clearly independent: the dependent rows
    among the others go as they do when every row is left to the QR, with the same b check."""
    A, rng = _rows(m, n, m + 5)
    A[-1] = 2 * A[0] - 0.5 * A[1]                      # a dependence among rows without slacks
    slacks = np.zeros((m, m // 2 + 1))
    own = rng.permutation(np.arange(2, m - 1))[: slacks.shape[1]]
    slacks[own, np.arange(own.size)] = rng.uniform(0.5, 2.0, own.size)
    A = np.hstack([A, slacks[:, : own.size]])
    A[own, :n] *= 3.0                                   # rows with a slack: any entries
    b = rng.standard_normal(m)
    b[-1] = 2 * b[0] - 0.5 * b[1]
    private = presolve.private_rows(A)
    assert private[own].all() and not private[[0, 1, m - 1]].any()    # the dependence's rows: none
    keep, consistent = presolve.dependent_rows(A, b)
    monkeypatch.setattr(presolve, "PRIVATE_SHARE", np.inf)     # no row private: the whole A decided
    monkeypatch.setattr(presolve, "GRAM_ROWS", 0)
    whole_keep, whole_consistent = presolve.dependent_rows(A, b)
    assert keep.shape[0] == whole_keep.shape[0] == m - 1 and consistent and whole_consistent
    assert np.isin(own, keep).all() and np.linalg.matrix_rank(A[keep]) == m - 1
    b[-1] += 1e-3                                       # the same rows, b not their combination
    assert presolve.dependent_rows(A, b)[1] is False


def test_a_column_of_its_own_with_a_tiny_entry_proves_nothing():
    """A row whose own column's entry is below PRIVATE_SHARE of its norm is not taken as clearly
    independent (it may be nearly a combination of the others): the rank work decides it."""
    A, _ = _rows(10, 25, 4)
    A[-1] = A[0] + A[1]
    tiny = np.zeros((10, 1))
    tiny[-1] = 1e-6 * np.linalg.norm(A[-1])
    A = np.hstack([A, tiny])
    assert not presolve.private_rows(A)[-1]
    tiny[-1] = 1e-2 * np.linalg.norm(A[-1])
    assert presolve.private_rows(np.hstack([A[:, :-1], tiny]))[-1]


@pytest.mark.parametrize("m,p", [(5, 2), (40, 3), (301, 20)])
def test_private_rows_and_a_dense_gram_matrix_need_no_product(m, p, monkeypatch):
    """An L1 regression's A = [X, I, -I]: its dense columns make A A^T dense, and every row holds
    a column of its own -- clearly full rank with the dense count, without forming A A^T (that
    sparse product was most of the solve).  The same verdict and count as the dense route."""
    rng = np.random.default_rng(m)
    A = sp.hstack([sp.csr_matrix(rng.standard_normal((m, p))), sp.eye(m), -sp.eye(m)], format="csr")
    count = {}
    product = sp.csr_matrix.__matmul__
    monkeypatch.setattr(sp.csr_matrix, "__matmul__", lambda *a: pytest.fail("A A^T formed"))
    assert presolve.clearly_full_rank(A, count) and count["flops"] == pytest.approx(m ** 3 / 3)
    monkeypatch.setattr(sp.csr_matrix, "__matmul__", product)
    monkeypatch.setattr(presolve, "PRIVATE_SHARE", np.inf)         # the dense route instead
    dense_count = {}
    assert presolve.clearly_full_rank(A, dense_count) and dense_count == count


def test_opposite_pairs_are_free_variables_split_in_two():
    """Columns a_k = -a_j with c_k = -c_j, both >= 0 without an upper bound: one free variable
    written as x+ - x-.  Not a pair: costs that do not cancel (an L1 penalty), an upper bound,
    a free column, a column equal but not opposite, one entry off."""
    rng = np.random.default_rng(3)
    X = sp.random(30, 6, density=0.4, random_state=rng, format="csc")
    X.data = rng.uniform(-2, 2, X.data.size)
    A = sp.hstack([X, -X, sp.eye(30)], format="csc").tolil()
    n = A.shape[1]
    c = np.r_[np.arange(6.0) - 2, -(np.arange(6.0) - 2), np.ones(30)]
    u, free = np.full(n, np.inf), np.zeros(n, bool)
    c[7] += 1.0                       # column 1's partner no longer at no cost
    u[8] = 5.0                        # column 2's partner bounded
    free[3] = True                    # column 3 itself free
    A[0, 10] = A[0, 10] + 1.0         # column 4's partner one entry off
    A = sp.csc_matrix(A)
    pairs = presolve.opposite_pairs(A, c, u, free)
    assert sorted(map(sorted, pairs.tolist())) == [[0, 6], [5, 11]]
    assert presolve.opposite_pairs(sp.hstack([X, X], format="csc"), np.zeros(12), np.full(12, np.inf),
                                   np.zeros(12, bool)).size == 0


def test_a_split_free_variable_is_solved_as_one():
    """scikit-learn's QuantileRegressor with alpha = 0 (beta = beta+ - beta-, no cost on either):
    its optimal face is unbounded along beta+ and beta- together, and the interior point ended in
    numerical trouble at 3,000 columns; now a run that stalls so is solved again with each pair
    made one free column (presolve's merge_split).  Optimal to HiGHS's objective, the constraints
    held, and each pair's parts complementary and >= 0."""
    pytest.importorskip("highspy")
    from glgpgpu.bench import lp_families as F
    from glgpgpu.solvers.lp.solver import solve_general
    lp = F.quantile_regression(3000, 0, alpha=0.0)
    res = solve_general(lp, device="cpu64")
    _, h_obj, _ = F.highs_ipm(F.highs_model(lp))
    assert res.status == "optimal" and abs(res.objective - h_obj) <= 1e-8 * max(1.0, abs(h_obj)), res.message
    assert res.stats["split_merged"] == 20
    p = 20
    plus, minus = res.x[:p], res.x[p:2 * p]
    assert (plus >= 0).all() and (minus >= 0).all() and not (plus * minus).any()
    assert res.violation <= 1e-6


@pytest.mark.parametrize("blocks, size", [(2, 3), (3, 17), (8, 40)])
def test_rows_that_share_no_column_are_decided_a_group_at_a_time(blocks, size, monkeypatch):
    """Block-diagonal rows (a multicommodity flow's, one block a commodity), a dependent row in each
    block: the groups are the blocks (packed up to GROUP_ROWS), the rows kept are the rank's, as when
    all the rows are one group, and a b off its combination in one block is caught."""
    rng = np.random.default_rng(blocks * size)
    parts, bs = [], []
    for k in range(blocks):
        B, _ = _rows(size, 2 * size + 1, 10 * k + size)
        B[:, -1] = 1.0                                              # one column in every row: a block is connected
        B[-1] = B[0] - 2.0 * B[size // 2]
        bk = rng.standard_normal(size)
        bk[-1] = bk[0] - 2.0 * bk[size // 2]
        parts.append(B)
        bs.append(bk)
    from scipy.linalg import block_diag
    A, b = block_diag(*parts), np.concatenate(bs)
    monkeypatch.setattr(presolve, "GROUP_ROWS", size)
    groups = presolve._groups(A)
    assert len(groups) == blocks and sorted(np.concatenate(groups)) == list(range(blocks * size))
    assert all(np.ptp(g // size) == 0 for g in groups)             # each group one block
    keep, consistent = presolve._dependent_among(A, b, 1e-9, 1e-9, np.abs(A).max(), np.abs(b).max())
    assert consistent and keep.shape[0] == np.linalg.matrix_rank(A) == blocks * (size - 1)
    assert np.linalg.matrix_rank(A[keep]) == keep.shape[0]
    b[-1] += 1e-3                                                   # the last block's b off its combination
    assert presolve._dependent_among(A, b, 1e-9, 1e-9, np.abs(A).max(), np.abs(b).max())[1] is False
    monkeypatch.setattr(presolve, "GROUP_ROWS", 10 ** 6)             # all the blocks in one group
    assert len(presolve._groups(A)) == 1
