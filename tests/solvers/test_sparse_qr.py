"""sparse_qr and sparse_lstsq on the GPU (every method): R's float32 backward
error, R bit-identical whatever the memory budget and the atlas placement, float64
least squares after refinement, rank decisions against the SVD, named errors."""
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import glgpgpu
from glgpgpu.bench.matrices import chessboard, grid, netlib_at, nug
from glgpgpu.bench import lp_table3
from glgpgpu.symbolic import analyze, front_bytes

METHODS = ["blocked", "paper", "compute"]
NETLIB_AT = Path(__file__).parents[1] / "data" / "netlib"


def backward_error(A, fac):
    AP = A[:, fac.perm[:fac.rank]].toarray()
    R = fac.R.toarray().astype(np.float64)
    return np.linalg.norm(R.T @ R - AP.T @ AP) / np.linalg.norm(A.toarray()) ** 2


def cases():
    rng = np.random.default_rng(5)
    out = {"1x1": sp.csc_matrix([[3.0]]), "2x1": sp.csc_matrix([[1.0], [2.0]]),
           "3x2": sp.csc_matrix([[1.0, 0], [0, 2.0], [1.0, 1.0]]),
           "grid2d_5": grid(5, 2), "grid3d_3": grid(3, 3),
           "grid3d_5": grid(5, 3), "ch4-5-b2": chessboard(4, 5, 2), "nug4": nug(4), "ch3-4-b1": chessboard(3, 4, 1)}
    A = sp.random(57, 31, density=0.08, random_state=rng, format="lil")
    A[np.arange(31) + 10, np.arange(31)] = 1.0
    out["random57x31"] = A.tocsc()
    S = sp.random(45, 30, density=0.15, random_state=rng, format="lil")
    for j in range(0, 30, 3):                   # column singletons: a third of the columns, one entry each
        S[:, j] = 0
        S[rng.integers(0, 45), j] = rng.uniform(0.5, 2.0)
    out["singletons45x30"] = S.tocsc()
    return out


CASES = cases()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_r_backward_error(ctx, method, name):
    A = CASES[name]
    fac = glgpgpu.sparse_qr(A, method=method, tol=-1)
    assert fac.R.shape == (A.shape[1], A.shape[1])
    assert backward_error(A, fac) <= 1e-5


@pytest.mark.parametrize("name", ["grid2d_6", "singletons45x30"])
@pytest.mark.parametrize("method", ["blocked", "paper", "compute"])
def test_r_is_bit_identical_whatever_the_budget_and_the_atlas(ctx, method, name):
    A = grid(6, 2) if name == "grid2d_6" else CASES[name]
    ref = glgpgpu.sparse_qr(A, method=method, tol=-1)
    need = front_bytes(ref.analysis)
    for budget in (int(need.max()), int(need.sum() // 4) + int(need.max())):
        fac = glgpgpu.sparse_qr(A, method=method, tol=-1, memory_budget=budget)
        assert fac.info["rounds"] >= ref.info["rounds"]
        assert (fac.R != ref.R).nnz == 0 and np.array_equal(fac.perm, ref.perm)
    small = glgpgpu.Context(max_texture_size=64 if method == "paper" else 128)   # other atlas placements
    fac = glgpgpu.sparse_qr(A, method=method, tol=-1, ctx=small)
    assert (fac.R != ref.R).nnz == 0


FRONT_STORES = {"compute": lambda: glgpgpu.compute.method.ComputeMethod,
                "blocked": lambda: glgpgpu.blocked.method.BlockedMethod,
                "paper": lambda: glgpgpu.paper.method.PaperMethod}


@pytest.mark.parametrize("method", sorted(FRONT_STORES))
@pytest.mark.parametrize("name", ["grid3d_5", "ch4-5-b2", "random57x31", "3x2", "1x1"])
def test_fronts_assembled_on_the_gpu_give_the_hosts_r(ctx, method, name, monkeypatch):
    """The fronts assembled and kept on the GPU -- A's rows scattered (compute) or drawn
    as points (blocked), the children's blocks gathered through their maps, small
    fronts in one dispatch (compute) -- give the R that host assembly gives, within
    float32 rounding, where A has full column rank (ch4-5-b2 has not: the pivots
    after a dependent column are rounding noise in either, and only the backward
    error is comparable)."""
    A = CASES[name]
    gpu = glgpgpu.sparse_qr(A, method=method, tol=-1)
    assert gpu.info["assembly"] == "gpu"
    monkeypatch.setattr(FRONT_STORES[method](), "fronts", None)
    host = glgpgpu.sparse_qr(A, method=method, tol=-1)
    assert host.info["assembly"] == "host"
    assert np.array_equal(gpu.perm, host.perm)
    if np.linalg.matrix_rank(A.toarray()) == A.shape[1]:
        assert abs(gpu.R - host.R).max() <= 1e-4 * np.abs(host.R).max()
    assert backward_error(A, gpu) <= 1e-5


@pytest.mark.parametrize("method", sorted(FRONT_STORES))
def test_fronts_taller_than_the_store_holds_go_by_the_host_among_the_others(ctx, method, monkeypatch):
    """Fronts past the store's row limit (ch7-8-b3's root under the fragment methods)
    take their children's blocks from the store, are assembled and factored on the
    host side, and give their own blocks back to it -- the others stay on the GPU,
    and R is the host assembly's within rounding, at any budget."""
    A = grid(6, 2)
    host_ref = glgpgpu.sparse_qr(A, method="host", tol=-1)
    an = host_ref.analysis
    limit = 20
    tall = int((an.fm > limit).sum())
    assert 1 < tall < an.nfronts and (an.fm[an.cm > 0] > limit).any()      # a tall front with a parent too
    store = FRONT_STORES[method]().fronts.FrontStore
    monkeypatch.setattr(store, "row_limit", lambda self, n: limit)
    calls = {"fetch": 0, "put": 0}

    def spy(name):
        orig = getattr(store, name)

        def counted(self, *a):
            calls[name] += 1
            return orig(self, *a)
        return counted
    for name in calls:
        monkeypatch.setattr(store, name, spy(name))
    ref = None
    for budget in (None, int(front_bytes(an).max())):
        fac = glgpgpu.sparse_qr(A, method=method, tol=-1, memory_budget=budget)
        assert fac.info["assembly"] == f"gpu ({tall} too tall on the host)"
        assert abs(fac.R - host_ref.R).max() <= 1e-4 * np.abs(host_ref.R).max()
        assert backward_error(A, fac) <= 1e-5
        ref = fac if ref is None else ref
        assert (fac.R != ref.R).nnz == 0
    assert calls["fetch"] and calls["put"]


@pytest.mark.parametrize("big,want", [((0, 3), "rounds"), ((2, 3), "levels")])
def test_drawing_stores_group_rounds_by_the_schedule_with_fewer_launches(big, want):
    """A chain 0 -> 1 -> 2 -> 4 and a leaf 3 -> 4, two fronts of 10 panels, the others 1
    (no GL): as soon as possible puts the leaves 0 and 3 together, as late as possible
    puts 2 and 3 together -- the solver takes the grouping whose rounds' tallest fronts
    sum to fewer launches; the compute store (no panel) keeps rounds."""
    from types import SimpleNamespace
    from glgpgpu.solvers.sparse_fronts import _grouping
    size = np.array([10 if f in big else 1 for f in range(5)])
    an = SimpleNamespace(nfronts=5, fm=size, fn=size, children=[[], [0], [1], [], [2, 3]],
                         parent=np.array([1, 2, 4, 4, -1]))
    chosen = []
    got = _grouping(an, SimpleNamespace(panel=1), chosen)(an, np.arange(5))
    assert chosen == [want]
    assert got == ([[0, 3], [1], [2], [4]] if want == "rounds" else [[0], [1], [2, 3], [4]])
    chosen = []
    assert _grouping(an, SimpleNamespace(panel=None), chosen)(an, np.arange(5)) == [[0, 3], [1], [2], [4]]
    assert chosen == ["rounds"]


@pytest.mark.parametrize("method,per_texel", [("blocked", 4), ("paper", 1)])
def test_drawn_blocks_packed_in_many_textures_keep_r_bit_identical(ctx, method, per_texel, monkeypatch):
    """The drawing stores' waiting blocks spread over many shelf textures (a pack limit
    just above the largest block), and the column maps over many draws, at a
    budget that pulls them to the host and sends them again: the same R, bit for bit."""
    A = grid(12, 2)
    ref = glgpgpu.sparse_qr(A, method=method, tol=-1)
    an = ref.analysis
    c = per_texel
    side = int(max(an.cm.max(), max(-(-int(an.fn[f]) // c) - int(an.fp[f]) // c for f in range(an.nfronts))))
    monkeypatch.setattr(glgpgpu.methods.fronts.DrawnFrontStore, "_pack_limit", lambda self: side)
    monkeypatch.setattr(glgpgpu.methods.fronts.DrawnFrontStore, "_map_rows", lambda self: 2)
    calls = []
    shelves = glgpgpu.figures.fronts.shelves
    monkeypatch.setattr(glgpgpu.figures.fronts, "shelves", lambda s, lim: calls.append(shelves(s, lim)) or calls[-1])
    for budget in (None, int(front_bytes(an).max())):
        fac = glgpgpu.sparse_qr(A, method=method, tol=-1, memory_budget=budget)
        assert fac.info["assembly"] == "gpu"
        assert (fac.R != ref.R).nnz == 0
    assert max(len(dims) for _, dims in calls) > 1


@pytest.mark.parametrize("small", [0, 300, 2000])
def test_compute_small_fronts_in_one_dispatch_and_large_by_panels_agree(ctx, small, monkeypatch):
    """Whatever size splits the fronts between the small-front dispatch and the panels
    (none, two mixes within rounds), R agrees to rounding and its budget does not change it."""
    A = grid(6, 3)
    ref = glgpgpu.sparse_qr(A, method="compute", tol=-1)
    monkeypatch.setattr(glgpgpu.compute.fronts, "SMALL", small)
    fac = glgpgpu.sparse_qr(A, method="compute", tol=-1)
    assert abs(fac.R - ref.R).max() <= 1e-4 * np.abs(ref.R).max() and backward_error(A, fac) <= 1e-5
    need = front_bytes(fac.analysis)
    staged = glgpgpu.sparse_qr(A, method="compute", tol=-1, memory_budget=int(need.max()))
    assert (staged.R != fac.R).nnz == 0


@pytest.mark.parametrize("method", METHODS + ["host"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_keep_h_gives_q_with_ap_equal_qr(ctx, method, name):
    """keep_h: Q as the fronts' reflectors, ||A P - Q [R; 0]|| / ||A|| <= 1e-5 (the
    issue's line; float32 reflectors), Q orthogonal, Q^T A P = [R; 0] -- rank-deficient
    and wide matrices included (R is rank x n: the dependent columns last, as SuiteSparseQR)."""
    A = CASES[name]
    fac = glgpgpu.sparse_qr(A, method=method, keep_h=True)
    (m, n), r = A.shape, fac.rank
    assert fac.R.shape == (r, n)
    AP = A[:, fac.perm].toarray()
    Rm = np.zeros((m, n))
    Rm[:r] = fac.R.toarray()
    scale = np.linalg.norm(A.toarray())
    assert np.linalg.norm(AP - fac.q(Rm)) <= 1e-5 * scale
    assert np.linalg.norm(fac.qt(AP) - Rm) <= 1e-5 * scale
    Y = np.random.default_rng(1).standard_normal((m, 3))
    assert np.allclose(fac.q(fac.qt(Y)), Y, atol=1e-5) and np.allclose(fac.qt(Y[:, 0]), fac.qt(Y)[:, 0])
    assert np.allclose(np.linalg.norm(fac.qt(Y), axis=0), np.linalg.norm(Y, axis=0), rtol=1e-5)


def test_keep_h_errors_name_the_fix(ctx):
    A = grid(4, 2)
    with pytest.raises(ValueError, match="keep_h=True"):
        glgpgpu.sparse_qr(A, method="host").qt(np.ones(A.shape[0]))
    with pytest.raises(ValueError, match="fac.qt"):
        glgpgpu.sparse_qr(A, np.ones(A.shape[0]), method="host", keep_h=True)
    with pytest.raises(ValueError, match="rows"):
        glgpgpu.sparse_qr(A, method="host", keep_h=True).qt(np.ones(A.shape[0] + 1))
    with pytest.raises(ValueError, match="method='host'"):
        glgpgpu.sparse_qr(grid(6, 2), method="paper", keep_h=True, ctx=glgpgpu.Context(max_texture_size=40))


def test_fronts_taller_than_the_texture_are_split_into_row_blocks(ctx):
    A = grid(6, 2)                                                  # its root front has 54 rows
    fac = glgpgpu.sparse_qr(A, method="paper", tol=-1, ctx=glgpgpu.Context(max_texture_size=40))
    assert fac.analysis.fm.max() > 40
    assert backward_error(A, fac) <= 1e-5


def test_every_netlib_at_under_a_gigaflop(ctx):
    """Every NETLIB A^T whose QR takes at most 1e9 flops -- 71 of the 75: Table 3's ten
    (data/netlib) and the other 61 (tests/data/netlib; pilot87, maros-r7, dfl001 and
    fit2p run in benchmarks/sparse_qr_gpu.py) -- R by drawing (blocked, R only) within
    the issue's float32 line."""
    paths = sorted(lp_table3.data_dir().glob("*.mps.gz")) + sorted(NETLIB_AT.glob("*.mps.gz"))
    over = []
    for path in paths:
        A = netlib_at(path)
        assert analyze(A).flops <= 1e9, path.name
        fac = glgpgpu.sparse_qr(A, tol=-1, method="blocked")
        AP = A[:, fac.perm].tocsc()
        R = fac.R.astype(np.float64)
        err = sp.linalg.norm(R.T @ R - AP.T @ AP) / sp.linalg.norm(A) ** 2
        if not err <= 1e-5:
            over.append((path.name, err))
    assert len(paths) == 71 and not over, over


def table3_matrices():
    folder = lp_table3.data_dir()
    return {p.name[:-len(".mps.gz")]: folder / p.name for p in sorted(folder.glob("*.mps.gz"))}


NETLIB = table3_matrices()


@pytest.mark.parametrize("name", sorted(NETLIB))
def test_lstsq_on_netlib_reaches_float64(ctx, name):
    """Every Table 3 LP's A^T (tall): ||A^T r|| / (||A||_F ||r||) <= 1e-12, the rank the
    SVD gives (numpy.linalg.matrix_rank), and the residual of numpy's lstsq."""
    A = netlib_at(NETLIB[name])
    b = np.random.default_rng(0).standard_normal(A.shape[0])
    x, info = glgpgpu.sparse_lstsq(A, b, method="blocked")
    Ad = A.toarray()
    assert info.converged
    assert info.rank == np.linalg.matrix_rank(Ad)
    if info.rank == A.shape[1]:
        assert info.optimality <= 1e-12
    else:                       # the basis kept can be ill-conditioned (agg3: 4e8); LAPACK's own answer reaches
        kept = Ad[:, info.factor.perm[:info.rank]]                 # 1.4e-10 there
        r = b - kept @ np.linalg.lstsq(kept, b, rcond=None)[0]
        lapack = np.linalg.norm(kept.T @ r) / (np.linalg.norm(kept) * np.linalg.norm(r))
        assert info.optimality <= max(1e-12, lapack)
    xr = np.linalg.lstsq(Ad, b, rcond=None)[0]
    assert np.linalg.norm(b - A @ x) <= (1 + 1e-10) * np.linalg.norm(b - Ad @ xr)
    assert np.all(x[info.dead] == 0)


def test_qtb_and_the_auto_path(ctx):
    A = grid(7, 2)
    b = np.arange(A.shape[0], dtype=float)
    fac = glgpgpu.sparse_qr(A, b, method="blocked")
    x = np.linalg.solve(fac.R.toarray().astype(float), fac.qtb)
    xr = np.linalg.lstsq(A.toarray(), b, rcond=None)[0]
    assert np.linalg.norm(x - xr[fac.perm]) <= 1e-4 * np.linalg.norm(xr)
    small = glgpgpu.sparse_qr(A, method="auto")                    # intensity < 10: the host
    assert small.info["path"].startswith("host (auto")
    x2, info = glgpgpu.sparse_lstsq(A, b)
    assert info.converged and np.linalg.norm(x2 - xr) <= 1e-10 * np.linalg.norm(xr)


def test_rank_deficient_gives_the_basic_solution(ctx):
    rng = np.random.default_rng(1)
    B = sp.random(40, 12, density=0.3, random_state=rng, format="csc") + sp.eye(40, 12)
    A = sp.hstack([B, B[:, [2]] * 3 - B[:, [5]], sp.csc_matrix((40, 1))], format="csc")   # dependent + zero column
    b = rng.standard_normal(40)
    x, info = glgpgpu.sparse_lstsq(A, b, method="blocked")
    assert info.rank == 12 and len(info.dead) == 2 and 13 in info.dead
    assert np.all(x[info.dead] == 0) and info.converged
    xr = np.linalg.lstsq(A.toarray(), b, rcond=None)[0]
    assert np.linalg.norm(b - A @ x) <= (1 + 1e-10) * np.linalg.norm(b - A.toarray() @ xr)


@pytest.mark.parametrize("call,err,match", [
    (lambda: glgpgpu.sparse_qr(sp.csc_matrix([[np.nan, 1.0]])), ValueError, "non-finite"),
    (lambda: glgpgpu.sparse_qr(sp.csc_matrix((0, 3))), ValueError, "at least one row"),
    (lambda: glgpgpu.sparse_qr(sp.csc_matrix([[1j, 1.0]])), ValueError, "complex"),
    (lambda: glgpgpu.sparse_qr(sp.eye(3), b=np.ones(4)), ValueError, "b has 4 rows"),
    (lambda: glgpgpu.sparse_lstsq(sp.eye(3), np.ones(2)), ValueError, "b has 2 entries"),
    (lambda: glgpgpu.sparse_qr(sp.eye(3), ordering="amd"), ValueError, "ordering"),
    (lambda: glgpgpu.sparse_qr(sp.eye(3), method="gpu"), ValueError, "method"),
    (lambda: glgpgpu.sparse_qr(sp.eye(3), memory_budget=0), ValueError, "memory_budget"),
    (lambda: glgpgpu.sparse_qr(grid(4, 2), method="host", memory_budget=10), MemoryError, "memory_budget"),
    (lambda: glgpgpu.sparse_lstsq(sp.eye(3), np.ones(3), max_iter=0), ValueError, "max_iter"),
])
def test_bad_input_is_named(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_dense_input_works(ctx):
    A = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    x, info = glgpgpu.sparse_lstsq(A, np.array([1.0, 2.0, 3.0]), method="host")
    np.testing.assert_allclose(x, np.linalg.lstsq(A, [1.0, 2.0, 3.0], rcond=None)[0], rtol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_a_rank_deficient_front_from_bnl2(ctx, method):
    """A 49 x 94 front of bnl2's A^T (entries 1e-14 .. 48, exact zero pivots): the
    dense QR must keep R^T R = M^T M to float32's bound.  Its sub-columns fall to ~1e-18,
    whose squares the GPU flushes to zero: the blocked path gave 7e-2 and the paper's
    2.3e-5 until such sums count as zero (H = I)."""
    from pathlib import Path
    M = np.load(Path(__file__).resolve().parents[1] / "data" / "qr_front_bnl2.npy")
    F, _ = glgpgpu.qr(M, mode="raw", method=method)
    R = np.triu(F[:M.shape[0]]).astype(np.float64)
    Md = M.astype(np.float64)
    assert np.linalg.norm(R.T @ R - Md.T @ Md) <= 1e-5 * np.linalg.norm(Md) ** 2


def test_a_zero_matrix_has_rank_zero():
    x, info = glgpgpu.sparse_lstsq(sp.csc_matrix((5, 3)), np.ones(5), method="host")
    assert info.rank == 0 and list(info.dead) == [0, 1, 2] and np.all(x == 0) and info.converged
    fac = glgpgpu.sparse_qr(sp.csc_matrix((5, 3)), method="host")
    assert fac.rank == 0 and fac.R.shape == (0, 3)             # rank x n, as SuiteSparseQR


def test_staircase_skips_rows_and_keeps_r_bit_identical(ctx, monkeypatch):
    """The compute method stops each panel at the rows its columns reach (the fronts'
    staircases): the same R, bit for bit, as factoring every row -- and rows are skipped."""
    import glgpgpu.compute.qr as cq
    A = grid(5, 3)                                                  # fronts wider than a panel
    monkeypatch.setattr(glgpgpu.compute.fronts, "SMALL", 0)        # every front by panels
    reached = []
    real = cq.rows_reached

    def spy(m, end, leftmost):
        reached.append((real(m, end, leftmost), m))
        return reached[-1][0]
    monkeypatch.setattr(cq, "rows_reached", spy)
    stairs = glgpgpu.sparse_qr(A, method="compute", tol=-1)
    assert any(r < m for r, m in reached)
    monkeypatch.setattr(cq, "rows_reached", lambda m, end, leftmost: m)
    dense = glgpgpu.sparse_qr(A, method="compute", tol=-1)
    assert (stairs.R != dense.R).nnz == 0
