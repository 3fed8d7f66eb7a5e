"""Level-1 and level-2 kernels against numpy, at lengths that are not powers of two.

Bounds: element-wise ops are correctly rounded float32 (<= u relative, u = 2^-24);
a sum of n terms by the 4-way tree has error <= gamma_{ceil(log4 n)+1} sum |terms|;
a dot / matrix-vector product of n terms in a sequential loop <= gamma_n sum |terms|.
"""
import numpy as np
import pytest

from glgpgpu.vectors import Vectors
from bounds import gamma, U32

LENGTHS = [1, 2, 3, 5, 7, 17, 100, 257, 1000]


@pytest.fixture
def V(ctx):
    return Vectors(ctx)


def f32(a):
    return np.asarray(a, np.float32).astype(np.float64)


@pytest.mark.parametrize("n", LENGTHS)
def test_elementwise(V, rng, n):
    x, y = rng.standard_normal(n), rng.random(n) + .5
    tx, ty, out = V.upload(x), V.upload(y), V.new(n)
    xs, ys = f32(x), f32(y)
    for got, want in ((V.read(V.saxpy(out, -1.5, tx, ty)), -1.5 * xs + ys),
                      (V.read(V.saxpy(out, 2.0, tx)), 2.0 * xs),
                      (V.read(V.mul(out, tx, ty)), xs * ys),
                      (V.read(V.div(out, tx, ty)), xs / ys)):
        assert np.all(np.abs(got - want) <= 2 * U32 * (np.abs(want) + 1.5 * np.abs(xs) + np.abs(ys)))
    V.free(tx, ty, out)


@pytest.mark.parametrize("n", LENGTHS)
def test_reductions(V, rng, n):
    x = rng.standard_normal(n)
    y = rng.standard_normal(n)
    tx, ty = V.upload(x), V.upload(y)
    xs, ys = f32(x), f32(y)
    passes = int(np.ceil(np.log(max(n, 2)) / np.log(4))) + 1
    assert abs(V.reduce("sum", tx) - xs.sum()) <= gamma(passes) * np.abs(xs).sum()
    assert V.reduce("max", tx) == xs.max()
    assert V.reduce("min", tx) == xs.min()
    assert V.norm_inf(tx) == np.abs(xs).max()
    assert abs(V.dot(tx, ty) - xs @ ys) <= gamma(passes + 1) * np.abs(xs * ys).sum()
    V.free(tx, ty)


@pytest.mark.parametrize("n", [1, 3, 17, 100])
def test_max_step_and_blocking_index(V, rng, n):
    x = rng.random(n) + .1
    dx = rng.standard_normal(n)
    tx, tdx = V.upload(x), V.upload(dx)
    xs, dxs = f32(x), f32(dx)
    neg = dxs < 0
    want = min(1.0, (-xs[neg] / dxs[neg]).min()) if neg.any() else 1.0
    alpha, idx = V.max_step(tx, tdx, with_index=True)
    assert abs(alpha - want) <= 2 * U32 * want
    if want < 1.0:
        assert idx == int(np.argmin(np.where(neg, -xs / np.where(neg, dxs, 1), np.inf)))
    else:
        assert idx is None
    V.free(tx, tdx)


@pytest.mark.parametrize("m, n", [(1, 1), (3, 5), (7, 2), (33, 100), (100, 257)])
def test_matvec(V, ctx, rng, m, n):
    import glgpgpu

    A = rng.standard_normal((m, n))
    x, y = rng.standard_normal(n), rng.standard_normal(m)
    ta = glgpgpu.MatrixTexture(ctx, m, n, A)
    tx, ty, o1, o2 = V.upload(x), V.upload(y), V.new(m), V.new(n)
    As, xs, ys = f32(A), f32(x), f32(y)
    got = V.read(V.matvec(o1, ta, tx))
    assert np.all(np.abs(got - As @ xs) <= gamma(n) * (np.abs(As) @ np.abs(xs)))
    got = V.read(V.matvec_t(o2, ta, ty))
    assert np.all(np.abs(got - As.T @ ys) <= gamma(m) * (np.abs(As).T @ np.abs(ys)))
    ta.release()
    V.free(tx, ty, o1, o2)


def test_transpose(V, rng):
    x = rng.standard_normal(11)
    tx = V.upload(x)
    row = V.pool.take(1, 11)
    V.transpose(row, tx)
    assert np.array_equal(row.read()[0], x.astype(np.float32))
    V.free(tx, row)


@pytest.mark.parametrize("m", [1, 2, 5, 8])
@pytest.mark.parametrize("packed", [False, True], ids=["full", "packed"])
def test_symv_reads_only_the_lower_triangle(ctx, rng, m, packed):
    """y = S x from S's lower triangle (full or packed): |y - S x| <= gamma_m |S||x|."""
    from glgpgpu.layouts import pack
    from glgpgpu.vectors import Vectors
    from bounds import gamma

    S = rng.standard_normal((m, m)).astype(np.float32)
    S = (S + S.T) / 2
    x = rng.standard_normal(m).astype(np.float32)
    L = np.tril(S)
    V = Vectors(ctx)
    lt = ctx.pool.take(*(pack(L).shape if packed else L.shape))
    lt.write(pack(L) if packed else L + np.triu(np.full((m, m), 99.0, np.float32), 1))   # garbage above
    xt, yt = V.upload(x), V.new(m)
    y = V.read(V.symv_lower(yt, lt, xt, packed=packed))
    S64 = S.astype(np.float64)
    assert (np.abs(y - S64 @ x) <= gamma(m) * (np.abs(S64) @ np.abs(x)) + 1e-30).all()
    V.free(xt, yt, lt)
