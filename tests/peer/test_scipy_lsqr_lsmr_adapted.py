"""scipy.sparse.linalg's lsqr and lsmr tests, adapted: their problems solved by
glgpgpu.sparse_lstsq (the sparse QR on the GPU, refined by LSMR in float64) in place of
scipy's lsqr / lsmr, with scipy's own assertions and tolerances.  `damp` is the
extended system [A; damp I] x = [b; 0] (what lsqr and lsmr minimise); x0 is a starting
point only (a direct factorization needs none); the returned tuples have scipy's length
and layout, their diagnostics from the float64 residual.  Tests of lsqr's or lsmr's own
iteration (iteration counts, show output, their estimates of norms and condition) are left
out: they describe scipy's iteration, not the answer."""
import numpy as np
import pytest
import scipy.sparse as sp

import glgpgpu

tlsqr = pytest.importorskip("scipy.sparse.linalg._isolve.tests.test_lsqr")
tlsmr = pytest.importorskip("scipy.sparse.linalg._isolve.tests.test_lsmr")


def _solve(A, b, damp=0.0, x0=None):
    if hasattr(A, "matvec") and not sp.issparse(A):        # a LinearOperator: its matrix
        A = A @ np.eye(A.shape[1])
    A = sp.csr_matrix(A)                    # complex A or b: sparse_lstsq refuses it by name
    b = np.asarray(b).reshape(-1)
    m, n = A.shape
    if damp:
        A = sp.vstack([A, damp * sp.identity(n)], format="csr")
        b = np.concatenate([b, np.zeros(n)])
    x, info = glgpgpu.sparse_lstsq(A, b, solution="minimum-norm" if m < n else "basic")
    r = b - A @ x
    anorm = sp.linalg.norm(A)
    return x, r, anorm, float(np.linalg.norm(A.T @ r)), info


def lsqr(A, b, damp=0.0, atol=1e-6, btol=1e-6, conlim=1e8, iter_lim=None, show=False, calc_var=False, x0=None):
    x, r, anorm, arnorm, info = _solve(A, b, damp, x0)
    n = x.shape[0]
    r1 = float(np.linalg.norm(r[:len(r) - (n if damp else 0)]))
    return (x, 1, info.iterations, r1, float(np.linalg.norm(r)), anorm, np.nan, arnorm, float(np.linalg.norm(x)),
            np.zeros(n))


def lsmr(A, b, damp=0.0, atol=1e-6, btol=1e-6, conlim=1e8, maxiter=None, show=False, x0=None):
    x, r, anorm, arnorm, info = _solve(A, b, damp, x0)
    return x, 1, info.iterations, float(np.linalg.norm(r)), arnorm, anorm, np.nan, float(np.linalg.norm(x))


@pytest.fixture(autouse=True)
def _sparse_lstsq_in_scipys_place(monkeypatch, ctx):
    monkeypatch.setattr(tlsqr, "lsqr", lsqr)
    monkeypatch.setattr(tlsmr, "lsmr", lsmr)


test_lsqr_basic = tlsqr.test_lsqr_basic
test_gh_2466 = tlsqr.test_gh_2466
test_well_conditioned_problems = tlsqr.test_well_conditioned_problems
test_b_shapes = tlsqr.test_b_shapes


class TestLSMR(tlsmr.TestLSMR):
    """scipy's complex cases end in sparse_lstsq's refusal, by name (the kernels are real)."""

    def testComplexA(self):
        with pytest.raises(ValueError, match="A is complex"):
            super().testComplexA()

    def testComplexX(self):
        with pytest.raises(ValueError, match="b is complex"):
            super().testComplexX()

    def testComplexB(self):
        with pytest.raises(ValueError, match="b is complex"):
            super().testComplexB()
