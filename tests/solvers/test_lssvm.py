"""LS-SVM training on the rasterized Cholesky (issue 15, step 2) against a float64
numpy LS-SVM that solves the same bordered system directly."""
import numpy as np
import pytest

import glgpgpu
from support import reference_decision


def blobs(k, per, seed, spread=1.2):
    """k Gaussian blobs around centres fixed by k (train and test share them)."""
    centres = np.random.default_rng(k).uniform(-4, 4, (k, 3))
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(c, spread, (per, 3)) for c in centres])
    return X, np.repeat(np.arange(k), per)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("packed, method", [(False, "paper"), (True, "paper"), (False, "blocked")],
                         ids=["full", "packed", "blocked"])
def test_predictions_match_the_float64_reference(ctx, kernel, k, packed, method):
    X, y = blobs(k, 30, seed=k)
    Xt, yt = blobs(k, 40, seed=k + 100)
    params = dict(kernel=kernel, C=5.0, gamma=0.2, degree=2, coef0=1.0)
    model = glgpgpu.LSSVC(**params, packed=packed, method=method).fit(X, y)
    assert model.info_["converged"], model.info_["refinement"]
    Y = np.where(y == 1, 1.0, -1.0)[:, None] if k == 2 else np.where(y[:, None] == np.arange(k), 1.0, -1.0)
    F = reference_decision(X, Y, Xt, kernel, 0.2, 2, 1.0, 5.0)
    want = np.where(F[:, 0] >= 0, 1, 0) if k == 2 else np.argmax(F, axis=1)
    agree = np.mean(model.predict(Xt) == want)
    assert agree >= 0.995, agree
    # the refined decision values themselves agree to float64 accuracy
    got = model.decision_function(Xt)
    assert np.allclose(got.reshape(F.shape), F, rtol=1e-8, atol=1e-8 * np.abs(F).max())
    assert model.score(Xt, yt) >= 0.5


@pytest.mark.parametrize("kw, match", [(dict(C=0.0), "C must be in"), (dict(C=-1.0), "C must be in"),
                                       (dict(gamma=0.0), "gamma must be in"), (dict(degree=0), "degree must be in"),
                                       (dict(kernel="sigmoid"), "kernel must be one of"),
                                       (dict(jitter=-1e-3), "jitter must be in"),
                                       (dict(solver="lu"), "solver must be one of"),
                                       (dict(cg_tol=0.0), "cg_tol must be in"),
                                       (dict(method="fast"), "method must be one of")])
def test_bad_hyperparameters(ctx, kw, match):
    X, y = blobs(2, 5, seed=1)
    with pytest.raises(ValueError, match=match):
        glgpgpu.LSSVC(**kw).fit(X, y)


def test_bad_data(ctx):
    X, y = blobs(2, 5, seed=1)
    with pytest.raises(ValueError, match="one class only"):
        glgpgpu.LSSVC().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="NaN"):                      # scikit-learn's words
        glgpgpu.LSSVC().fit(np.where(X > 3, np.nan, X), y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        glgpgpu.LSSVC().fit(X, y[:-1])
    model = glgpgpu.LSSVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])


def test_jitter_is_refined_away(ctx):
    """The thesis's jitter lifts the diagonal of the float32 factor only: refinement
    against K + I/C itself removes its bias (decision values as without it)."""
    X, y = blobs(2, 30, seed=5)
    Xt, _ = blobs(2, 20, seed=6)
    a = glgpgpu.LSSVC(gamma=0.2, C=5.0).fit(X, y)
    b = glgpgpu.LSSVC(gamma=0.2, C=5.0, jitter=0.05).fit(X, y)
    assert b.info_["converged"] and len(b.info_["refinement"]) > len(a.info_["refinement"]) - 1
    assert np.allclose(a.decision_function(Xt), b.decision_function(Xt), rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("packed", [False, True], ids=["full", "packed"])
def test_cg_on_the_gpu_converges_and_its_drift_is_measured(ctx, packed):
    """CG with a well-conditioned K + I/C (C small) reaches its tolerance; the
    recursive and the true float64 residual are both recorded per iteration (the
    thesis's drift), and the gap between them stays at float32 rounding level."""
    X, y = blobs(2, 25, seed=3)
    model = glgpgpu.LSSVC(gamma=0.5, C=1.0, solver="cg", cg_tol=1e-5, packed=packed).fit(X, y, track=True)
    assert model.info_["converged"]
    for ci in model.info_["cg"]:
        assert ci.iterations == len(ci.residuals) == len(ci.true_residuals) == len(ci.errors) <= 50
        assert ci.residuals[-1] <= 1e-5
        drift = abs(ci.true_residuals[-1] - ci.residuals[-1])
        assert drift <= 50 * 50 * 2.0 ** -24        # N * cond-free float32 level: measured, bounded loosely
        assert ci.errors[-1] <= 1e-3
    chol = glgpgpu.LSSVC(gamma=0.5, C=1.0).fit(X, y)
    Xt, _ = blobs(2, 30, seed=4)
    assert np.mean(model.predict(Xt) == chol.predict(Xt)) >= 0.95


def test_cg_bounded_iterations_reports_not_converged(ctx):
    X, y = blobs(2, 25, seed=3)
    from glgpgpu.solvers.lssvm import ConvergenceWarning
    with pytest.warns(ConvergenceWarning, match="C = 100"):
        model = glgpgpu.LSSVC(gamma=0.5, C=100.0, solver="cg", cg_tol=1e-7, cg_max_iter=2).fit(X, y)
    assert not model.info_["converged"] and model.info_["iterations"] == [2, 2]


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_lssvr_matches_the_float64_reference(ctx, rng, method):
    X = rng.uniform(-3, 3, (60, 2))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.05 * rng.standard_normal(60)
    model = glgpgpu.LSSVR(gamma=0.5, C=10.0, method=method).fit(X, y)
    Xt = rng.uniform(-3, 3, (40, 2))
    F = reference_decision(X, y[:, None], Xt, "rbf", 0.5, 3, 0.0, 10.0)[:, 0]
    assert np.allclose(model.predict(Xt), F, rtol=1e-8, atol=1e-8 * np.abs(F).max())
    assert model.score(X, y) > 0.9


def test_the_norm_rides_along_with_the_first_residual_product(ctx, monkeypatch):
    """||H||_inf (the backward error's scale) comes from a column of ones added to the first
    residual's product, not from a product of its own: a fit makes one product per
    refinement step, and the norm is the float64 row sums' largest plus 1/C."""
    from glgpgpu.solvers import lssvm
    rng = np.random.default_rng(3)
    X = rng.standard_normal((120, 3))
    y = np.sign(X[:, 0] + 0.1)
    shapes, norms = [], []
    real_products, real_backward = lssvm.kernel_products, lssvm._backward

    def counted(*a, **kw):
        inner = real_products(*a, **kw)

        class Counted:
            N = getattr(inner, "N", X.shape[0])

            def __call__(self, Z, **k):
                shapes.append(np.shape(Z))
                return inner(Z, **k)

            def release(self):
                inner.release()
        return Counted()

    def backward(H, R, Z, rhs):
        norms.append(H.norm)
        return real_backward(H, R, Z, rhs)
    monkeypatch.setattr(lssvm, "kernel_products", counted)
    monkeypatch.setattr(lssvm, "_backward", backward)
    alpha, b, info = lssvm.train(X, y[:, None], kernel="rbf", gamma=0.5, C=10.0, ctx=ctx)
    assert info["converged"]
    assert len(shapes) == len(info["refinement"])                 # no product for the norm alone
    assert shapes[0] == (120, 3) and all(s == (120, 2) for s in shapes[1:])
    K = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    assert np.isclose(norms[0], K.sum(1).max() + 0.1, rtol=1e-12)
