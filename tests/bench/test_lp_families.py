"""The generated LP families (glgpgpu/bench/lp_families.py), no GL (device="cpu64"): each member
feasible and bounded by construction -- HiGHS finds it optimal --, the same for the same seed,
about the columns asked for, and solved by glgpgpu to HiGHS's optimum within 1e-8."""
import numpy as np
import pytest
import scipy.sparse as sp

from glgpgpu.bench import lp_families as F

pytest.importorskip("highspy")


@pytest.mark.parametrize("family", sorted(F.FAMILIES))
@pytest.mark.parametrize("n, seed", [(300, 0), (451, 7)])
def test_every_family_is_solved_to_highs_optimum(family, n, seed):
    row = F.solve_beside_highs(family, n, seed, device="cpu64")
    assert row["highs_status"] == "Optimal"
    assert row["status"] == "optimal" and row["rel_obj_error"] <= 1e-8, row
    assert 0.6 * n <= row["cols"] <= 1.5 * n


@pytest.mark.parametrize("family", sorted(F.FAMILIES))
def test_members_are_the_same_for_the_same_seed(family):
    a, b, c = F.FAMILIES[family](200, 3), F.FAMILIES[family](200, 3), F.FAMILIES[family](200, 4)
    same = (sp.csr_matrix(a.A) != sp.csr_matrix(b.A)).nnz == 0 and np.array_equal(a.c, b.c)
    other = a.A.shape != c.A.shape or (sp.csr_matrix(a.A) != sp.csr_matrix(c.A)).nnz or not np.array_equal(a.c, c.c)
    assert same and other


def test_quantile_regression_past_the_border():
    """Quantile regression's split coefficients and residuals (x+ and x- columns, weights spanning
    many orders late): the host's float64 factor with the long columns as a border lost its
    solves' accuracy and the interior point stalled (numerical trouble at 3,000 columns); it is
    solved again with M factored whole, and ends optimal."""
    row = F.solve_beside_highs("quantile_regression", 3000, 0, device="cpu64")
    assert row["status"] == "optimal" and row["rel_obj_error"] <= 1e-8
