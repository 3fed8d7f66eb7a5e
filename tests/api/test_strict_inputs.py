"""Hostile input: every public function refuses what it cannot compute faithfully,
with an error that names the argument -- never a silent cast, ravel or NaN."""
import numpy as np
import pytest

import glgpgpu
from glgpgpu.errors import NonFiniteResultError, SingularMatrixError

A2 = np.array([[1.0, 2.0], [3.0, 4.0]])
SPD = np.array([[4.0, 1.0], [1.0, 3.0]])
L2 = np.array([[2.0, 0.0], [1.0, 1.5]])

# (call, expected exception, text the message must contain)
CASES = {
    "complex A": (lambda: glgpgpu.adat(A2 * (1 + 1j), np.ones(2)), TypeError, "A is complex"),
    "complex C": (lambda: glgpgpu.cholesky(SPD + 0j), TypeError, "C is complex"),
    "complex B": (lambda: glgpgpu.cho_solve(L2, np.ones(2) * 1j), TypeError, "B is complex"),
    "strings": (lambda: glgpgpu.adat([["a", "b"]], np.ones(2)), TypeError, "A must be a real numeric"),
    "objects": (lambda: glgpgpu.cholesky(np.array([[object()]])), TypeError, "C must be a real numeric"),
    "bool data": (lambda: glgpgpu.adat(np.ones((2, 2), bool), np.ones(2)), TypeError, "A is boolean"),
    "None": (lambda: glgpgpu.cholesky(None), TypeError, "C is None"),
    "packed='yes'": (lambda: glgpgpu.adat(A2, np.ones(2), packed="yes"), TypeError, "packed must be True or False"),
    "packed=1": (lambda: glgpgpu.cholesky(SPD, packed=1), TypeError, "packed must be True or False"),
    "lower='no'": (lambda: glgpgpu.solve_triangular(L2, np.ones(2), lower="no"), TypeError, "lower must be"),
    "trans=0": (lambda: glgpgpu.solve_triangular(L2, np.ones(2), trans=0), TypeError, "trans must be"),
    "d2 (1, n)": (lambda: glgpgpu.adat(A2, np.ones((1, 2))), ValueError, "d2 must be a vector"),
    "d2 (n, 1)": (lambda: glgpgpu.adat(A2, np.ones((2, 1))), ValueError, "d2 must be a vector"),
    "B 3-D": (lambda: glgpgpu.cho_solve(L2, np.ones((2, 1, 1))), ValueError, "B must be 1-D or 2-D"),
    "beyond float32": (lambda: glgpgpu.adat(np.full((2, 2), 1e39), np.ones(2)), ValueError, "beyond float32"),
    "method": (lambda: glgpgpu.cholesky(SPD, method="fast"), ValueError, "method must be one of"),
    "variant": (lambda: glgpgpu.cholesky(SPD, variant=3), ValueError, "variant must be one of"),
    "ctx": (lambda: glgpgpu.adat(A2, np.ones(2), ctx="gpu"), TypeError, "ctx must be a glgpgpu Context"),
    "wls tol=-1": (lambda: glgpgpu.wls(np.ones((1, 3)), np.ones(3), np.ones(3), tol=-1), ValueError, "tol must be in"),
    "wls tol=nan": (lambda: glgpgpu.wls(np.ones((1, 3)), np.ones(3), np.ones(3), tol=np.nan), ValueError, "tol"),
    "wls tol=True": (lambda: glgpgpu.wls(np.ones((1, 3)), np.ones(3), np.ones(3), tol=True), TypeError, "tol"),
    "wls max_iter=0": (lambda: glgpgpu.wls(np.ones((1, 3)), np.ones(3), np.ones(3), max_iter=0), ValueError,
                       "max_iter must be >= 1"),
    "wls max_iter=2.5": (lambda: glgpgpu.wls(np.ones((1, 3)), np.ones(3), np.ones(3), max_iter=2.5), TypeError,
                         "max_iter must be an integer"),
    "wls b (n, 1)": (lambda: glgpgpu.wls(np.ones((1, 3)), np.ones(3), np.ones((3, 1))), ValueError, "b must be 1-D"),
    "linprog([])": (lambda: glgpgpu.linprog([]), ValueError, "c is empty"),
    "linprog A 1-D": (lambda: glgpgpu.linprog([1, 1], A_ub=[1, 1], b_ub=[1]), ValueError, "A_ub must be 2-D"),
    "linprog b 2-D": (lambda: glgpgpu.linprog([1, 1], A_ub=[[1, 1]], b_ub=[[1]]), ValueError, "b_ub must be 1-D"),
    "linprog b alone": (lambda: glgpgpu.linprog([1, 1], b_ub=[1]), ValueError, "A_ub and b_ub go together"),
    "linprog complex c": (lambda: glgpgpu.linprog([1j, 1]), TypeError, "c is complex"),
    "linprog tol": (lambda: glgpgpu.linprog([1, 1], tol=2), ValueError, "tol must be in"),
    "linprog max_iter": (lambda: glgpgpu.linprog([1, 1], max_iter=-5), ValueError, "max_iter"),
    "linprog bounds": (lambda: glgpgpu.linprog([1, 1], bounds=[(0, 1), (0, "x")]), ValueError, "bounds[1][1]"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_with_a_message_naming_the_argument(ctx, name):
    call, exc, text = CASES[name]
    with pytest.raises(exc) as info:
        call()
    assert text in str(info.value)


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
@pytest.mark.parametrize("lower, trans", [(True, False), (True, True), (False, False), (False, True)])
def test_singular_triangle_names_the_zero_diagonal(ctx, method, lower, trans):
    """scipy raises LinAlgError for a zero on the diagonal; so do we, naming it
    (once this returned [inf, -inf, nan])."""
    T = np.array([[1.0, 0, 0], [1, 0, 0], [1, 1, 1]])
    T = T if lower else T.T
    with pytest.raises(np.linalg.LinAlgError, match="diagonal entry 1") as info:
        glgpgpu.solve_triangular(T, np.ones(3), lower=lower, trans=trans, method=method)
    assert isinstance(info.value, SingularMatrixError) and info.value.index == 1
    with pytest.raises(SingularMatrixError, match="diagonal entry 0"):
        glgpgpu.cho_solve(np.zeros((2, 2)), np.ones(2), method=method)


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_float32_overflow_raises_instead_of_returning_inf(ctx, method):
    with pytest.raises(NonFiniteResultError, match="overflows float32"):
        glgpgpu.adat(np.full((2, 3), 1e30), np.ones(3), method=method)
    # a solution too large for float32: 1e-30 on the diagonal, finite input
    T = np.diag([1e-30, 1.0])
    with pytest.raises(NonFiniteResultError, match="the solution overflows"):
        glgpgpu.solve_triangular(T, np.array([1e20, 1.0]), method=method)


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_adat_skips_the_result_pass_only_where_the_bound_proves_it_finite(ctx, monkeypatch, method):
    """adat checks its m x m result for overflow only when n max|A|^2 max|d2| (twice,
    for rounding) could reach float32's range; below it the pass is skipped, near it
    the pass runs and lets a large but finite result through."""
    from glgpgpu import api, validate

    calls = []
    real = validate.finite_result
    monkeypatch.setattr(api.check, "finite_result", lambda X, what: (calls.append(what), real(X, what))[1])
    A = np.random.default_rng(2).standard_normal((5, 7)).astype(np.float32)
    glgpgpu.adat(A, np.full(7, -2.0), method=method)
    assert calls == []
    big = np.zeros((2, 3), np.float32)
    big[0, 0] = 1e19                                   # C[0, 0] = 1e38: finite, but the bound is 6e38
    C = glgpgpu.adat(big, np.ones(3), method=method)
    assert len(calls) == 1 and C[0, 0] == pytest.approx(1e38, rel=1e-6)


def test_the_product_bound_and_magnitude(monkeypatch):
    from glgpgpu import validate

    f32max = float(np.finfo(np.float32).max)
    assert validate.sums_of_products_bounded(1.0, 1.0, 1000)
    assert validate.sums_of_products_bounded(np.sqrt(f32max / 2.01), 1.0, 1)
    assert not validate.sums_of_products_bounded(np.sqrt(f32max / 1.99), 1.0, 1)
    assert not validate.sums_of_products_bounded(1e-3, 1.0, 1 << 24)      # n u > 1/2: rounding unbounded
    monkeypatch.setattr(validate, "PARALLEL_FROM", 16)
    x = -np.arange(100, dtype=np.float32).reshape(10, 10)
    assert validate.finite_magnitude(x) == 99.0 and validate.finite_magnitude(x[:, ::3]) == 99.0
    assert validate.finite_magnitude(-x) == 99.0
    x[9, 9] = np.nan
    assert validate.finite_magnitude(x) is None


def test_float32_input_is_passed_through_uncopied(ctx, monkeypatch):
    """Validation converts once and never copies float32 data (issue 14 builds on this)."""
    from glgpgpu import validate

    x = np.ones((3, 4), np.float32)
    assert validate.array(x, "A", 2) is x
    y = np.ones((3, 4))
    assert validate.array(y, "A", 2).dtype == np.float32


def test_empty_and_constraint_free_lps(ctx):
    res = glgpgpu.linprog([1.0, 2.0])                                  # min over x >= 0: x = 0
    assert res.status == "optimal" and res.objective == 0 and np.array_equal(res.x, [0, 0])
    res = glgpgpu.linprog([1.0, -1.0], bounds=[(1, 2), (0, 3)])        # only bounds
    assert res.status == "optimal" and abs(res.objective - (1 - 3)) < 1e-4
    assert glgpgpu.linprog([-1.0, 1.0]).status == "unbounded"          # nothing stops x0
    res = glgpgpu.linprog([1.0, 1.0], A_ub=[[0, 0], [1, 1]], b_ub=[1, 2])   # an all-zero row
    assert res.status == "optimal" and abs(res.objective) < 1e-4
    assert glgpgpu.linprog([1.0, 1.0], A_eq=[[0, 0]], b_eq=[1]).status == "infeasible"   # 0 = 1
    res = glgpgpu.linprog([1.0, 0.0], A_ub=[[1, 0]], b_ub=[2])          # an all-zero column
    assert res.status == "optimal" and abs(res.objective) < 1e-4


@pytest.mark.parametrize("method", ["paper", "blocked"])       # textures (compute: storage buffers)
def test_float32_input_reaches_the_driver_uncopied(ctx, monkeypatch, method):
    """A float32 C-contiguous A goes to the GPU with no host copy (the array handed to
    the driver shares memory with the caller's)."""
    from glgpgpu.gl.textures import MatrixTexture

    A = np.random.default_rng(1).random((16, 32), dtype=np.float32)     # no padding needed either way
    d2 = np.ones(32, np.float32)
    seen = []
    original = MatrixTexture.upload

    def watch(self, arr, *rows):
        seen.append(arr)
        return original(self, arr, *rows)

    monkeypatch.setattr(MatrixTexture, "upload", watch)
    C = glgpgpu.adat(A, d2, method=method)
    assert any(np.shares_memory(a, A) for a in seen), "A was copied on the host before the upload"
    assert np.allclose(C, np.tril(A.astype(np.float64) @ A.T), rtol=1e-5)


@pytest.mark.parametrize("parallel_from", [1 << 22, 64])
def test_finiteness_check_finds_every_nan_and_inf(monkeypatch, parallel_from):
    """validate.all_finite (on every call's path, summed in threads from
    PARALLEL_FROM elements): a NaN or inf anywhere -- first, last, at the seams of
    the pieces -- is found; huge finite values whose sum overflows are not refused;
    non-contiguous views are checked too."""
    import warnings

    from glgpgpu import validate

    monkeypatch.setattr(validate, "PARALLEL_FROM", parallel_from)
    x = np.random.default_rng(3).random((97, 103), dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # no overflow warnings either
        assert validate.all_finite(x) and validate.all_finite(x[:, ::2])
        for idx in (0, 1, x.size // 8, x.size // 2, x.size - 1) + tuple(range(1240, 1260)):
            for bad in (np.nan, np.inf, -np.inf):
                y = x.copy()
                y.flat[idx] = bad
                assert not validate.all_finite(y), (idx, bad)
        big = np.full((64, 64), 3e38, np.float32)
        assert validate.all_finite(big)
        big[-1, -1] = np.nan
        assert not validate.all_finite(big)


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_the_finiteness_check_comes_first(ctx, method):
    """The caller gets the input's ValueError -- not the failed pivot, singular
    diagonal or overflow a NaN would cause on the GPU -- and nothing is left behind.
    (Running the check beside the GPU work in a thread was measured on the H100 and
    gained nothing: the draw loop holds the GIL, so the checker ran after it.)"""
    before = ctx.pool.outstanding               # what earlier tests' objects still hold
    C = np.eye(5, dtype=np.float32)
    C[3, 1] = np.nan                                  # read by the factorization: NaN pivots
    with pytest.raises(ValueError, match=r"C holds a non-finite value \(first at index \(3, 1\)\)"):
        glgpgpu.cholesky(C, method=method)
    L = np.eye(4, dtype=np.float32)
    L[2, 2] = 0.0                                     # singular too: the NaN is named first
    L[3, 0] = np.inf
    with pytest.raises(ValueError, match=r"L holds a non-finite value \(first at index \(3, 0\)\)"):
        glgpgpu.solve_triangular(L, np.ones(4, np.float32), method=method)
    with pytest.raises(ValueError, match="B holds a non-finite value"):
        glgpgpu.cho_solve(np.eye(4, dtype=np.float32), np.array([1, np.nan, 0, 0], np.float32), method=method)
    A = np.ones((3, 8), np.float32)
    A[2, 7] = -np.inf
    with pytest.raises(ValueError, match=r"A holds a non-finite value \(first at index \(2, 7\)\)"):
        glgpgpu.adat(A, np.ones(8, np.float32), method=method)
    assert ctx.pool.outstanding == before
    # and a finite input's own GPU-side error still comes through
    with pytest.raises(np.linalg.LinAlgError, match="pivot 0 "):
        glgpgpu.cholesky(-np.eye(3, dtype=np.float32), method=method)
