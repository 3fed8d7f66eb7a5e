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


@pytest.mark.parametrize("family, n, switch, most", [("l1_regression", 10000, "free_rho_relative_from", 25),
                                                     ("quantile_regression", 3000, "border_stall_at", 34)])
def test_a_stall_switches_early_on_the_host_factor(family, n, switch, most, monkeypatch):
    """On the host's float64 factor a stall of STALL_FREE iterations goes on with the free columns'
    regularization relative to their size (an L1 regression of 10,000 columns: 17 iterations
    where a stall of 15 and a solve from the start took 39), or (quantile regression's border)
    ends the bordered run after STALL_BORDER for the solve with M factored whole (32 where 38).
    These are the nets under the bordered step's refusal (next test), switched off here."""
    from glgpgpu.solvers.lp.mixed import mehrotra
    from glgpgpu.solvers.lp.solver import solve_general
    monkeypatch.setattr(mehrotra, "BORDER_JUMP", float("inf"))
    lp = F.FAMILIES[family](n, 11)
    res = solve_general(lp, device="cpu64")
    assert res.status == "optimal" and switch in res.stats and res.iterations <= most, (res.iterations, res.message)
    row = F.solve_beside_highs(family, n, 11, device="cpu64")
    assert row["rel_obj_error"] <= 1e-8, row


@pytest.mark.parametrize("family, n, then", [("l1_regression", 10000, ("free_rho_relative_from", "product_form_at")),
                                             ("quantile_regression", 3000, ("product_form_at",))])
def test_a_bordered_step_off_course_is_refused(family, n, then):
    """A step of the bordered solves that throws A x - b from 2e-16 to 4e-7 (quantile regression a
    step from its optimum) is refused; from that iterate the free columns' proximal term goes
    relative (an L1 regression), and at the next such step (or the first, with no free column)
    the long columns go into a product-form factor (product_form.py) in place of the border:
    14 and 13 iterations where the stall rules above took 17 (L1 regression, 10,000 columns) and
    32 (quantile regression, 3,000: a bordered run of 20, then a solve from the start)."""
    from glgpgpu.solvers.lp.solver import solve_general
    res = solve_general(F.FAMILIES[family](n, 11), device="cpu64")
    assert res.status == "optimal" and all(k in res.stats for k in then) and res.iterations <= 14, \
        (res.iterations, res.message)
    assert res.stats["refused_steps"] >= 1 and "border_stall_at" not in res.stats and "unbordered_at" not in res.stats
    row = F.solve_beside_highs(family, n, 11, device="cpu64")
    assert row["rel_obj_error"] <= 1e-8, row
