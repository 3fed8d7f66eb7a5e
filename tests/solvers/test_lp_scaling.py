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
