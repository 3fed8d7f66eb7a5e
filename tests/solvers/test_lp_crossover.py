"""Crossover to a vertex (solvers/lp/crossover.py) without GL: HiGHS's crossover handed a point
inside the optimal face, its count of pushes, a start at a vertex, and one it cannot finish."""
import numpy as np
import pytest

from glgpgpu.solvers.lp.crossover import crossover
from glgpgpu.solvers.lp.problem import from_linprog

pytest.importorskip("highspy")


def _face():
    """max x0 + 2 x1 s.t. x0 + 2 x1 <= 4, x >= 0: every point of that segment is optimal."""
    return from_linprog(np.array([-1.0, -2.0]), np.array([[1.0, 2.0]]), np.array([4.0]), None, None, (0, None))


def test_a_point_inside_the_face_goes_to_a_vertex():
    v = crossover(_face(), np.array([2.0, 1.0]), np.array([-1.0]))
    assert v is not None
    assert np.allclose(v.x, [0.0, 2.0]) or np.allclose(v.x, [4.0, 0.0])      # an end of the segment
    assert np.allclose(v.y, [-1.0]) and np.allclose(v.reduced_costs, [0.0, 0.0])
    assert v.iterations == 2                           # the basis, and x0 or x1 pushed to its bound


def test_a_vertex_needs_no_push():
    v = crossover(_face(), np.array([0.0, 2.0]), np.array([-1.0]))
    assert v is not None and np.allclose(v.x, [0.0, 2.0]) and v.iterations == 1


@pytest.mark.parametrize("m, n, seed", [(3, 5, 0), (8, 13, 1), (20, 31, 2)])
def test_vertices_of_random_lps_are_basic_and_optimal(m, n, seed):
    """Random feasible bounded LPs from the interior point's answer (device="cpu64": no GL):
    scipy's HiGHS optimum to 1e-9, primal feasible, and at most m columns strictly between their
    bounds (a basic solution)."""
    import scipy.optimize
    import glgpgpu
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n))
    b = A @ rng.uniform(0.5, 1.5, n) + 1.0
    c = rng.standard_normal(n)
    ref = scipy.optimize.linprog(c, A_ub=A, b_ub=b, bounds=(0, 3), method="highs")
    ipm = glgpgpu.linprog(c, A, b, bounds=(0, 3), device="cpu64")
    lp = from_linprog(c, A, b, None, None, (0, 3))
    v = crossover(lp, ipm.x, ipm.y)
    assert v is not None
    assert abs(c @ v.x - ref.fun) <= 1e-9 * max(1.0, abs(ref.fun))
    assert np.all(A @ v.x <= b + 1e-9) and np.all(v.x >= -1e-12) and np.all(v.x <= 3 + 1e-12)
    assert np.count_nonzero((v.x > 1e-9) & (v.x < 3 - 1e-9)) <= m
