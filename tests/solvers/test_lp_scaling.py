"""The LP's geometric scaling touches nonzeros only: the same factors as the dense
definition (max and min over each row's and column's nonzeros), dense or sparse input."""
import numpy as np
import scipy.sparse as sp

from glgpgpu.solvers.lp.presolve import geometric_scaling


def _dense_definition(A, passes, power_of_two):
    r, s = np.ones(A.shape[0]), np.ones(A.shape[1])
    absA, nz = np.abs(A), A != 0
    for _ in range(passes):
        M = absA * r[:, None] * s[None, :]
        r = r / np.sqrt(np.where(nz, M, 0).max(axis=1) * np.where(nz, M, np.inf).min(axis=1))
        M = absA * r[:, None] * s[None, :]
        s = s / np.sqrt(np.where(nz, M, 0).max(axis=0) * np.where(nz, M, np.inf).min(axis=0))
    if power_of_two:
        r, s = 2.0 ** np.round(np.log2(r)), 2.0 ** np.round(np.log2(s))
    return r, s


def test_scaling_matches_the_dense_definition():
    rng = np.random.default_rng(5)
    for m, n in [(1, 1), (1, 3), (2, 2), (3, 7), (40, 90), (131, 60)]:
        A = sp.random(m, n, density=0.1, random_state=rng).toarray() * 10.0 ** rng.integers(-8, 8, (m, n))
        A[:, 0] += 1.0
        A[0, :] -= 2.0                      # no empty row or column, as after presolve
        for p2 in (False, True):
            r0, s0 = _dense_definition(A, 6, p2)
            for given in (A, sp.csr_matrix(A), sp.csc_matrix(A)):
                r, s = geometric_scaling(given, 6, p2)
                assert np.allclose(r, r0, rtol=1e-12) and np.allclose(s, s0, rtol=1e-12)


def test_empty_rows_and_matrices_are_left_alone():
    r, s = geometric_scaling(np.zeros((3, 2)))
    assert (r == 1).all() and (s == 1).all()
    A = np.array([[0.0, 0.0], [4.0, 0.25]])
    r, s = geometric_scaling(A, 4)
    assert r[0] == 1.0 and np.isfinite(r).all() and np.isfinite(s).all()


def test_shifted_right_hand_side_is_rounded_once_whatever_the_storage_order():
    """b - A shift (bounds moved to zero) sums each row in extended precision: the same
    float64 b however the nonzeros are stored, and the correctly rounded one."""
    from fractions import Fraction

    from glgpgpu.solvers.lp.mixed.bounded import _minus_product
    rng = np.random.default_rng(3)
    for m, n in [(1, 1), (2, 3), (3, 2), (17, 40), (64, 31)]:
        A = sp.random(m, n, density=0.4, random_state=rng, format="csr") * 10.0 ** rng.integers(-3, 4)
        A.data *= rng.choice([-1.0, 1.0], A.data.shape) * 10.0 ** rng.integers(-2, 3, A.data.shape)
        x, b = rng.standard_normal(n) * 100, rng.standard_normal(m)
        out = _minus_product(b, A, x)
        order = np.concatenate([lo + rng.permutation(hi - lo) for lo, hi in zip(A.indptr[:-1], A.indptr[1:])])
        B = sp.csr_matrix((A.data[order], A.indices[order], A.indptr), A.shape)      # each row's entries reordered
        assert np.array_equal(out, _minus_product(b, B, x))
        if np.finfo(np.longdouble).nmant > 60:                  # x86's 64-bit mantissa
            for i in range(m):
                row = A.getrow(i)
                exact = Fraction(b[i]) - sum(Fraction(v) * Fraction(x[j]) for j, v in zip(row.indices, row.data))
                assert abs(out[i] - float(exact)) <= np.spacing(abs(float(exact)))
    # cancellation a float64 sum in storage order gets wrong
    A = sp.csr_matrix(np.array([[1e16, 1.0, -1e16]]))
    assert _minus_product(np.zeros(1), A, np.ones(3))[0] == -1.0
