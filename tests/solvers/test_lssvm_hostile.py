"""The LS-SVM never silently wrong: ill-conditioned H, data far from 1, kernels float32
cannot factor, bad parameters -- each right against a float64 LS-SVM, or warned / named."""
import warnings

import numpy as np
import pytest

import glgpgpu
from support import reference_decision
from glgpgpu.solvers.lssvm import ConvergenceWarning, kernel64


def _data(n=80, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.standard_normal(n) > 0.3, 1, 0)
    return X, y


def _close(model, X, Y, Xt, C, gamma, kernel="rbf", degree=3, coef0=0.0, rtol=1e-5):
    ref = reference_decision(X, Y, Xt, kernel, gamma, degree, coef0, C)[:, 0]
    got = model.decision_function(Xt) if hasattr(model, "decision_function") else model.predict(Xt)
    assert np.abs(got - ref).max() <= rtol * np.abs(ref).max(), np.abs(got - ref).max() / np.abs(ref).max()


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_ill_conditioned_h_is_solved_to_float64_or_warns(ctx, method):
    """rbf gamma 1e-3 with C = 1e6 (breast_cancer's failing case: cond ~1e8): refinement
    stalls; preconditioned CG finishes it -- right, or a ConvergenceWarning, never silence."""
    X, y = _data(120, 6, seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = glgpgpu.LSSVC(gamma=1e-3, C=1e6, method=method, ctx=ctx).fit(X, y)
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert model.info_["converged"] != warned
    if not warned:
        Y = np.where(y == 1, 1.0, -1.0)[:, None]
        _close(model, X, Y, X[:30], 1e6, 1e-3, rtol=1e-5)


@pytest.mark.parametrize("scale", [1e-30, 1e-6, 1e4, 1e6, 1e200])
def test_rbf_features_far_from_one_give_the_same_model(ctx, scale):
    X, y = _data()
    Y = np.where(y == 1, 1.0, -1.0)[:, None]
    for gamma in ("auto", "scale"):
        model = glgpgpu.LSSVC(gamma=gamma, C=10.0, ctx=ctx).fit(scale * X, y)
        assert model.info_["converged"]
        base = glgpgpu.LSSVC(gamma=gamma, C=10.0, ctx=ctx).fit(X, y)
        if gamma == "scale":         # scale-invariant: the same decision values as for X itself
            assert np.allclose(model.decision_function(scale * X[:20]), base.decision_function(X[:20]),
                               rtol=1e-6, atol=1e-8)
        elif scale in (1e4, 1e6):    # gamma 1/d on data this large: K ~ I, the float64 model is known
            _close(model, scale * X, Y, scale * X[:20], 10.0, 1.0 / X.shape[1])


def test_lssvr_with_tiny_targets_is_as_accurate_as_with_ones(ctx):
    X, _ = _data(60, 3)
    y = np.sin(X[:, 0]) + X[:, 1]
    for s in (1e-30, 1.0, 1e30):
        model = glgpgpu.LSSVR(gamma=0.5, C=10.0, ctx=ctx).fit(X, s * y)
        _close(model, X, s * y[:, None], X[:15], 10.0, 0.5)


def test_poly_kernel_on_unscaled_data_fits_or_names_the_remedy(ctx):
    """scikit-learn's check data: X ~ N(100, 1); H is SPD in float64 but not in float32."""
    rng = np.random.default_rng(0)
    X = 100 + rng.standard_normal((30, 3))
    y = (X[:, 0] > 100).astype(int)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            model = glgpgpu.LSSVC(kernel="poly", gamma=1.0 / 3, C=1.0, ctx=ctx).fit(X, y)
    except np.linalg.LinAlgError as exc:
        assert "Standardise X" in str(exc)
        return
    Y = np.where(y == 1, 1.0, -1.0)[:, None]
    if model.info_["converged"]:
        ref = reference_decision(X, Y, X, "poly", 1.0 / 3, 3, 0.0, 1.0)[:, 0]
        assert np.mean(np.sign(model.decision_function(X)) == np.sign(ref)) == 1.0


@pytest.mark.parametrize("kw, match", [
    (dict(solver="cg", cg_max_iter=0), "cg_max_iter"),
    (dict(solver="cg", cg_max_iter=-1), "cg_max_iter"),
    (dict(ctx="gpu"), "ctx"),
])
def test_bad_parameters_are_named(kw, match):
    X, y = _data(20, 2)
    with pytest.raises((ValueError, TypeError), match=match):
        glgpgpu.LSSVC(**kw).fit(X, y)


def test_track_must_be_a_flag(ctx):
    X, y = _data(20, 2)
    with pytest.raises((ValueError, TypeError), match="track"):
        glgpgpu.LSSVC(ctx=ctx).fit(X, y, track="yes")


def test_products_in_float64_match_the_host(ctx, monkeypatch):
    """K Z as the refinement makes it -- on the GPU in float64 where the driver has compute
    shaders, else on the host -- and the host's own two ways (K kept whole, or made a block
    of rows at a time), all against kernel64(X, X) @ Z."""
    from glgpgpu.compute.kernel_products import KernelProducts
    from glgpgpu.dispatch import float64_kernels
    from glgpgpu.solvers import lssvm
    rng = np.random.default_rng(0)
    for kernel, n, k in (("rbf", 1, 1), ("rbf", 67, 3), ("poly", 33, 17), ("linear", 2, 2)):
        X, Z = 2 * rng.standard_normal((n, 5)), rng.standard_normal((n, k))
        ref = kernel64(X, X, kernel, 1 / 3, 3, 1 / 7) @ Z
        made = lssvm.kernel_products(X, kernel=kernel, gamma=1 / 3, degree=3, coef0=1 / 7, ctx=ctx)
        assert isinstance(made, KernelProducts) == (float64_kernels(ctx) is not None)
        monkeypatch.setattr(lssvm.HostKernelProducts, "CACHE_BYTES", 0)          # a block of rows at a time
        monkeypatch.setattr(lssvm.HostKernelProducts, "BLOCK_BYTES", 8 * 7 * max(n, 1))
        blocked = lssvm.HostKernelProducts(X, kernel=kernel, gamma=1 / 3, degree=3, coef0=1 / 7)
        monkeypatch.undo()
        whole = lssvm.HostKernelProducts(X, kernel=kernel, gamma=1 / 3, degree=3, coef0=1 / 7)
        assert blocked.K is None and whole.K is not None
        try:
            for products in (made, blocked, whole):
                assert np.abs(products(Z) - ref).max() <= 1e-13 * max(1.0, np.abs(ref).max())
        finally:
            made.release()
