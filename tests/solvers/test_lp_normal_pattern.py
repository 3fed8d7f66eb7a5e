"""The host's A D A^T on a pattern made once (NormalPattern), qdldl's factor kept across
factorizations on it (SparseLDL), and device="auto"'s choice between host and GPU (no GL)."""
import numpy as np
import pytest
import scipy.sparse as sp

from glgpgpu.solvers.lp.mixed import device as auto
from glgpgpu.solvers.lp.mixed.normal_pattern import NormalPattern

qdldl = pytest.importorskip("qdldl")                   # glgpgpu[lp] installs it

from glgpgpu.solvers.lp.mixed.host_factor import SparseLDL  # noqa: E402


def _sparse(rng, m, n):
    """Random sparse A with an empty column, a dense one and two columns of one pattern."""
    A = sp.random(m, n, density=min(1.0, 2.5 / m), random_state=rng, format="lil")
    A[:, 0] = 0.0                                          # empty column
    if n > 1:
        A[:, 1] = rng.standard_normal((m, 1))              # dense column
    if n > 3:
        A[:, 3] = 2.0 * A[:, 2].toarray()                  # the same pattern as column 2
    return sp.csr_matrix(A)


def _schur(P, data):
    """M from the pattern's triangle: K11 + K12 K12^T (the border's block is -I)."""
    U = P.matrix(data).toarray()
    K = U + np.triu(U, 1).T
    m = P.m
    return K[:m, :m] + K[:m, m:] @ K[:m, m:].T


@pytest.mark.parametrize("m", [1, 2, 3, 7, 16, 45, 200])
def test_the_pattern_sums_what_the_sparse_product_does(m):
    """Short columns as pairs, long ones (m >= 33 here: the dense column) as the border."""
    rng = np.random.default_rng(m)
    n = 2 * m + 3
    A = _sparse(rng, m, n)
    d = 10.0 ** rng.uniform(-8, 8, n)
    P = NormalPattern(A)
    assert P.long.size == (1 if m > 32 else 0)
    M = (A.multiply(d[None, :]) @ A.T).toarray() + 1e-3 * np.eye(m)
    # each entry a sum of n products of nonnegative d: float64's bound relative to sum |terms|
    terms = (abs(A).multiply(d[None, :]) @ abs(A).T).toarray() + 1e-3 * np.eye(m)
    assert np.all(np.abs(_schur(P, P.data(d, 1e-3)) - M) <= 4 * n * np.finfo(float).eps * terms)
    U = P.matrix(P.data(d, 1e-3)).toarray()
    assert np.all(np.tril(U, -1) == 0) and np.all(np.diag(U)[m:] == -1)
    assert np.all(np.diff(P.indptr) >= 1)                     # the diagonal always there


def test_scaling_the_pattern_is_scaling_the_matrix():
    rng = np.random.default_rng(4)
    A = _sparse(rng, 40, 90)
    P = NormalPattern(A)
    assert P.long.size == 1
    d, s = rng.uniform(0.1, 2, 90), rng.uniform(0.5, 2, 40)
    scaled = _schur(P, P.scale(P.data(d), s))
    plain = _schur(P, P.data(d))
    assert np.allclose(scaled, s[:, None] * plain * s[None, :], rtol=1e-14, atol=1e-14 * np.abs(plain).max())


@pytest.mark.parametrize("m", [1, 3, 40, 131])
def test_a_factor_made_again_on_the_pattern_is_a_fresh_one(m):
    """Later factorizations keep the first's ordering (qdldl's update): bit for bit the
    solves of a factor made from scratch on the same numbers, and M's solves to float64's
    bound for its condition (bordered or not)."""
    rng = np.random.default_rng(m)
    A = _sparse(rng, m, 3 * m + 2) + sp.eye(m, 3 * m + 2, format="csr")
    P = NormalPattern(A)
    F = SparseLDL(P)
    for k in range(3):
        d = 10.0 ** rng.uniform(-2, 2, A.shape[1])
        data = P.data(d, 1e-6)
        F.factor(data, 1e-14)
        fresh = SparseLDL(P).factor(data, 1e-14)
        b = rng.standard_normal(m)
        assert np.array_equal(F.solve(b), fresh.solve(b))
        M = _schur(P, data)
        bound = 64 * m * np.linalg.cond(M) * np.finfo(float).eps
        x = np.linalg.solve(M, b)
        assert np.linalg.norm(F.solve(b) - x) <= bound * np.linalg.norm(x) + 1e-12 * np.linalg.norm(x)


def test_a_pivot_far_below_the_shift_is_taken_as_rounding():
    """M semidefinite: every pivot of M + shift I is at least the shift; a factor whose
    pivots are not is refused and the shift grows (a singular M is regularized, not noise)."""
    A = sp.csr_matrix(np.array([[1.0, 2.0], [2.0, 4.0 + 1e-17]]))   # rank one: dependent rows
    P = NormalPattern(A)
    F = SparseLDL(P).factor(P.data(np.ones(2)), 1e-14)
    D = F._solver.factors()[1]
    top = float(P.data(np.ones(2))[P.diagonal_at].max())
    assert np.all(D >= 0.5 * 1e-14 * top)


def test_auto_factors_a_small_problem_on_the_host_and_a_costly_one_on_the_gpu(monkeypatch):
    rng = np.random.default_rng(0)
    A = sp.random(60, 150, density=0.03, random_state=rng, format="csr") + sp.eye(60, 150, format="csr")
    small = auto.choose(A)
    assert small.device == "cpu64" and 0 < small.flops <= auto.HOST_FLOPS and small.pattern is not None
    monkeypatch.setattr(auto, "HOST_FLOPS", small.flops / 2)
    assert auto.choose(A).device == "gpu"


def test_auto_sends_smaller_factors_to_a_gpu_that_factors_in_float64(monkeypatch):
    """A method whose GPU factors A D A^T in float64 itself (compute) takes the GPU from
    GPU_FLOAT64_HOST_FLOPS, the others from HOST_FLOPS: a count between the two goes to the
    GPU only with gpu_float64 (no GL)."""
    rng = np.random.default_rng(0)
    A = sp.random(60, 150, density=0.03, random_state=rng, format="csr") + sp.eye(60, 150, format="csr")
    f = auto.choose(A).flops
    monkeypatch.setattr(auto, "HOST_FLOPS", 2 * f)
    monkeypatch.setattr(auto, "GPU_FLOAT64_HOST_FLOPS", f / 2)
    assert auto.choose(A).device == "cpu64" and auto.choose(A, gpu_float64=False).device == "cpu64"
    assert auto.choose(A, gpu_float64=True).device == "gpu"


@pytest.mark.parametrize("method,expected", [("compute", True), ("blocked", False), ("paper", False),
                                             ("auto", False)])
def test_the_solver_tells_auto_whether_the_method_factors_in_float64(monkeypatch, method, expected):
    """mixed.solve passes the method's Method.float64_normal to the device choice (method
    "auto" resolves to blocked or paper: neither); a stand-in choice keeps it on the host."""
    from glgpgpu.solvers.lp import mixed
    from glgpgpu.solvers.lp.mixed.device import Choice
    seen = []

    def spy(A, counted=float("nan"), gpu_float64=False, order=None):
        seen.append(gpu_float64)
        return Choice("cpu64", 1.0, None)
    monkeypatch.setattr(mixed, "choose_device", spy)
    from glgpgpu.solvers.lp import linprog
    res = linprog([-1.0, -1.0], A_ub=[[1.0, 2.0], [3.0, 1.0]], b_ub=[4.0, 6.0], method=method)
    assert res.status == "optimal" and seen == [expected]


def test_auto_keeps_a_sparse_factor_far_below_the_dense_one_on_the_host(monkeypatch):
    """A staircase LP (periods linked by identity blocks): its sparse float64 factor is
    past HOST_FLOPS but over FRAGMENT_SPARSE_RATIO (and SPARSE_RATIO) times fewer flops than
    the dense m^3/3 the GPU would factor, so the host takes it, and says why; with the ratio
    out of reach, the GPU.
    By both counts that need no COLAMD: qdldl's on the pattern (COUNT_ROWS raised past m)
    and, past COUNT_ROWS, the presolve's count handed in."""
    rng = np.random.default_rng(3)
    T, k = 32, 100
    blocks = [[None] * T for _ in range(T)]
    for t in range(T):
        blocks[t][t] = sp.random(k, 2 * k, density=4.0 / k, random_state=rng, format="csr") + sp.eye(k, 2 * k)
        if t:
            blocks[t][t - 1] = -sp.eye(k, 2 * k)
    A = sp.bmat(blocks, format="csc")
    m = A.shape[0]
    assert m > auto.COUNT_ROWS
    with monkeypatch.context() as mp:
        mp.setattr(auto, "COUNT_ROWS", m)
        counted = auto.choose(A)                         # qdldl's count on the pattern
    assert counted.pattern is not None
    assert counted.flops > auto.HOST_FLOPS and m ** 3 / 3 > auto.SPARSE_RATIO * counted.flops
    assert counted.device == "cpu64" and counted.reason == "sparse factor"
    handed = auto.choose(A, counted.flops)               # past COUNT_ROWS: the presolve's count
    assert handed.flops == counted.flops and handed.device == "cpu64" and handed.reason == "sparse factor"
    # a GPU that factors in float64 (skipping zero tiles) keeps the rule only past COUNT_ROWS
    assert auto.choose(A, counted.flops, gpu_float64=True).reason == "sparse factor"
    with monkeypatch.context() as mp:
        mp.setattr(auto, "COUNT_ROWS", m)
        assert auto.choose(A, counted.flops, gpu_float64=True).device == "gpu"
    # each method its own line: the compute method's float64 factor past SPARSE_RATIO only
    monkeypatch.setattr(auto, "SPARSE_RATIO", 1e30)
    assert auto.choose(A, counted.flops, gpu_float64=True).device == "gpu"
    assert auto.choose(A, counted.flops).reason == "sparse factor"
    monkeypatch.setattr(auto, "FRAGMENT_SPARSE_RATIO", 1e30)
    again = auto.choose(A, counted.flops)
    assert again.device == "gpu" and again.reason == "flops"


def test_auto_counts_a_dense_normal_matrix_as_lapack_would():
    A = sp.csr_matrix(np.random.default_rng(1).standard_normal((50, 80)))     # A A^T dense
    c = auto.choose(A)
    assert c.pattern is None and c.flops == pytest.approx(50 ** 3 / 3)


def test_a_newton_step_is_corrected_until_a_dx_meets_rb(monkeypatch):
    """device="cpu64": each solve is accurate relative to r = rb + A D rhat, huge late in
    a solve; one correction with the small residual brings A dx to rb (the primal residual
    stalled at 5e-9 on ganges without it)."""
    from glgpgpu.solvers.lp.mixed import normal as mixed_normal

    rng = np.random.default_rng(3)
    m, n = 40, 90
    A = sp.random(m, n, density=0.06, random_state=rng, format="csr") + sp.eye(m, n, format="csr")
    d = 10.0 ** rng.uniform(-6, 6, n)
    rhat, rb = 1e4 * rng.standard_normal(n), 1e-6 * rng.standard_normal(m)

    def primal_error(slack):
        monkeypatch.setattr(mixed_normal, "PRIMAL_SLACK", slack)
        N = mixed_normal.MixedNormal(A, device="cpu64")
        N.factor(d, 1e-12)
        dy, dx = N.newton(rb, rhat, d, tol=1e-8)
        return np.linalg.norm(rb - A @ dx - 1e-12 * dy), N.stats["primal_corrections"]

    plain, none = primal_error(np.inf)
    corrected, once = primal_error(0.01)
    assert none == 0 and once == 1
    assert plain > 0.01 * np.linalg.norm(rb)              # the case it is for
    assert corrected <= 1e-3 * plain


def test_a_bordered_factor_that_fails_falls_back_to_m_itself(monkeypatch):
    """Where qdldl's factor of the bordered K fails at every shift, the host's other factor gets
    M = K11 + K12 K12^T -- not K -- and the solve is M's."""
    from glgpgpu.solvers.lp.mixed import host_factor, normal as mixed_normal

    def refuse(self, data, shift):
        raise np.linalg.LinAlgError("refused for the test")
    monkeypatch.setattr(host_factor.SparseLDL, "_factor", refuse)
    rng = np.random.default_rng(8)
    A = _sparse(rng, 200, 500) + sp.eye(200, 500, format="csr")      # one long column: a border
    N = mixed_normal.MixedNormal(A, device="cpu64")
    d = rng.uniform(0.5, 2.0, 500)
    N.factor(d, 1e-9)
    assert N.ladder.pattern.long.size == 1 and N.stats["host_factor_sparse"] == 0
    M = (A.multiply(d[None, :]) @ A.T).toarray() + 1e-9 * np.eye(200)
    b = rng.standard_normal(200)
    x = N.solve(b, tol=1e-12)
    assert np.linalg.norm(M @ x - b) <= 1e-10 * np.linalg.norm(b)


def test_a_pattern_is_made_while_pairs_overlap_a_few_times_and_not_for_a_dense_m():
    """Columns whose pairs land on the same entries (beaconfd: 2.4 a triangle entry) still make a
    sparse M worth a pattern; hundreds a entry (fit1d) mean M is dense: none."""
    from glgpgpu.solvers.lp.mixed import normal_pattern
    rng = np.random.default_rng(2)
    rows = np.array([rng.choice(40, 5, replace=False) for _ in range(150)])   # 150 columns of 5 over 40 rows
    A = sp.csc_matrix((np.ones(rows.size), (rows.ravel(), np.repeat(np.arange(150), 5))), shape=(40, 150))
    pairs = int((np.diff(A.indptr) * (np.diff(A.indptr) + 1) // 2).sum())
    assert 40 * 41 // 2 < pairs <= normal_pattern.PAIRS_PER_ENTRY * 40 * 41 // 2
    assert NormalPattern.usable(A)
    dense = sp.csc_matrix(rng.standard_normal((10, 3000)))     # every column on every row: 3000 pairs an entry
    assert not NormalPattern.usable(dense)


def test_auto_counts_a_large_problem_by_the_symbolic_analysis(monkeypatch):
    """Past COUNT_ROWS no factorization is spent on the count: the multifrontal analysis's flops
    decide (and the solve reuses that analysis)."""
    from glgpgpu.solvers.sparse_cholesky import CholeskyAnalysis
    from glgpgpu.symbolic import colamd_available
    rng = np.random.default_rng(6)
    A = sp.random(60, 150, density=0.03, random_state=rng, format="csc") + sp.eye(60, 150, format="csc")
    monkeypatch.setattr(auto, "COUNT_ROWS", 59)
    if colamd_available():
        c = auto.choose(A)
        assert c.pattern is None and c.flops == CholeskyAnalysis.of(A).flops and c.device == "cpu64"
        monkeypatch.setattr(auto, "HOST_FLOPS", c.flops / 2)
        assert auto.choose(A).device == "gpu"
    # without COLAMD (and no presolve count) there is nothing to count by: the GPU, uncounted
    monkeypatch.setattr(auto, "colamd_available", lambda: False)
    far = auto.choose(A)
    assert far.device == "gpu" and np.isnan(far.flops) and far.pattern is None


def test_auto_takes_the_presolves_count_past_count_rows(monkeypatch):
    """The presolve's rank check factors A A^T with qdldl already: its count decides past
    COUNT_ROWS, with no analysis made; and it is the same count the pattern's factor gives."""
    from glgpgpu.solvers.lp import presolve
    rng = np.random.default_rng(7)
    A = sp.random(60, 150, density=0.03, random_state=rng, format="csc") + sp.eye(60, 150, format="csc")
    count = {}
    assert presolve.clearly_full_rank(A, count)
    assert count["flops"] == auto.choose(A).flops                   # below COUNT_ROWS: the pattern's own
    with monkeypatch.context() as patch:                          # given the presolve's, no factor is made
        def refuse(self, data, floor):
            raise AssertionError("factored")
        patch.setattr(auto.SparseLDL, "factor", refuse)
        given = auto.choose(A, count["flops"])
    assert given.flops == count["flops"] and given.pattern is not None and given.device == "cpu64"
    monkeypatch.setattr(auto, "COUNT_ROWS", 59)
    monkeypatch.setattr(auto, "CholeskyAnalysis", None)           # no analysis may be made
    c = auto.choose(A, count["flops"])
    assert c.device == "cpu64" and c.flops == count["flops"]


def test_the_host_factor_takes_the_presolves_ordering_where_the_structure_is_its_own():
    """The rank check's qdldl factor of A A^T orders the same triangle the normal matrix's pattern
    has (no long column, no row dropped): device="auto" hands it to the pattern's SparseLDL, whose
    factors are then bit for bit a fresh one's; a triangle of another structure is not taken."""
    from glgpgpu.solvers.lp import presolve
    from glgpgpu.solvers.lp.mixed.host_factor import SparseLDL, ordered_on
    rng = np.random.default_rng(11)
    for m, n in ((2, 5), (3, 7), (41, 90), (60, 150), (131, 300)):
        A = sp.random(m, n, density=0.02, random_state=rng, format="csc") + sp.eye(m, n, format="csc")
        count = {}
        assert presolve.clearly_full_rank(A, count)
        if m <= 3:                                                # A A^T dense: LAPACK's check, no order
            assert "order" not in count and auto.choose(A, count["flops"]).ldl is None
            continue
        c = auto.choose(A, count["flops"], order=count["order"])
        assert c.ldl is not None and c.ldl._solver is count["order"][0]
        d = np.exp(rng.uniform(-8, 8, n))
        data = c.pattern.data(d, 1e-12)
        b = rng.standard_normal(m)
        fresh = SparseLDL(c.pattern).factor(data, 1e-14)
        taken = c.ldl.factor(data, 1e-14)
        assert np.array_equal(taken.solve(b), fresh.solve(b)) and taken.flops == fresh.flops
        other = NormalPattern(A[:-1])                             # a row dropped: another triangle
        assert ordered_on(count["order"], other) is None


def test_a_bordered_pattern_counts_its_own_factor_not_the_presolves():
    """With long columns the host factors the bordered K, not A A^T: the presolve's count (of the
    dense A A^T) is not taken for it."""
    rng = np.random.default_rng(9)
    A = _sparse(rng, 200, 500) + sp.eye(200, 500, format="csr")      # one long column
    c = auto.choose(A, 1e12)
    assert c.pattern.long.size == 1 and c.flops < 1e12 and c.device == "cpu64"


@pytest.mark.parametrize("m", [1, 2, 3, 45, 200])
def test_the_pairs_places_are_the_same_by_map_and_by_search(m, monkeypatch):
    """A triangle past DENSE_PLACES places its pairs by binary search in its sorted entries
    instead of through a map of every position: the same pattern and the same sums, bit for bit."""
    from glgpgpu.solvers.lp.mixed import normal_pattern
    rng = np.random.default_rng(m + 11)
    A = _sparse(rng, m, 2 * m + 3)
    d = 10.0 ** rng.uniform(-8, 8, A.shape[1])
    by_map = NormalPattern(A)
    monkeypatch.setattr(normal_pattern, "DENSE_PLACES", 0)
    by_search = NormalPattern(A)
    for name in ("indices", "indptr", "diagonal_at", "v_at", "border_at"):
        assert np.array_equal(getattr(by_map, name), getattr(by_search, name)), name
    assert np.array_equal(by_map.data(d, 1e-3), by_search.data(d, 1e-3))


@pytest.mark.parametrize("m", [1, 2, 3, 40, 75])
def test_auto_counts_a_factor_that_fills_by_the_analysis_not_by_qdldl(m, monkeypatch):
    """Where COLAMD's count says A A^T's factor fills DENSE_FILL of the dense one (the host's factor
    is LAPACK's dense one), and that share is FILL_MARGIN times the host's limit, no qdldl factor
    is made to count it; the choice is the one qdldl's count makes; without COLAMD qdldl counts.
    (Where COLAMD is missing, the analysis in natural order stands in for it.)"""
    from glgpgpu.solvers.sparse_cholesky import CholeskyAnalysis
    from glgpgpu.symbolic import colamd_available
    rng = np.random.default_rng(m)
    A = sp.random(m, 2 * m, density=min(1.0, 2.0 / m), random_state=rng, format="csr") \
        + sp.eye(m, 2 * m, format="csr")
    analysis = CholeskyAnalysis(sp.csc_matrix(A), "colamd" if colamd_available() else "natural")
    flops = analysis.flops
    monkeypatch.setattr(auto, "colamd_available", lambda: True)
    monkeypatch.setattr(auto.CholeskyAnalysis, "of", classmethod(lambda cls, A, ordering="colamd": analysis))
    monkeypatch.setattr(auto, "HOST_FLOPS", flops / 100)  # a count far past the host's limit
    monkeypatch.setattr(auto, "SPARSE_SHARE", 1.0)        # M's pattern kept however full
    monkeypatch.setattr(auto, "DENSE_FILL", 0.0)          # every factor "fills" ...
    monkeypatch.setattr(auto, "FILL_MARGIN", 0.0)         # ... past the margin
    filled = auto.choose(A)
    assert filled.ldl is None and filled.flops == flops and filled.device == "gpu"
    monkeypatch.setattr(auto, "DENSE_FILL", np.inf)       # none does: qdldl counts, the same choice
    counted = auto.choose(A)
    assert counted.ldl is not None and counted.flops > 0 and counted.device == filled.device
    monkeypatch.setattr(auto, "DENSE_FILL", 0.0)
    monkeypatch.setattr(auto, "FILL_MARGIN", np.inf)      # the share within the margin: qdldl counts
    assert auto.choose(A).ldl is not None
    monkeypatch.setattr(auto, "FILL_MARGIN", 0.0)
    monkeypatch.setattr(auto, "colamd_available", lambda: False)   # no analysis to say it fills
    assert auto.choose(A).ldl is not None


def test_a_factor_counted_as_filling_forms_m_dense_on_the_host(monkeypatch):
    """device="auto" on the host with a count (the presolve's or device.py's) that fills: M is
    formed dense from the start and factored by LAPACK, never through the pattern's qdldl factor
    first -- the same optimum."""
    from glgpgpu.bench.lp_families import set_cover
    from glgpgpu.solvers.lp import solve_general
    from glgpgpu.solvers.lp.mixed import ladder
    lp = set_cover(3000, seed=5)                       # 750 rows: its factor about half the dense one
    ref = solve_general(lp, device="cpu64")
    monkeypatch.setattr(ladder, "DENSE_FILL", np.inf)  # no count fills: the pattern's factor first
    by_pattern = solve_general(lp, device="auto")
    monkeypatch.setattr(ladder, "DENSE_FILL", 0.3)     # this one fills
    res = solve_general(lp, device="auto")
    assert by_pattern.stats["host_factor_sparse"] >= 1
    assert res.stats["host_factor_sparse"] == 0 and res.stats["host_factor_dense"] == res.stats["factorizations"]
    for r in (res, by_pattern):
        assert r.status == ref.status == "optimal"
        assert abs(r.objective - ref.objective) <= 1e-8 * max(1.0, abs(ref.objective))
