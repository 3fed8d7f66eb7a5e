"""Sparse A D A^T by points on the GPU (paper full and packed, blocked) against
float64 and against the dense assembly, within the float32 bound; the normal
systems' choice between points and the dense assembly."""
import numpy as np
import pytest
import scipy.sparse as sp

from bounds import gamma
from glgpgpu.blocked import normal as blocked_normal
from glgpgpu.compute import tiled as compute_tiled
from glgpgpu.figures.points import pair_count
from glgpgpu.methods.points import points_pay
from glgpgpu.paper import normal as paper_normal

SYSTEMS = [("paper", paper_normal, False), ("paper", paper_normal, True), ("blocked", blocked_normal, False)]


def _matrix(rng, m, n):
    """Sparse A with an empty column, a dense one, two columns of one pattern."""
    A = sp.random(m, n, density=min(1.0, 3.0 / max(m, 1)), random_state=rng, format="lil")
    A[:, 0] = 0
    if n > 1:
        A[:, 1] = rng.standard_normal((m, 1))
    if n > 3:
        A[:, 3] = A[:, 2] * -3.0
    return A.tocsc()


def _bound(A, d, s):
    """|C - S A D A^T S| <= gamma_{n+8} |S A| D |S A|^T: a_ij, a_kj and sqrt(d_j) rounded to
    float32, (a_ij r_j s_i)(a_kj r_j s_k) five products, and n terms summed."""
    As = np.abs(s.astype(np.float64)[:, None] * A.toarray())
    return np.tril(gamma(A.shape[1] + 8) * (As * d.astype(np.float64)) @ As.T)


@pytest.mark.parametrize("name,mod,packed", SYSTEMS, ids=["paper-full", "paper-packed", "blocked"])
@pytest.mark.parametrize("m,n", [(1, 1), (1, 3), (2, 2), (3, 7), (8, 5), (17, 40), (64, 150), (131, 300), (200, 411)])
def test_points_form_the_normal_matrix(ctx, name, mod, packed, m, n):
    rng = np.random.default_rng(m * 1000 + n)
    A = _matrix(rng, m, n)
    d = rng.random(n).astype(np.float32)
    s = (0.5 + rng.random(m)).astype(np.float32)
    system = mod.SparseNormal(A, packed=packed, ctx=ctx)
    try:
        C = system.form(d, row_scale=s).astype(np.float64)
    finally:
        system.release()
    A64 = A.toarray() * s.astype(np.float64)[:, None]
    ref = np.tril((A64 * d.astype(np.float64)) @ A64.T)
    err = np.abs(C - ref)
    assert (err <= _bound(A, d, s)).all(), f"worst {err.max():.3g}"
    # the dense assembly of the scaled A, the same bound from the other side
    dense = mod.normal_system(A64.astype(np.float32), packed=packed, ctx=ctx)
    try:
        dense.factor(d)
    finally:
        dense.release()


@pytest.mark.parametrize("name,mod,packed", SYSTEMS, ids=["paper-full", "paper-packed", "blocked"])
def test_sparse_system_solves_like_the_dense_one(ctx, name, mod, packed):
    rng = np.random.default_rng(11)
    m, n = 150, 600
    A = sp.random(m, n, density=1.5 / m, random_state=rng, format="csc") + sp.eye(m, n)
    assert points_pay(m, n, pair_count(A))
    d = (0.1 + rng.random(n)).astype(np.float32)
    b = rng.standard_normal(m)
    sparse = mod.normal_system(sp.csr_matrix(A), packed=packed, ctx=ctx)
    dense = mod.normal_system(A.toarray().astype(np.float32), packed=packed, ctx=ctx)
    assert isinstance(sparse, mod.SparseNormal) and not isinstance(dense, mod.SparseNormal)
    _solve_alike(A, sparse, dense, d, b)


def _solve_alike(A, sparse, dense, d, b):
    """Both systems, factored for d, solve A D A^T x = b within 8 m u kappa (then released)."""
    try:
        sparse.factor(d)
        dense.factor(d)
        xs = sparse.solve(b), dense.solve(b)
    finally:
        sparse.release()
        dense.release()
    M = (A.toarray() * d) @ A.toarray().T
    ref = np.linalg.solve(M, b)
    for x in xs:
        assert np.linalg.norm(x - ref) <= 8 * A.shape[0] * 2.0 ** -24 * np.linalg.cond(M) * np.linalg.norm(ref)


def test_points_are_chosen_by_the_counted_work(ctx):
    assert points_pay(1000, 10000, 10 ** 6) and not points_pay(10, 4, 10 ** 6)
    dense_column = sp.csc_matrix(np.ones((30, 2)))            # 465 pairs each: as dense as it gets
    assert not isinstance(paper_normal.normal_system(dense_column, ctx=ctx), paper_normal.SparseNormal)
    system = compute_tiled.normal_system(sp.csr_matrix(np.eye(4)), ctx=ctx)   # compute: the dense product
    system.release()


def test_a_sparse_system_keeps_its_matrix(ctx):
    system = paper_normal.SparseNormal(sp.csc_matrix(np.eye(3)), ctx=ctx)
    try:
        with pytest.raises(TypeError, match="row_scale"):
            system.update_matrix(np.eye(3, dtype=np.float32))
    finally:
        system.release()


def test_dense_columns_go_to_the_dense_kernel_and_the_rest_stay_points(ctx):
    """fit2p's shape: a few columns as long as A is tall and thousands of short ones.
    Counted as points, the long columns made the whole of A go to the dense assembly;
    now only they do (blocked_adat, the 2008 kernel), the rest are points, and the
    system solves as the dense one does."""
    rng = np.random.default_rng(5)
    m, n = 300, 2000
    A = (sp.random(m, n, density=1.5 / m, random_state=rng, format="csc") + sp.eye(m, n)).toarray()
    A[:, [7, 500, 1999]] = rng.standard_normal((m, 3))
    A = sp.csc_matrix(A)
    assert not points_pay(m, n, pair_count(A))                 # as before: all dense
    system = blocked_normal.normal_system(A, ctx=ctx)
    dense = blocked_normal.normal_system(A.toarray().astype(np.float32), ctx=ctx)
    d = (0.1 + rng.random(n)).astype(np.float32)
    s = (0.5 + rng.random(m)).astype(np.float32)
    try:
        assert isinstance(system, blocked_normal.SparseNormal) and system.assembly_name == "points+dense"
        assert {7, 500, 1999} <= set(system.dense.tolist()) and system.dense.size < 10
        C = system.form(d, row_scale=s).astype(np.float64)
    except BaseException:
        system.release()
        dense.release()
        raise
    A64 = A.toarray() * s.astype(np.float64)[:, None]
    err = np.abs(C - np.tril((A64 * d.astype(np.float64)) @ A64.T))
    assert (err <= _bound(A, d, s)).all(), f"worst {err.max():.3g}"
    _solve_alike(A, system, dense, d, rng.standard_normal(m))
