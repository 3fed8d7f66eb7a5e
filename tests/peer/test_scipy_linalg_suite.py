"""scipy's own test classes for the functions glgpgpu.linalg provides -- TestCholesky,
TestChoFactor, TestSolveTriangular, TestQR, TestSolve, TestLstsq from the installed scipy -- run with
scipy.linalg's functions swapped for glgpgpu.linalg's.

Tolerances: scipy's assertions are kept and widened only to float32's bound, derived
as in bounds.py: a factorization of order n returned in float64 carries the float32
backward error gamma_{n+1} |L| |L^T| <= gamma_{n+1} max|A| elementwise for an SPD A
(Higham, Thm 10.3), the check's own product another gamma_n: 4 gamma_{n+1} max|desired|
covers both; a factor compared with a factor is a forward error, 4 n u kappa_2(A)
relative (Sun 1991).  Solves given float64 are refined to float64 and meet scipy's own
tolerances within that bound.

Expected to fail, each in a stated way (REFUSED, strict): complex input (the kernels are real;
glgpgpu raises ValueError naming it) and column pivoting (not done on the GPU;
NotImplementedError names scipy's function), LAPACK's own wording and workspace.  scipy's one
xslow test (a 2^31-element matrix, run only on request) runs in its tiled form unless
SCIPY_XSLOW=1 asks for the original."""
import os

import numpy as np
import numpy.testing as npt
import pytest

from bounds import U32, gamma
from glgpgpu import linalg

tdc = pytest.importorskip("scipy.linalg.tests.test_decomp_cholesky")
tb = pytest.importorskip("scipy.linalg.tests.test_basic")
td = pytest.importorskip("scipy.linalg.tests.test_decomp")
try:                                    # scipy >= 1.15: batched calls; the floors' scipy has none
    import scipy.linalg.tests.test_batch as bt
except ImportError:
    bt = None

SWAPPED = ("cholesky", "cho_factor", "cho_solve", "solve_triangular", "qr", "qr_multiply", "solve", "lstsq")
Failed = pytest.fail.Exception           # what pytest.raises raises when nothing is raised
# Features glgpgpu refuses or does not mimic: each such scipy test must fail, and in the
# documented way (a strict xfail with the exception it must end in), never pass in silence;
# the first rule that matches applies (qr refuses pivoting before it looks at the input).
REFUSED = (
    ("pivoting", NotImplementedError, "column pivoting is not done on the GPU: pivoting=True raises "
                                      "NotImplementedError"),
    ("complex", ValueError, "complex input: the kernels are real, and complex input raises ValueError saying so"),
    ("TestQR::test_empty", NotImplementedError, "its empty cases include qr(a, pivoting=True); the others are "
                                                "tested in test_linalg.py"),
    ("TestQR::test_lwork", Failed, "LAPACK's workspace size: lwork is accepted and ignored, so nothing raises"),
    ("test_overwrite_args", AssertionError, "overwrite_*=True lets scipy write into the input; glgpgpu never does"),
    ("test_overwrite_cleaning", AssertionError, "overwrite_*=True lets scipy write into the input; glgpgpu never "
                                                "does"),
    ("test_non_posdef", AssertionError, "expects LAPACK's wording ('Internal potrf return info'); glgpgpu's "
                                        "LinAlgError names the failed pivot (test_linalg.py)"),
    ("TestQR::test_raw_flags", AssertionError, "the memory layout flags of LAPACK's raw output"),
    ("TestSolve::test_20Feb04_bug", ValueError, "complex b: the kernels are real, and complex input raises ValueError"),
    ("TestSolve::test_nils_20Feb04", ValueError, "complex a: the kernels are real, and complex input raises "
                                                 "ValueError"),
    ("TestSolve::test_simple_her", ValueError, "complex (Hermitian) input: the kernels are real, and complex "
                                               "input raises ValueError"),
    ("TestSolve::test_symmetric_hermitian", ValueError, "its matrices are complex: the kernels are real, and complex "
                                                        "input raises ValueError"),
)


def _overwrite_expected(params) -> bool:
    """scipy's TestSolve.test_overwrite_args asserts that overwrite_a / overwrite_b=True
    wrote into the input (float, Fortran-ordered: LAPACK's in-place case); glgpgpu never
    writes into its input, so exactly those cases must fail."""
    a_in = params["overwrite_kw"].get("overwrite_a", False) and params["a_dtype"] is not int and \
        params["a_order"] == "F"
    b_in = params["overwrite_b_kw"].get("overwrite_b", False) and params["b_dtype"] is not int and \
        (params["b_ndim"] == 1 or params["b_order"] == "F")
    return bool(a_in or b_in)


def _float32_atol(actual, desired) -> float:
    d = np.abs(np.asarray(desired)).astype(float)
    n = max(max(np.shape(actual) or (1,)), max(np.shape(desired) or (1,)))
    size = max(1.0, float(d.max(initial=0.0)))
    atol = 4 * gamma(n + 1) * size                      # backward error: products of the factors
    D = np.asarray(desired)
    if D.ndim == 2 and D.shape[0] == D.shape[1] > 0 and np.isrealobj(D) and (
            np.array_equal(D, np.tril(D)) or np.array_equal(D, np.triu(D))) and np.all(np.diagonal(D) != 0):
        # a factor compared with a factor: forward error, 4 n u kappa_2(A) relative with
        # kappa_2(A) = kappa_2(L)^2 (Sun 1991; bounds.check_factor)
        atol = max(atol, (4 * n * U32 * np.linalg.cond(D.astype(float)) ** 2 + 4 * U32) * size)
    return atol


def _almost_equal(actual, desired, decimal=6, err_msg="", verbose=True):
    npt.assert_allclose(actual, desired, rtol=0, err_msg=err_msg,
                        atol=max(1.5 * 10.0 ** -decimal, _float32_atol(actual, desired)))


def _allclose(actual, desired, rtol=1e-7, atol=0, equal_nan=True, err_msg="", verbose=True, **kw):
    npt.assert_allclose(actual, desired, rtol=rtol, equal_nan=equal_nan, err_msg=err_msg,
                        atol=max(atol, _float32_atol(actual, desired)))


class _InScipysPlace:
    """scipy.linalg with glgpgpu.linalg's functions in place of those it provides."""

    def __getattr__(self, name):
        import scipy.linalg
        return getattr(linalg, name) if name in SWAPPED else getattr(scipy.linalg, name)


@pytest.fixture(autouse=True)
def _glgpgpu_in_scipys_place(request, monkeypatch, ctx):
    node = request.node.nodeid
    params = getattr(request.node, "callspec", None)
    if params is not None and params.params.get("pivoting") is True:
        node += "[pivoting]"
    if "TestSolve::test_overwrite_args" in node:
        if _overwrite_expected(params.params):
            request.applymarker(pytest.mark.xfail(raises=AssertionError, strict=True,
                                                  reason="overwrite_*=True lets scipy write into the input; "
                                                         "glgpgpu never does"))
    else:
        for key, error, reason in REFUSED:
            if key in node:
                request.applymarker(pytest.mark.xfail(raises=error, strict=True, reason=reason))
                break
    if bt is not None:              # test_batch calls linalg.<name>: glgpgpu's where it has one
        monkeypatch.setattr(bt, "linalg", _InScipysPlace())
    for mod in (tdc, tb, td) + ((bt,) if bt is not None else ()):
        for name in SWAPPED:
            if hasattr(mod, name):
                monkeypatch.setattr(mod, name, getattr(linalg, name))
        for name, fn in (("assert_array_almost_equal", _almost_equal), ("assert_almost_equal", _almost_equal),
                         ("assert_allclose", _allclose)):
            if hasattr(mod, name):
                monkeypatch.setattr(mod, name, fn)


class TestCholesky(tdc.TestCholesky):
    if not os.environ.get("SCIPY_XSLOW"):
        def test_int_overflow(self):
            """scipy's xslow test_int_overflow (identity of order 47,000 with a 4 x 4 SPD block,
            overwrite_a: a 2^31-element matrix, which scipy runs only on request) at order 70 on
            16-texel textures: the factor crosses many tiles, and the unused triangle is zeroed
            tile by tile.  SCIPY_XSLOW=1 runs scipy's own."""
            import glgpgpu
            n = 70
            x = np.eye(n, dtype=np.float64, order="F")
            x[:4, :4] = np.array([[4, -2, 3, -1], [-2, 4, -3, 1], [3, -3, 5, 0], [-1, 1, 0, 5]])
            L = linalg.cholesky(x.copy(order="F"), lower=True, check_finite=False, overwrite_a=True,
                                ctx=glgpgpu.Context(max_texture_size=16))
            assert np.all(np.triu(L, 1) == 0)
            npt.assert_allclose(L @ L.T, x, atol=8 * U32 * 5)


def _scipys(module, name):
    """scipy's test class `name`, or an empty stand-in where the installed scipy has none
    (older releases: the minimum versions' environment runs these files too)."""
    return getattr(module, name, object)


class TestChoFactor(_scipys(tdc, "TestChoFactor")):
    pass


class TestSolveTriangular(_scipys(tb, "TestSolveTriangular")):
    pass


class TestQR(_scipys(td, "TestQR")):
    pass


class TestSolve(_scipys(tb, "TestSolve")):
    pass


class TestLstsq(_scipys(tb, "TestLstsq")):
    pass


#: scipy's batched tests of the functions glgpgpu.linalg provides (the others test scipy's own)
BATCHED = ("batch_test", "test_solve", "test_cho_solve", "test_solve_triangular", "test_lstsq", "test_qr_multiply")
TestBatch = type("TestBatch", (), {name: getattr(bt.TestBatch, name) for name in BATCHED
                                   if bt is not None and hasattr(bt.TestBatch, name)})


class TestOverwrite:
    """scipy's TestOverwrite cases of the functions glgpgpu.linalg provides, on its real
    dtypes (scipy's assert_no_overwrite over C and F order and its array-like fakes): the
    input is never written into.  Its complex dtypes are refused by name (TestSolve's)."""

    @pytest.mark.parametrize("name, shapes", [("solve", [(3, 3), (3,)]), ("solve_triangular", [(3, 3), (3,)]),
                                              ("lstsq", [(3, 2), (3,)])])
    def test_no_overwrite(self, name, shapes):
        tb.assert_no_overwrite(getattr(linalg, name), shapes, dtypes=[np.float32, np.float64])
