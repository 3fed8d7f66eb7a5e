"""The sparse QR's symbolic analysis against dense references, no GL: the column
elimination tree and R's pattern against boolean elimination on A^T A, the fronts'
bookkeeping (every row has one source), the staircase flop count against a dense
Householder count, stages against their budget, and the numeric phase in float64-
checked float32 on the host (R up to row signs equals numpy's QR of A P)."""
import numpy as np
import pytest
import scipy.sparse as sp

from glgpgpu.bench.matrices import chessboard, grid, nug
from glgpgpu.errors import OrderingUnavailableError
from glgpgpu.solvers.sparse_fronts import HostQR
from glgpgpu.solvers.sparse_qr import factorize
from glgpgpu.symbolic import (analyze, column_etree, column_order, front_bytes, front_levels, front_rounds,
                              plan_stages, postorder)
from glgpgpu.symbolic import ordering as ordering_mod

SHAPES = [(1, 1), (2, 1), (3, 2), (2, 3), (7, 5), (9, 9), (30, 17), (41, 40), (64, 33)]


def random_sparse(m, n, seed, density=0.15):
    rng = np.random.default_rng(seed)
    A = sp.random(m, n, density=density, random_state=rng, format="lil")
    A[rng.integers(0, m, n), np.arange(n)] = rng.standard_normal(n)    # most columns non-empty
    if n > 3:
        A[:, n // 2] = 0                                                 # an empty column
    if m > 3:
        A[m // 3, :] = 0                                                 # an empty row
    return A.tocsc()


def symbolic_cholesky(A) -> np.ndarray:
    """The pattern of R (= chol(A^T A)'s transpose) by boolean elimination, row j."""
    P = (abs(A).T @ abs(A)).toarray() != 0
    n = P.shape[0]
    for j in range(n):
        P[j, j] = True
        nz = np.flatnonzero(P[j, j + 1:]) + j + 1
        for a in nz:
            P[a, nz] = True
    return np.triu(P)


@pytest.mark.parametrize("m,n", SHAPES)
def test_etree_is_the_first_off_diagonal_of_r(m, n):
    A = random_sparse(m, n, seed=m * 100 + n)
    S = symbolic_cholesky(A)
    expect = np.array([(np.flatnonzero(S[j, j + 1:])[0] + j + 1) if S[j, j + 1:].any() else -1 for j in range(n)])
    np.testing.assert_array_equal(column_etree(A), expect)


@pytest.mark.parametrize("m,n", SHAPES)
def test_postorder_keeps_subtrees_contiguous(m, n):
    parent = column_etree(random_sparse(m, n, seed=n))
    post = postorder(parent)
    assert sorted(post) == list(range(n))
    where = np.empty(n, int)
    where[post] = np.arange(n)
    size = np.ones(n, int)
    for j in post:                                  # children before parents
        if parent[j] >= 0:
            assert where[parent[j]] > where[j]
            size[parent[j]] += size[j]
    for j in range(n):                              # subtree of j = the size[j] positions ending at j
        lo = where[j] - size[j] + 1
        block = set(post[lo:where[j] + 1].tolist())
        members = {j}
        for i in range(n):
            a = i
            while a >= 0 and a != j:
                a = parent[a]
            if a == j:
                members.add(i)
        assert block == members, j


def expected_pattern(AP, an) -> np.ndarray:
    """R's pattern: a column singleton's row is its row of A; the rest is the symbolic
    Cholesky of what the singletons leave (their rows out)."""
    n = AP.shape[1]
    S = np.zeros((n, n), bool)
    rows = np.concatenate([an.s_rows[f] for f in range(an.n1)] + [np.zeros(0, np.int64)])
    for f in range(an.n1):
        S[f, f] = True
        for i in an.s_rows[f]:
            S[f, AP[[i]].nonzero()[1]] = True
    keep = np.ones(AP.shape[0], bool)
    keep[rows] = False
    S[an.n1:, an.n1:] = symbolic_cholesky(AP[keep])[an.n1:, an.n1:]
    return S


@pytest.mark.parametrize("singletons", [False, True])
@pytest.mark.parametrize("relax", [False, True])
@pytest.mark.parametrize("m,n", SHAPES)
def test_fronts_cover_r_and_every_row_has_one_source(m, n, relax, singletons):
    A = random_sparse(m, n, seed=7 * m + n)
    an = analyze(A, "natural", relax=relax, singletons=singletons)
    AP = A[:, an.perm]
    S = expected_pattern(AP, an) if singletons else symbolic_cholesky(AP)
    assert singletons or an.n1 == 0
    np.testing.assert_array_equal(an.col_count, S.sum(axis=1))
    ours = np.zeros_like(S)
    for f in range(an.nfronts):
        pat = an.pattern[f]
        assert np.all(np.diff(pat) > 0) and np.array_equal(pat[:an.fp[f]], np.arange(an.super[f], an.super[f + 1]))
        for k in range(an.fp[f]):
            ours[an.super[f] + k, pat[k:]] = True
        assert np.all(np.diff(an.leftmost[f]) >= 0)                 # the staircase
        for c in an.children[f]:                                    # each child's block rows, once each
            assert np.array_equal(np.sort(an.source_row[f][an.sources[f] == c]), np.arange(an.cm[c]))
            assert np.array_equal(an.pattern[f][an.rjmap[c]], an.pattern[c][an.fp[c]:])
        assert an.cm[f] == min(an.fm[f], an.fn[f]) - an.frank[f]
    if not relax:
        np.testing.assert_array_equal(ours, S)                      # exactly the symbolic factor
    else:
        assert np.all(ours | ~S)                                    # explicit zeros may be added, nothing lost
    rows = np.concatenate([r for r in an.s_rows]) if an.nfronts else np.zeros(0)
    nonempty = np.flatnonzero(np.diff(A.tocsr().indptr))
    np.testing.assert_array_equal(np.sort(rows), nonempty)
    assert an.postorder_ok()


def dense_house_flops(M):
    """The flops the staircase count claims, counted on the dense front by the rows
    each reflector really touches (nonzeros in column k at or below the diagonal,
    after the previous reflectors' fill)."""
    P = M != 0
    fm, fn = P.shape
    total = 0.0
    for k in range(min(fm, fn)):
        below = np.flatnonzero(P[k:, k]) + k
        if below.size == 0 or below.max() == k:
            continue
        h = below.max() - k + 1
        total += h * (4.0 * (fn - k - 1) + 3.0)
        P[k:k + h, k:] = P[k:k + h, k:].any(axis=0)                  # fill
    return total


@pytest.mark.parametrize("m,n", [(7, 5), (30, 17), (64, 33)])
def test_flop_count_matches_the_staircase_of_each_front(m, n):
    A = random_sparse(m, n, seed=m + n)
    an = analyze(A, "natural")
    from glgpgpu.solvers.sparse_fronts import _assemble
    AP = A[:, an.perm].tocsr().astype(np.float32)
    blocks, total = {}, 0.0
    for f in range(an.nfronts):
        M = _assemble(an, f, AP, blocks)
        M = np.where(M == 0, 0.0, 1.0)                             # blocks below: upper trapezoids of ones
        total += dense_house_flops(M.copy())
        k = an.cm[f]
        if k:
            blocks[f] = np.triu(np.ones((k, an.fn[f] - an.fp[f]), np.float32))
    assert total <= an.flops + 1e-9                                 # the staircase bounds what is touched


def test_stages_fit_their_budget_and_refuse_an_impossible_one():
    A = grid(6, 2)
    an = analyze(A, "natural")
    need = front_bytes(an)
    assert len(plan_stages(an, None)) == 1
    for budget in (int(need.max()), max(int(need.max()), int(need.sum() // 3)), int(need.sum())):
        st = plan_stages(an, budget)
        assert np.array_equal(np.concatenate(st), np.arange(an.nfronts))
        assert all(need[s].sum() <= budget for s in st)
    with pytest.raises(MemoryError, match="memory_budget"):
        plan_stages(an, int(need.max()) - 1)


@pytest.mark.parametrize("n,dim", [(1, 2), (2, 2), (3, 3), (7, 2), (6, 3), (12, 2)])
def test_levels_run_each_front_just_before_its_parent_in_as_many_rounds(n, dim):
    """front_levels (as late as possible) against front_rounds (as soon as possible),
    on the whole tree and on stages: every front once, after all its children, and in
    the round right before its parent's where the parent is in the same stage; as many
    rounds; and (on these grids, not in general) no more launches when a round costs
    its tallest front's panels."""
    from glgpgpu.scheduling import tree
    an = analyze(grid(n, dim), "natural")
    need = front_bytes(an)
    for stage in plan_stages(an, None) + plan_stages(an, max(int(need.max()), int(need.sum() // 3))):
        levels, rounds = front_levels(an, stage), front_rounds(an, stage)
        assert sorted(f for r in levels for f in r) == sorted(stage.tolist())
        assert len(levels) == len(rounds)
        at = {f: k for k, r in enumerate(levels) for f in r}
        for f in stage:
            assert all(at[c] < at[f] for c in an.children[f] if c in at)
            p = int(an.parent[f])
            if p in at:
                assert at[p] == at[f] + 1
    lengths = [max(1, -(-min(int(an.fm[f]), int(an.fn[f])) // 4)) for f in range(an.nfronts)]
    everything = np.arange(an.nfronts)
    critical = tree.asap(an.children, lengths)[1]
    assert critical <= tree.rounds_launches(front_levels(an, everything), lengths) \
        <= tree.rounds_launches(front_rounds(an, everything), lengths)


def test_orderings_validate():
    A = random_sparse(9, 6, seed=1)
    assert np.array_equal(column_order(A, "natural")[0], np.arange(6))
    p, name = column_order(A, [5, 4, 3, 2, 1, 0])
    assert name == "given" and list(p) == [5, 4, 3, 2, 1, 0]
    for bad in ([0, 1, 2], [0, 0, 1, 2, 3, 4], "amd", [0.5, 1, 2, 3, 4, 5]):
        with pytest.raises(ValueError, match="ordering"):
            column_order(A, bad)
    p, name = column_order(A, "colamd")
    assert name == "colamd" and sorted(p) == list(range(6))


def test_missing_colamd_names_the_package(monkeypatch):
    monkeypatch.setattr(ordering_mod, "_libcolamd", lambda: None)
    with pytest.raises(OrderingUnavailableError, match="apt-get install libcolamd2"):
        column_order(random_sparse(5, 4, seed=0), "colamd")


def r_up_to_signs(A, perm):
    R = np.linalg.qr(A[:, perm].toarray(), mode="r")
    return np.abs(R)


@pytest.mark.parametrize("make", [lambda: random_sparse(64, 33, seed=3), lambda: grid(5, 2), lambda: grid(3, 3),
                                  lambda: nug(4), lambda: chessboard(3, 4, 1)],
                         ids=["random", "grid2d", "grid3d", "nug4", "chessboard"])
def test_numeric_phase_on_the_host_gives_r(make):
    """The multifrontal R equals the dense R of A P up to row signs (float32, full
    column rank cases) and R^T R = (A P)^T (A P) within float32's bound."""
    A = make()
    fac = factorize(A, None, ordering="colamd", tol=-1, engine=lambda an: (HostQR(), None, "host"))
    AP = A[:, fac.perm].toarray()
    R = fac.R.toarray().astype(np.float64)
    assert np.linalg.norm(R.T @ R - AP.T @ AP) <= 1e-5 * np.linalg.norm(AP) ** 2
    if np.linalg.matrix_rank(AP) == AP.shape[1]:
        Rd = np.linalg.qr(AP, mode="r")
        np.testing.assert_allclose(np.abs(R), np.abs(Rd), atol=1e-4 * np.abs(Rd).max())
