"""Property-based tests (hypothesis) of every public operation: random shapes
(1, odd, even, not powers of two), dtypes, memory orders and strides, layouts
and methods, each against numpy/scipy within the float32 bounds of bounds.py.
CI runs a fixed, small number of examples; GLGPGPU_HYPOTHESIS_EXAMPLES=N runs more."""
import numpy as np
import scipy.linalg as sla
from hypothesis import given, strategies as st

import glgpgpu
from bounds import check_adat, check_factor, residual_ok

METHODS = st.sampled_from([("paper", False), ("paper", True), ("blocked", False), ("compute", False)])
DTYPES = st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.float16])


@st.composite
def matrices(draw, rows, cols, lo=-4, hi=4):
    """An array of the given shape in any dtype, C or Fortran order, possibly a strided view."""
    dtype = draw(DTYPES)
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    base = rng.uniform(lo, hi, (2 * rows, 2 * cols))
    base = np.round(base) if np.dtype(dtype).kind in "iu" else base
    layout = draw(st.sampled_from(["C", "F", "strided"]))
    if layout == "strided":
        arr = base.astype(dtype)[::2, ::2]               # a non-contiguous view
    else:
        arr = np.array(base[:rows, :cols], dtype=dtype, order=layout)
    return arr[:rows, :cols]


@st.composite
def adat_inputs(draw):
    m = draw(st.integers(1, 13))
    n = draw(st.integers(1, 17))
    A = draw(matrices(m, n))
    d2 = draw(matrices(1, n, 0, 3))[0]
    return A, d2


@given(adat_inputs(), METHODS)
def test_adat_property(ctx, inputs, config):
    A, d2 = inputs
    method, packed = config
    C = glgpgpu.adat(A, d2, method=method, packed=packed)
    assert C.dtype == np.float32 and C.shape == (A.shape[0],) * 2
    check_adat(C, np.asarray(A, np.float64), np.asarray(d2, np.float64))
    assert (np.triu(C, 1) == 0).all()


@st.composite
def spd_inputs(draw):
    m = draw(st.integers(1, 13))
    X = draw(matrices(m, m, -1, 1)).astype(np.float64)
    C = X @ X.T + m * np.eye(m)                 # condition <= ~ 2: a sharp bound
    order = draw(st.sampled_from(["C", "F"]))
    return np.array(C, order=order, dtype=draw(st.sampled_from([np.float32, np.float64])))


@given(spd_inputs(), METHODS, st.sampled_from(["outer", "triad", "inner"]))
def test_cholesky_property(ctx, C, config, variant):
    method, packed = config
    if method != "paper":
        variant = "outer"
    L = glgpgpu.cholesky(C, method=method, packed=packed, variant=variant)
    check_factor(L, np.asarray(C, np.float64))


@st.composite
def triangular_inputs(draw):
    m = draw(st.integers(1, 13))
    k = draw(st.sampled_from([None, 1, 3]))
    T = np.tril(draw(matrices(m, m, -1, 1)).astype(np.float64)) / (2 * np.sqrt(m))   # diagonal stays >= 1/2
    T += np.diag(draw(st.lists(st.floats(1, 2), min_size=m, max_size=m)))
    B = draw(matrices(m, 1 if k is None else k))
    return T, (B[:, 0] if k is None else B)


@given(triangular_inputs(), METHODS, st.booleans(), st.booleans())
def test_solve_triangular_property(ctx, inputs, config, lower, trans):
    T, B = inputs
    method, packed = config
    T = T if lower else T.T.copy()
    X = glgpgpu.solve_triangular(T, B, lower=lower, trans=trans, method=method, packed=packed)
    assert X.shape == B.shape
    op = T.T if trans else T
    ok, ratio = residual_ok(op, X.reshape(len(X), -1), np.asarray(B, np.float64).reshape(len(X), -1))
    assert ok, ratio
    want = sla.solve_triangular(T, np.asarray(B, np.float64), lower=lower, trans=int(trans))
    assert np.allclose(X, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


@given(triangular_inputs(), METHODS)
def test_cho_solve_property(ctx, inputs, config):
    L, B = inputs
    method, packed = config
    X = glgpgpu.cho_solve(L, B, method=method, packed=packed)
    L32 = L.astype(np.float32).astype(np.float64)
    want = sla.cho_solve((L32, True), np.asarray(B, np.float32).astype(np.float64))
    # two substitutions with kappa(L) <= ~ 4: relative error within a few m u kappa^2
    m = L.shape[0]
    scale = np.abs(want).max() + 1e-30
    assert np.abs(X - want).max() <= 64 * (m + 1) * 2.0 ** -24 * scale


@given(st.integers(1, 40), st.integers(0, 2 ** 32 - 1))
def test_pack_unpack_property(m, seed):
    L = np.tril(np.random.default_rng(seed).standard_normal((m, m))).astype(np.float32)
    P = glgpgpu.pack(L)
    assert P.shape == glgpgpu.packed_shape(m)
    assert np.array_equal(glgpgpu.unpack(P, m), L)
    assert np.count_nonzero(P) == np.count_nonzero(L)       # every stored value once


@st.composite
def wls_inputs(draw):
    m = draw(st.integers(1, 8))
    n = draw(st.integers(m, 3 * m + 4))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n)) + 3 * np.eye(m, n)      # full row rank, modest condition
    return A, rng.uniform(0.5, 2, n), rng.standard_normal(n)


@given(wls_inputs(), st.sampled_from([("paper", False), ("paper", True), ("blocked", False), ("compute", False)]))
def test_wls_property(ctx, inputs, config):
    A, d2, b = inputs
    method, packed = config
    x, info = glgpgpu.wls(A, d2, b, method=method, packed=packed)
    assert info.converged, info.message
    D = np.sqrt(d2)
    want = np.linalg.lstsq((A * D).T, D * b, rcond=None)[0]
    assert np.linalg.norm(x - want) <= 1e-9 * max(1.0, np.linalg.norm(want))
