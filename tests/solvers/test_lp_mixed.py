"""The mixed-precision solver (precision="mixed", the default): float64 iterates,
float32 normal equations on the GPU, relative infeasibilities and gap to 1e-8.

Every test here fails on the 2006 float32 solver (it stops near 1e-5 and loses
the answer's last digits); they check the formulation's hard cases against
HiGHS, the honesty of the statuses, and NETLIB to 1e-8."""

import numpy as np
import pytest
import scipy.optimize as so

import glgpgpu
from glgpgpu.bench import lp_table3, netlib
from glgpgpu.bench.matrices import netlib_folder
from glgpgpu.solvers.lp.mixed.host_factor import SparseLDL

TOL = 1e-8


def highs(c, **kw):
    r = so.linprog(c, method="highs", **kw)
    assert r.status == 0, r.message
    return r.fun


def close(value, reference, tol=1e-7):
    """Within tol of HiGHS (whose own default feasibility tolerance is 1e-7)."""
    return abs(value - reference) <= tol * max(1.0, abs(reference))


CASES = {
    # free variables (both bounds infinite), one of them driving the optimum
    "free variables": dict(c=[1.0, -1.0, 2.0], A_ub=[[1, 1, 0], [-1, 2, 1], [0, 1, 1]], b_ub=[4, 3, 5],
                           A_eq=[[1, 0, 1]], b_eq=[1], bounds=[(None, None), (None, None), (0, None)]),
    # ranged rows lo <= a x <= up, written as two inequalities for HiGHS
    "ranged rows": dict(c=[-1.0, -2.0, 1.0], A_ub=[[1, 1, 1], [-1, -1, -1], [1, -1, 0], [-1, 1, 0]],
                        b_ub=[6, -2, 1, 3], bounds=[(0, 4), (0, 4), (0, None)]),
    # fixed variables (lower == upper)
    "fixed variables": dict(c=[2.0, 1.0, -1.0], A_ub=[[1, 1, 1]], b_ub=[5], bounds=[(1.5, 1.5), (0, None), (0, 2)]),
    # a column with an upper bound only (x <= 3), reflected by the formulation
    "upper bound only": dict(c=[-1.0, 1.0], A_ub=[[1, 1]], b_ub=[10], bounds=[(None, 3), (0, None)]),
    # A D A^T rank-deficient at the optimum: a primal-degenerate vertex (more
    # active constraints than variables at zero), redundant rows
    "rank-deficient normal matrix": dict(c=[1.0, 1.0, 1.0, 0.0], A_eq=[[1, 1, 0, 0], [0, 1, 1, 0], [1, 2, 1, 0]],
                                         b_eq=[1, 1, 2], bounds=[(0, None)] * 4),
    # a whole face of optima (dual degenerate): the objective is what must agree
    "degenerate optimum": dict(c=[1.0, 1.0], A_ub=[[-1, -1]], b_ub=[-2], bounds=[(0, 3), (0, 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_hard_formulation_cases_to_1e_8(ctx, name, method):
    kw = CASES[name]
    want = highs(**kw)
    res = glgpgpu.linprog(**kw, method=method)
    assert res.status == "optimal", res.message
    assert close(res.objective, want), (res.objective, want)
    assert res.primal_infeasibility <= TOL and res.dual_infeasibility <= TOL and res.gap <= TOL
    assert res.violation <= 1e-6


def test_the_single_precision_solver_cannot_do_this(ctx):
    """The reason this solver exists: float32 iterates stop short of 1e-8."""
    kw = CASES["ranged rows"]
    res = glgpgpu.linprog(**kw, precision="single", tol=1e-8)
    assert res.status != "optimal" or not close(res.objective, highs(**kw), 1e-9)


def test_iteration_limit_returns_the_best_point_never_nan(ctx):
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    res = glgpgpu.solve_mps(path, max_iter=3)
    assert res.status == "iteration limit" and res.iterations == 3
    assert np.isfinite(res.objective) and np.all(np.isfinite(res.x))
    assert res.primal_infeasibility > TOL and np.isfinite(res.primal_infeasibility)


def test_a_step_that_blows_up_the_complementarity_is_refused(ctx, monkeypatch):
    """A direction wrong in a component the ratio test does not bound (x_j + huge dx_j
    with z_j > 0) raises x^T z by orders of magnitude: the step is refused and redone
    with float64 factors, and the solve still ends optimal."""
    from glgpgpu.solvers.lp.mixed import mehrotra
    real_newton, real_corrector = mehrotra._Iteration.newton, mehrotra._Iteration.corrector
    state = {"correctors": 0, "now": False}

    def newton(self, st, *args):
        dx, ds, dy, dz, dw = real_newton(self, st, *args)
        if state["now"]:                                        # no upper bound: the ratio test lets x grow
            bump = np.where(self.L & ~self.U, 1e6 * (np.abs(dx).max() + 1.0), 0.0)
            dx = dx + bump
            dz = dz - np.where(self.L, st.z * bump / np.where(self.L, st.x, 1.0), 0.0)   # Z dx + X dz kept
        return dx, ds, dy, dz, dw

    def corrector(self, *args):
        state["correctors"] += 1
        state["now"] = state["correctors"] == 5 and not self.normal.exact     # one direction, mid-solve
        try:
            return real_corrector(self, *args)
        finally:
            state["now"] = False
    monkeypatch.setattr(mehrotra._Iteration, "newton", newton)
    monkeypatch.setattr(mehrotra._Iteration, "corrector", corrector)
    monkeypatch.setattr(mehrotra, "GONDZIO", 0)
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    res = glgpgpu.solve_mps(path, device="gpu")
    assert res.stats["refused_steps"] >= 1 and res.status == "optimal"
    assert any(e.get("refused") for e in res.log)
    ref = glgpgpu.solve_mps(path, device="cpu64")
    assert abs(res.objective - ref.objective) <= 1e-8 * abs(ref.objective)


def test_after_float64_streak_no_float32_factor_is_made(ctx, monkeypatch):
    """Once the float64 factor carried FLOAT64_AFTER iterations in a row, the float32
    factor is no longer made (forced here from the first iteration): every solve after
    it is float64, and the answer is the same."""
    from glgpgpu.solvers.lp.mixed import mehrotra
    monkeypatch.setattr(mehrotra, "FLOAT64_AFTER", 0)
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    res = glgpgpu.solve_mps(path, device="gpu")
    assert res.status == "optimal" and res.stats["float64_from_iteration"] == 1
    assert res.stats["host_fallbacks"] >= res.iterations          # the solves after it, all float64
    ref = glgpgpu.solve_mps(path, device="cpu64")
    assert abs(res.objective - ref.objective) <= 1e-8 * abs(ref.objective)


def test_a_stall_within_tol_stops_after_a_few_iterations(monkeypatch):
    """Once the best point is within tol (the stall rule's "optimal"), STALL_WITHIN_TOL
    iterations without progress end the solve there, not STALL (dfl001 and pilot87
    spent 15 iterations so): the iterate is frozen here once its residuals are within
    tol, so nothing improves after."""
    from glgpgpu.solvers.lp.mixed import mehrotra
    frozen = []
    advance = mehrotra._Iteration.advance

    def freezing(self, st, d, ap, ad):
        me = self.measures(st)
        if frozen or (max(me.pinf, me.dinf) <= 1e-5 and me.gap <= 1e-5):
            frozen.append(1)
            return
        advance(self, st, d, ap, ad)
    monkeypatch.setattr(mehrotra._Iteration, "advance", freezing)
    res = glgpgpu.solve_mps(lp_table3.data_dir() / "adlittle.mps.gz", device="cpu64", tol=1e-5)
    assert res.status == "optimal" and res.message.startswith("stalled")
    assert len(frozen) == mehrotra.STALL_WITHIN_TOL < mehrotra.STALL


def test_a_stall_with_the_float32_factor_goes_on_with_float64_solves(monkeypatch):
    """A stall while the float32 factor preconditions (device="cpu32" rounds as the GPU's)
    is not final: the iteration goes back to its best point with every solve through the
    float64 factor, and stops only if that stalls too.  The iterate is frozen here while
    the float32 factor is in use once within tol, so the solve ends optimal by the
    float64 solves, not by the stall rule (its gap within tol is not yet optimal's)."""
    from glgpgpu.solvers.lp.mixed import mehrotra
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    ref = glgpgpu.solve_mps(path, device="cpu64")
    frozen = []
    advance = mehrotra._Iteration.advance

    def freezing(self, st, d, ap, ad):
        me = self.measures(st)
        if not self.normal.exact and (frozen or (max(me.pinf, me.dinf) <= 1e-8 and me.gap <= 1e-8)):
            frozen.append(1)
            return
        advance(self, st, d, ap, ad)
    monkeypatch.setattr(mehrotra._Iteration, "advance", freezing)
    res = glgpgpu.solve_mps(path, device="cpu32", tol=1e-8)
    assert len(frozen) == mehrotra.STALL_WITHIN_TOL
    assert res.stats["float64_after_stall"] > 0 and res.stats["float64_from_iteration"] > 0
    assert res.status == "optimal" and not res.message.startswith("stalled")
    assert any(e.get("float64_after_stall") for e in res.log)
    assert abs(res.objective - ref.objective) <= 1e-8 * abs(ref.objective)


def test_cpu64_has_no_float32_factor_to_stop_making(monkeypatch):
    """device="cpu64" preconditions with a float64 factor already: the float64 streak
    rule must not send its solves to the last resort (that cost ganges 2.1e-8 of its
    objective); forcing the rule from the first iteration changes nothing."""
    from glgpgpu.solvers.lp.mixed import mehrotra
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    ref = glgpgpu.solve_mps(path, device="cpu64")
    monkeypatch.setattr(mehrotra, "FLOAT64_AFTER", 0)
    res = glgpgpu.solve_mps(path, device="cpu64")
    assert res.stats["float64_from_iteration"] == 0
    assert res.iterations == ref.iterations and res.objective == ref.objective


def test_compute_takes_its_float64_factor_on_the_gpu(ctx, monkeypatch):
    """method="compute" factors the last-resort float64 systems on the GPU
    (compute/float64.py) where the host would: forced here for every solve and every
    order; the answer is cpu64's and every buffer goes back."""
    from glgpgpu.solvers.lp.mixed import mehrotra
    from glgpgpu.solvers.lp.mixed import ladder
    monkeypatch.setattr(mehrotra, "FLOAT64_AFTER", 0)
    monkeypatch.setattr(ladder, "GPU_FLOAT64_ROWS", 1)
    monkeypatch.setattr(ladder, "GPU_FLOAT64_FLOPS", 0)
    from glgpgpu.compute.normal import OneBufferNormal as NormalSystem
    given, factor = [], NormalSystem.float64_factor

    def spy(self, M, places=None, sums=None):
        given.append(places is not None and sums is not None and M is None)
        return factor(self, M, places, sums=sums)
    monkeypatch.setattr(NormalSystem, "float64_factor", spy)
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    before = ctx.buffers.outstanding
    res = glgpgpu.solve_mps(path, method="compute", device="gpu")
    assert res.status == "optimal"
    assert res.stats["gpu_factor_float64"] >= res.iterations - 1          # the first iteration's solves all float32
    assert given and all(given)          # M's entries summed on the GPU from d, through places and W kept there
    assert res.stats["gpu_sums"]
    assert res.stats["host_factor_multifrontal"] + res.stats["host_factor_sparse"] + \
        res.stats["host_factor_dense"] == 0
    assert ctx.buffers.outstanding == before
    ref = glgpgpu.solve_mps(path, device="cpu64")
    assert abs(res.objective - ref.objective) <= 1e-8 * abs(ref.objective)


def test_the_gpu_float64_factor_takes_autos_pattern_instead_of_making_one(ctx, monkeypatch):
    """device="auto" made a NormalPattern of A to count its factor; where it has no border it is
    M's own, and the GPU's float64 factor places M through it -- no second pattern is made."""
    from glgpgpu.gl.context import Capabilities
    from glgpgpu.solvers.lp import mixed
    from glgpgpu.solvers.lp.mixed import ladder, normal_pattern
    from glgpgpu.solvers.lp.mixed.device import Choice
    monkeypatch.setattr(ladder, "GPU_FLOAT64_ROWS", 1)
    monkeypatch.setattr(ladder, "GPU_FLOAT64_FLOPS", 0)
    monkeypatch.setattr(Capabilities, "software", property(lambda self: False))
    made, init = [], normal_pattern.NormalPattern.__init__

    def counted(self, *a, **k):
        made.append(1)
        init(self, *a, **k)
    monkeypatch.setattr(normal_pattern.NormalPattern, "__init__", counted)
    monkeypatch.setattr(mixed, "choose_device", lambda A, counted=float("nan"), gpu_float64=False, order=None:
                        Choice("gpu", 1e12, normal_pattern.NormalPattern(A)))
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    res = glgpgpu.solve_mps(path, method="compute", ctx=ctx)
    assert res.status == "optimal" and res.stats["device"] == "gpu" and res.stats["gpu_factor_float64"] > 0
    assert len(made) == 1                                  # auto's only
    ref = glgpgpu.solve_mps(path, device="cpu64")
    assert abs(res.objective - ref.objective) <= 1e-8 * abs(ref.objective)


def test_places_that_cannot_be_made_leave_m_to_the_sparse_product(ctx, monkeypatch):
    """Where the pattern's places cannot go to the GPU (past int32, or no room), the GPU's
    float64 factor takes M formed as a sparse product instead: same answer, no crash."""
    from glgpgpu.compute.normal import OneBufferNormal as NormalSystem
    from glgpgpu.solvers.lp.mixed import ladder
    monkeypatch.setattr(ladder, "GPU_FLOAT64_ROWS", 1)
    monkeypatch.setattr(ladder, "GPU_FLOAT64_FLOPS", 0)
    given = []

    def refused(self, rows, cols, order=None, sums=None):
        raise ValueError("an order-56 float64 matrix has places past int32 (a stand-in)")
    factor = NormalSystem.float64_factor

    def spy(self, M, places=None, sums=None):
        given.append(places is None)
        return factor(self, M, places, sums=sums)
    monkeypatch.setattr(NormalSystem, "float64_places", refused)
    monkeypatch.setattr(NormalSystem, "float64_factor", spy)
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    res = glgpgpu.solve_mps(path, method="compute", device="gpu")
    assert res.status == "optimal" and given and all(given) and not res.stats["gpu_sums"]
    ref = glgpgpu.solve_mps(path, device="cpu64")
    assert abs(res.objective - ref.objective) <= 1e-8 * abs(ref.objective)


def test_compute_factors_in_float64_throughout_where_its_float64_factor_takes_m(ctx, monkeypatch):
    """Where the GPU's float64 factor takes M (forced here for every order), every
    factorization is that one from the start: no float32 factor, no PCG, the answer cpu64's."""
    from glgpgpu.solvers.lp.mixed import ladder
    monkeypatch.setattr(ladder, "GPU_FLOAT64_ROWS", 1)
    monkeypatch.setattr(ladder, "GPU_FLOAT64_FLOPS", 0)
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    res = glgpgpu.solve_mps(path, method="compute", device="gpu")
    assert res.status == "optimal" and res.stats["float64_throughout"]
    assert res.stats["gpu_factor_float64"] == res.stats["factorizations"] and res.stats["pcg_iterations"] == 0
    ref = glgpgpu.solve_mps(path, device="cpu64")
    assert abs(res.objective - ref.objective) <= 1e-8 * abs(ref.objective)


def test_float64_throughout_only_where_the_gpu_factors_m_in_float64(monkeypatch):
    """Not on the host's devices (but cpu64's multifrontal case, tested below), not without a
    GPU float64 factor, not below GPU_FLOAT64_ROWS or for an M whose factor is small (no GL:
    a stand-in system)."""
    import scipy.sparse as sp
    from glgpgpu.solvers.lp.mixed import normal
    from glgpgpu.solvers.lp.mixed import ladder
    A = sp.random(40, 90, density=0.1, random_state=np.random.default_rng(1), format="csc")

    def made(device, system, rows=1, flops=0):
        monkeypatch.setattr(ladder, "GPU_FLOAT64_ROWS", rows)
        monkeypatch.setattr(ladder, "GPU_FLOAT64_FLOPS", flops)
        N = normal.MixedNormal(A, device="cpu32")
        N.device = N.ladder.device = device
        N.system = N.ladder.system = system
        return N.float64_throughout

    from glgpgpu.methods.resident import NormalSystemBase

    class WithFloat64(NormalSystemBase):
        float64_normal = True

        def float64_factor(self, M):
            raise AssertionError("not called")
    assert made("gpu", WithFloat64())
    assert not made("cpu64", WithFloat64()) and not made("cpu32", WithFloat64())
    assert not made("gpu", NormalSystemBase())                        # paper, blocked: no float64 factor
    assert not made("gpu", WithFloat64(), rows=41)
    assert not made("gpu", WithFloat64(), flops=1e30)


def test_a_driver_without_float64_kernels_falls_back_to_the_host(ctx, monkeypatch):
    """A float64 kernel the driver cannot build (NVIDIA's once: a dvec4 store) is
    said once, as a warning, and the host factors instead: same answer, no crash."""
    from glgpgpu.compute.normal import OneBufferNormal as NormalSystem
    from glgpgpu.errors import ShaderCompileError
    from glgpgpu.solvers.lp.mixed import mehrotra
    from glgpgpu.solvers.lp.mixed import ladder
    calls = []

    def broken(self, M, places=None, sums=None):
        calls.append(1)
        raise ShaderCompileError("gemm.comp does not compile")
    monkeypatch.setattr(NormalSystem, "float64_factor", broken)
    monkeypatch.setattr(mehrotra, "FLOAT64_AFTER", 0)
    monkeypatch.setattr(ladder, "GPU_FLOAT64_ROWS", 1)
    monkeypatch.setattr(ladder, "GPU_FLOAT64_FLOPS", 0)
    with pytest.warns(RuntimeWarning, match="float64 factor is unavailable"):
        res = glgpgpu.solve_mps(lp_table3.data_dir() / "adlittle.mps.gz", method="compute", device="gpu")
    assert res.status == "optimal" and len(calls) == 1 and res.stats["gpu_factor_float64"] == 0


def test_an_overflowed_float32_factor_goes_straight_to_the_float64_one(ctx, monkeypatch):
    """A float32 L that is not finite (overflow) gives no finite substitution, on the
    host or on the GPU: the solves go to the float64 factor without the GPU's (and without
    building its kernels); the answer is unchanged."""
    from glgpgpu.compute.normal import OneBufferNormal as NormalSystem
    lower, gpu_solves = NormalSystem.lower, []

    def overflowed(self):
        L = lower(self)
        L[-1, 0] = np.inf
        return L
    monkeypatch.setattr(NormalSystem, "lower", overflowed)
    monkeypatch.setattr(NormalSystem, "solve", lambda self, *a, **k: gpu_solves.append(1))
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    res = glgpgpu.solve_mps(path, method="compute", device="gpu")
    assert res.status == "optimal" and not gpu_solves
    assert res.stats["host_fallbacks"] >= res.iterations
    ref = glgpgpu.solve_mps(path, device="cpu64")
    assert abs(res.objective - ref.objective) <= 1e-8 * abs(ref.objective)


@pytest.mark.parametrize("method", ["compute", "blocked"])
def test_a_float32_factor_that_raises_goes_to_the_float64_one(ctx, monkeypatch, method):
    """A float32 factorization that raises (the tiled factor names a pivot float32 cannot hold:
    a staircase LP of 15,000 rows under compute on the H100) is taken as an overflowed L: the
    solves go to the float64 factor, the answer is cpu64's -- no crash."""
    from glgpgpu.errors import NotPositiveDefiniteError
    from glgpgpu.solvers.lp.mixed import ladder
    from glgpgpu.solvers.lp.mixed import mehrotra
    monkeypatch.setattr(mehrotra, "FLOAT64_AFTER", 10 ** 6)        # keep making float32 factors
    monkeypatch.setattr(ladder, "GPU_FLOAT64_ROWS", 10 ** 9)       # compute: not its float64 one throughout
    made = []

    def raising(self, *a, **k):
        made.append(1)
        raise NotPositiveDefiniteError(3, self.m)
    one = glgpgpu.dispatch.implementation(method).normal_system(np.eye(2, dtype=np.float32), packed=False,
                                                                variant="outer", ctx=ctx, watch=None)
    one.release()
    monkeypatch.setattr(type(one), "factor", raising)
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    res = glgpgpu.solve_mps(path, method=method, device="gpu")
    assert res.status == "optimal" and made and res.stats["host_fallbacks"] >= res.iterations
    ref = glgpgpu.solve_mps(path, device="cpu64")
    assert abs(res.objective - ref.objective) <= 1e-8 * abs(ref.objective)


def test_single_precision_stop_keeps_its_objective(ctx):
    """The 2006 solver asked for more than float32 gives: a status that says so and
    the objective of the x it returns (once NaN)."""
    res = glgpgpu.solve_mps(lp_table3.data_dir() / "afiro.mps.gz", precision="single", tol=1e-9, max_iter=40)
    assert res.status in ("numerical trouble", "iteration limit", "optimal")
    assert np.isfinite(res.objective)


@pytest.mark.parametrize("make, match", [
    (lambda d: d / "nothere.mps", "no such MPS file"),
    (lambda d: _write(d / "bad.mps.gz", b"not gzip at all"), "not a readable gzip"),
    (lambda d: _write(d / "bad.mps", b"ROWS\n garbage here\nCOLUMNS\n  x y z w\nENDATA\n"), "MPS"),
])
def test_bad_mps_files_are_value_errors_naming_the_file(tmp_path, make, match):
    path = make(tmp_path)
    with pytest.raises(ValueError, match=match) as info:
        glgpgpu.solve_mps(path)
    assert str(path) in str(info.value)


def _write(path, data):
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("kw, err, match", [
    (dict(c=[1.0, np.inf], A_ub=[[1, 1]], b_ub=[1]), ValueError, "c holds a non-finite"),
    (dict(c=[1.0, 1.0], A_ub=[[1, np.nan]], b_ub=[1]), ValueError, "A_ub holds a non-finite"),
    (dict(c=[1.0, 1.0], A_eq=[[1, 1]], b_eq=[1, 2]), ValueError, "b_eq has 2 entries"),
    (dict(c=[1.0, 1.0], A_eq=[[1, 1, 1]], b_eq=[1]), ValueError, "A_eq has 3 columns"),
    (dict(c=[1.0, 1.0], bounds=[(0, 1)]), ValueError, "bounds has 1 pairs"),
    (dict(c=[1.0, 1.0], precision="double"), ValueError, "precision must be one of"),
])
def test_bad_lp_input(kw, err, match):
    with pytest.raises(err, match=match):
        glgpgpu.linprog(**kw)


SHARED = netlib_folder()
TABLE3 = sorted(lp_table3.PAPER)
SMALL = [] if SHARED is None else [n for n in netlib.problems(SHARED, max_rows=100) if n not in TABLE3]


@pytest.mark.parametrize("name", TABLE3 + SMALL)
def test_netlib_to_1e_8(ctx, name):
    """The ten of Table 3 and every shared NETLIB problem with at most 100 rows, mixed
    precision, to a relative objective error of 1e-8 in at most twice HiGHS's iterations
    (the full set of 75 runs on the GPU: benchmarks/RESULTS.md)."""
    folder = SHARED or lp_table3.data_dir()
    ref = netlib.references(folder).get(name)
    if ref is None:                              # the repository's copy: Table 3's references
        ref = (0, 0, lp_table3.PAPER[name][0], None)
    res = glgpgpu.solve_mps(folder / f"{name}.mps.gz")
    assert res.status == "optimal", res.message
    assert netlib.relative_error(res.objective, ref[2]) <= TOL, (res.objective, ref[2])
    if ref[3]:
        assert res.iterations <= 2 * ref[3], (res.iterations, ref[3])


# -- bordering (normal.MixedNormal.newton): the true Newton system for columns rho throttles ----------

def n_of(A):
    return A.shape[1]


def _newton_case(m=9, n=23, border=(2, 7, 11), spread=1e8, seed=3):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n))
    if len(border) > 1:                                # nearly antiparallel, as greenbea's pairs
        A[:, border[1]] = -0.7 * A[:, border[0]] + 1e-5 * rng.standard_normal(m)
    d_true = 10.0 ** rng.uniform(-4, 4, n)
    F = np.array(border)
    d_true[F] = spread * 10.0 ** rng.uniform(0, 2, F.size)
    d_cap = d_true.copy()
    d_cap[F] = 1.0 / (1.0 / d_true[F] + 1e-2)        # what M carries: 1 / (z/x + rho)
    return A, d_true, d_cap, F, rng.standard_normal(m), rng.standard_normal(n)


@pytest.mark.parametrize("border", [(2, 7, 11), (0,), (4, 5)])
def test_bordered_newton_step_solves_the_unregularized_system(border):
    """-D^-1 dx + A^T dy = rhat and A dx + delta dy = rb with the *true* D on the
    bordered columns (what M, carrying 1/(z/x + rho) there, cannot give), to float64
    accuracy; the plain step misses the bordered rows by about rho dx."""
    from glgpgpu.solvers.lp.mixed.normal import MixedNormal

    A, d_true, d_cap, F, rb, rhat = _newton_case(border=border)
    delta = 1e-12
    N = MixedNormal(A, device="cpu64")
    N.factor(d_cap, delta, border=F, d_border=d_true[F])
    dy, dx = N.newton(rb, rhat, d_cap, 1e-13)
    # float64 bounds: A dx sums n terms as large as |A| |dx| (dx ~ 1e10 on the border)
    u64 = np.finfo(float).eps
    primal = np.abs(A @ dx + delta * dy - rb).max()
    dual = np.abs(-dx / d_true + A.T @ dy - rhat).max()
    scale_c = np.abs(A.T @ dy).max() + np.abs(rhat).max()
    assert primal <= 10 * n_of(A) * u64 * np.abs(A).max() * np.abs(dx).max()
    assert dual <= 1e3 * u64 * scale_c          # ~ cond(Schur complement) u64; measured <= 80 u64
    # the same without the border: the bordered rows are off by ~ rho |dx| (rho = 1e-2 here)
    N.factor(d_cap, delta)
    dy0, dx0 = N.newton(rb, rhat, d_cap, 1e-13)
    assert np.abs(-dx0 / d_true + A.T @ dy0 - rhat)[F].max() > 1e-6 * scale_c


def test_border_picks_throttled_columns_with_a_dual_residual():
    from glgpgpu.solvers.lp.mixed import mehrotra

    n = 6
    L, U = np.ones(n, bool), np.zeros(n, bool)
    x = np.array([1.0, 1e10, 1e10, 1.0, 1e9, 1.0])
    z = np.array([1.0, 1e-10, 1e-10, 1e-10, 1e-3, 1.0])      # z/x < 0.1 rho only on columns 1, 2
    rc = np.array([1e-3, 1e-3, 1e-12, 1e-3, 1e-3, 0.0])        # ... and only 1 has a dual residual
    st = mehrotra._State(x, np.zeros(0), np.zeros(2), z, np.zeros(0))
    got = mehrotra._border(np.zeros(0, int), st, rc, np.ones(n), 1.0, L, U, 1e-8)
    assert list(got) == [1]
    # ... pulled far (|rc| > BORDER_PULL z) and among the worst dual residuals (>= a tenth of the worst)
    z2 = z.copy()
    z2[1] = 1e-3 / (0.5 * mehrotra.BORDER_PULL)
    assert list(mehrotra._border(np.zeros(0, int), mehrotra._State(x, st.s, st.y, z2, st.w), rc, np.ones(n), 1.0,
                                 L, U, 1e-8)) == []
    rc2 = rc.copy()
    rc2[0] = 20e-3
    assert list(mehrotra._border(np.zeros(0, int), st, rc2, np.ones(n), 1.0, L, U, 1e-8)) == []
    # once bordered, a column stays
    got = mehrotra._border(np.array([2, 5]), st, rc, np.ones(n), 1.0, L, U, 1e-8)
    assert list(got) == [1, 2, 5]


@pytest.mark.parametrize("m,n", [(1, 3), (2, 40), (37, 90), (60, 300)])
def test_a_dense_normal_matrix_is_formed_dense(m, n):
    """Where A D A^T is dense (fit2p: singleton columns and a few long ones), the
    float64 fallback forms it as a dense array -- the long columns by one BLAS product,
    the rest sparse -- to float64 rounding of the sparse product, and factors it dense
    (no GL)."""
    import scipy.sparse as sp
    from glgpgpu.solvers.lp.mixed.normal import MixedNormal
    rng = np.random.default_rng(m)
    A = sp.random(m, n, density=min(1.0, 2.0 / m), random_state=rng, format="csc").tolil()
    A[:, :3] = rng.standard_normal((m, 3))                 # long columns (past DENSE_COLUMN at m > 32)
    A = A.tocsc()
    d = rng.uniform(0.1, 10.0, n)
    N = MixedNormal(A, device="cpu64")
    N.factor(d, 1e-9)
    want = (A @ sp.diags(d) @ A.T).toarray() + 1e-9 * np.eye(m)
    got = N.forms.normal_dense(d, 1e-9)
    assert isinstance(got, np.ndarray)
    assert np.allclose(got, want, rtol=0, atol=1e-13 * np.abs(want).max())
    N.forms.dense, N.ladder.pattern = True, None                    # as after a first dense M with no pattern
                                                           # (at m > 32 the long columns are a border)
    b = rng.standard_normal(m)
    before = N.stats["host_factor_dense"]
    x, res = N._host(b, np.linalg.norm(b))
    assert res <= 1e-12 and N.stats["host_factor_dense"] == before + 1


@pytest.mark.parametrize("m,n,dense", [(1, 2, False), (7, 20, False), (40, 130, False), (31, 90, True)])
def test_cpu64_host_factor_is_of_m_with_delta_and_solves_without_cg(m, n, dense):
    """device="cpu64" where the normal matrix has no pattern (HostFactor, sparse or dense
    M): its factor is of M + delta I itself, so a solve needs no PCG step however large
    delta is against M's small eigenvalues (dfl001 took 6,729 PCG steps with delta left
    out of that factor), and stays within float64's bound (no GL)."""
    import scipy.sparse as sp
    from glgpgpu.solvers.lp.mixed.normal import MixedNormal
    rng = np.random.default_rng(m + n)
    A = sp.random(m, n, density=min(1.0, 3.0 / m), random_state=rng, format="csc").tolil()
    A[:, 0] = 1.0
    A = A.tocsc()
    d = np.exp(rng.uniform(-20, 20, n))                # an interior point's spread of weights
    N = MixedNormal(A, device="cpu64")
    N.ladder.pattern = None                            # the HostFactor branch
    N.forms.dense = dense
    delta = 1e-6 * float(d.max())
    N.factor(d, delta)
    assert N.pre.whole
    b = rng.standard_normal(m)
    x = N.solve(b, tol=1e-12)
    M = (A @ sp.diags(d) @ A.T).toarray() + delta * np.eye(m)
    # a step for rounding at most (the tol asked is at float64's edge for kappa ~1e6: which
    # side of it refinement stops on depends on the BLAS); without delta 5-8 steps
    assert N.stats["pcg_iterations"] <= 1
    assert np.linalg.norm(M @ x - b) <= 1e-12 * np.linalg.norm(b) * max(1.0, np.linalg.cond(M) * 1e-4)


def test_cpu64_host_factor_is_not_made_again_as_the_last_resort():
    """device="cpu64"'s per-iteration HostFactor is M's own float64 factor: a solve it cannot
    take to tol keeps what refinement and PCG made, and does not factor the same M again as
    the last resort (dfl001 made 26 such factors, 4 s).  The factor's solves are made to
    miss here (half the answer, no PCG), as a nearly singular M's do."""
    import scipy.sparse as sp
    from glgpgpu.solvers.lp.mixed.normal import MixedNormal
    rng = np.random.default_rng(5)
    A = sp.random(30, 80, density=0.1, random_state=rng, format="csc").tolil()
    A[:, 0] = 1.0
    N = MixedNormal(A.tocsc(), device="cpu64")
    N.ladder.pattern = None                            # the HostFactor branch
    d = np.exp(rng.uniform(-20, 20, 80))
    N.factor(d, 1e-6 * float(d.max()))
    assert N.pre.whole
    made = sum(N.stats[k] for k in ("host_factor_multifrontal", "host_factor_sparse", "host_factor_dense"))
    solve = N.pre.F.solve
    N.pre.F.solve = lambda v: 0.5 * solve(v)
    N._pcg = lambda rhs, x, r, nr, tol, max_cg: (x, np.linalg.norm(r) / nr)
    x = N.solve(rng.standard_normal(30), tol=1e-12)
    assert np.all(np.isfinite(x))
    assert N.stats["host_fallbacks"] == 0
    assert sum(N.stats[k] for k in ("host_factor_multifrontal", "host_factor_sparse", "host_factor_dense")) == made == 1


def test_cpu64_pcg_after_its_float64_factor_takes_few_steps():
    """device="cpu64" preconditions with M's own float64 factor (the pattern's qdldl factor
    here): PCG after its refinement stops at FLOAT64_CG steps, not the float32 factor's 60.
    Its solves are perturbed here (M^-1 + I: still SPD, slow to converge with)."""
    import scipy.sparse as sp
    from glgpgpu.solvers.lp.mixed import normal
    pytest.importorskip("qdldl")
    rng = np.random.default_rng(7)
    A = sp.random(40, 120, density=0.03, random_state=rng, format="csc") + sp.eye(40, 120, format="csc")
    N = normal.MixedNormal(A.tocsc(), device="cpu64")
    d = np.exp(rng.uniform(-12, 12, 120))
    N.factor(d, 1e-10 * float(d.max()))
    assert isinstance(N.pre.F, SparseLDL) and N.pre.whole        # the pattern's factor: M's own
    solve = N.pre.F.solve
    N.pre.F.solve = lambda v: solve(v) + v
    N.solve(rng.standard_normal(40), tol=1e-30)                # past reach: PCG runs to its cap
    assert 0 < N.stats["pcg_iterations"] <= normal.FLOAT64_CG


@pytest.mark.parametrize("m", [40, 101, 256])     # (smaller M is dense by SPARSE_SHARE: no pattern)
def test_cpu64_pattern_factor_is_of_m_scaled_by_its_own_diagonal(m):
    """device="cpu64"'s qdldl factor on the pattern is of M = A D A^T + delta I scaled to a unit
    diagonal by M's own diagonal, delta's part included (rows delta dominates -- an empty row of A
    here -- scaled by A D A^T's alone got the shift out of proportion), and so it is the factor
    _host would make: a solve that misses its tol makes no second factor."""
    import scipy.sparse as sp
    from glgpgpu.solvers.lp.mixed import normal
    pytest.importorskip("qdldl")
    rng = np.random.default_rng(m)
    n = 3 * m + 2
    A = (sp.random(m, n, density=1.5 / m, random_state=rng, format="lil") + sp.eye(m, n, format="lil")).tolil()
    A[m - 1, :] = 0.0                                    # an empty row: its M entry is delta alone
    A = A.tocsc()
    A.eliminate_zeros()
    N = normal.MixedNormal(A, device="cpu64")
    d = np.exp(rng.uniform(-8, 8, n))
    delta = 1e-6 * float(d.max())
    N.factor(d, delta)
    assert isinstance(N.pre.F, SparseLDL)
    M = (A @ sp.diags(d) @ A.T).toarray() + delta * np.eye(m)
    np.testing.assert_allclose(N.s ** 2 * np.diag(M) / N.dmax, 1.0, rtol=1e-12)
    made = N.stats["host_factor_sparse"]
    solve = N.pre.F.solve
    N.pre.F.solve = lambda v: 0.5 * solve(v)                # every solve misses: refinement, PCG, no fallback
    x = N.solve(rng.standard_normal(m), tol=1e-30)
    assert np.all(np.isfinite(x))
    assert N.stats["host_fallbacks"] == 0 and N.stats["host_factor_sparse"] == made == 1


@pytest.mark.parametrize("colamd", [True, False])
@pytest.mark.parametrize("name", ["afiro", "adlittle", "sc50b"])
def test_cpu64_with_the_multifrontal_factor_solves_once_by_it(monkeypatch, name, colamd):
    """device="cpu64" whose factor is the multifrontal one (dfl001-sized: the thresholds are
    lowered here) takes every solve from the float64 factor of M scaled by its own diagonal,
    once, from the first iteration: no refinement, PCG or primal corrections, and the same
    optimum as the refined path (dfl001: 11.7 -> 8.0 s on the CPU machine).  Without COLAMD
    there is no analysis, so no multifrontal factor: the refined path, to the same optimum."""
    from glgpgpu.solvers.lp.mixed import host_factor
    from glgpgpu.solvers.lp.mixed import ladder
    from glgpgpu.symbolic import colamd_available
    path = lp_table3.data_dir() / f"{name}.mps.gz"
    ref = glgpgpu.solve_mps(path, device="cpu64")
    assert not ref.stats["float64_throughout"]
    monkeypatch.setattr(ladder, "ANALYSIS_ROWS", 0)
    monkeypatch.setattr(ladder, "MULTIFRONTAL_FLOPS", 0.0)
    monkeypatch.setattr(host_factor, "MULTIFRONTAL_FLOPS", 0.0)
    monkeypatch.setattr(ladder, "LDL_FLOPS", 0.0)
    if not colamd:
        monkeypatch.setattr(ladder, "colamd_available", lambda: False)
    res = glgpgpu.solve_mps(path, device="cpu64")
    st = res.stats
    assert res.status == "optimal"
    assert abs(res.objective - ref.objective) <= 1e-8 * max(1.0, abs(ref.objective))
    if colamd and colamd_available():
        assert st["float64_throughout"]
        assert st["host_factor_multifrontal"] >= res.iterations and st["host_factor_sparse"] == 0
        assert st["pcg_iterations"] == st["refinement_steps"] == st["primal_corrections"] == 0
    else:
        assert not st["float64_throughout"] and st["host_factor_multifrontal"] == 0


def test_an_lp_solve_runs_its_blas_on_one_thread_and_its_factors_on_few(monkeypatch):
    """During a solve the vector operations' BLAS runs on one thread (a large dot product on
    several, right after a LAPACK call, waited milliseconds for the pool), its host factorizations
    on at most BLAS_THREADS (never more than before), and the caller's setting comes back after."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from glgpgpu.solvers.lp import mixed
    from glgpgpu.solvers.lp.mixed import host_factor

    def threads():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    before = threads()
    monkeypatch.setattr(mixed, "BLAS_THREADS", 2)
    seen, in_factor = [], []
    real = host_factor.HostFactor.__init__

    def spy_factor(self, *args, **kw):
        in_factor.append(max(threads()))
        real(self, *args, **kw)
    monkeypatch.setattr(host_factor.HostFactor, "__init__", spy_factor)
    from glgpgpu.bench.lp_families import set_cover
    from glgpgpu.solvers.lp import solve_general
    res = solve_general(set_cover(3000, seed=5), device="cpu64",         # 750 rows: LAPACK's factor
                        callback=lambda entry: seen.append(max(threads())))
    assert res.status == "optimal" and seen and max(seen) == 1
    assert in_factor and set(in_factor) == {min([2] + before)}
    assert threads() == before


def test_blas_solve_keeps_its_factor_threads_for_factor_blas():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import scipy.linalg  # noqa: F401  (scipy's own BLAS loaded)
    from glgpgpu.parallel import blas_solve, factor_blas

    def threads():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    before = threads()
    with blas_solve(10 ** 6):
        assert set(threads()) == {1}
        with factor_blas():
            assert threads() == before               # never more than the libraries ran
        assert set(threads()) == {1}
    with factor_blas():                              # outside a solve: nothing changes
        assert threads() == before
    with threadpoolctl.threadpool_limits(1, user_api="blas"), blas_solve(4), factor_blas():
        assert set(threads()) == {1}                  # the caller's limit holds
    assert threads() == before


def test_blas_threads_only_ever_lowers():
    """blas_threads(limit) gives the BLAS libraries at most `limit` threads and never more than
    they run now: raising them past the cores oversubscribes (on two cores, four BLAS threads
    took pilot87 from 2.3 to 66 s)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import scipy.linalg  # noqa: F401  (scipy's own BLAS loaded)
    from glgpgpu.parallel import blas_threads

    def threads():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    before = threads()
    with blas_threads(10 ** 6):
        assert threads() == before
    with blas_threads(1):
        assert set(threads()) == {1}
    with threadpoolctl.threadpool_limits(1, user_api="blas"), blas_threads(10 ** 6):
        assert set(threads()) == {1}
    assert threads() == before


def test_auto_factors_a_small_problem_on_the_host_and_says_so(monkeypatch):
    """device="auto" (the default): afiro's factor is a few hundred flops, so the host's
    float64 factor takes it -- no GL -- and res.stats says where and why."""
    from glgpgpu.gl import context
    monkeypatch.setattr(context, "get_context", lambda *a, **k: pytest.fail("auto opened GL for afiro"))
    res = glgpgpu.solve_mps(lp_table3.data_dir() / "afiro.mps.gz")
    assert res.status == "optimal"
    assert res.stats["device"] == "cpu64" and res.stats["device_asked"] == "auto"
    assert 0 < res.stats["factor_flops"] <= 1e4 and res.stats["device_reason"] == "flops"


def test_auto_without_gl_takes_the_host_and_says_so(monkeypatch):
    """A problem auto's count sends to the GPU, on a machine where no GL context can be
    made: the host's float64 factor solves it, with a warning naming why, and res.stats
    says so; device="gpu" asked outright still raises."""
    from glgpgpu.errors import GLUnavailableError
    from glgpgpu.solvers.lp import mixed
    from glgpgpu.solvers.lp.mixed.device import Choice

    def no_gl(ctx=None):
        raise GLUnavailableError("no EGL display (a stand-in)")
    monkeypatch.setattr(mixed, "choose_device",
                        lambda A, counted=float("nan"), gpu_float64=False, order=None: Choice("gpu", 1e12, None))
    monkeypatch.setattr(mixed, "resolve", no_gl)
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    with pytest.warns(RuntimeWarning, match="no OpenGL context"):
        res = glgpgpu.solve_mps(path)
    assert res.status == "optimal" and res.stats["device"] == "cpu64" and res.stats["device_reason"] == "no GL"
    with pytest.raises(GLUnavailableError):
        glgpgpu.solve_mps(path, device="gpu")


@pytest.mark.parametrize("software", [True, False])
def test_auto_takes_the_host_where_the_renderer_is_software(ctx, monkeypatch, software):
    """A problem auto's count sends to the GPU (forced here) stays on the host where the
    GL renderer is software (llvmpipe draws on the same CPU, in float32: dfl001 took 151 s
    so against 12 s by the host's factor) and goes to the GPU where it is not; res.stats
    says which and why, and the answer is the same."""
    from glgpgpu.gl.context import Capabilities
    from glgpgpu.solvers.lp import mixed
    from glgpgpu.solvers.lp.mixed.device import Choice
    monkeypatch.setattr(mixed, "choose_device",
                        lambda A, counted=float("nan"), gpu_float64=False, order=None: Choice("gpu", 1e12, None))
    monkeypatch.setattr(Capabilities, "software", property(lambda self: software))
    path = lp_table3.data_dir() / "adlittle.mps.gz"
    res = glgpgpu.solve_mps(path, ctx=ctx)
    assert res.status == "optimal" and res.stats["device_asked"] == "auto"
    if software:
        assert res.stats["device"] == "cpu64" and res.stats["device_reason"] == "software renderer"
    else:
        assert res.stats["device"] == "gpu" and res.stats["device_reason"] == "flops"
    ref = glgpgpu.solve_mps(path, device="cpu64")
    assert abs(res.objective - ref.objective) <= 1e-8 * abs(ref.objective)
