"""LS-SVM training on the rasterized Cholesky (issue 15, step 2) against a float64
numpy LS-SVM that solves the same bordered system directly."""
import numpy as np
import pytest

import glgpgpu
from glgpgpu.solvers.lssvm import kernel64


def blobs(k, per, seed, spread=1.2):
    """k Gaussian blobs around centres fixed by k (train and test share them)."""
    centres = np.random.default_rng(k).uniform(-4, 4, (k, 3))
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(c, spread, (per, 3)) for c in centres])
    return X, np.repeat(np.arange(k), per)


def reference_decision(X, Y, Xt, kernel, gamma, degree, coef0, C):
    """[0 1^T; 1 K + I/C] [b; alpha] = [0; y] in float64, per target column."""
    N = X.shape[0]
    M = np.zeros((N + 1, N + 1))
    M[0, 1:] = M[1:, 0] = 1
    M[1:, 1:] = kernel64(X, X, kernel, gamma, degree, coef0) + np.eye(N) / C
    sol = np.linalg.solve(M, np.vstack([np.zeros((1, Y.shape[1])), Y]))
    return kernel64(Xt, X, kernel, gamma, degree, coef0) @ sol[1:] + sol[0]


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("packed", [False, True], ids=["full", "packed"])
def test_predictions_match_the_float64_reference(ctx, kernel, k, packed):
    X, y = blobs(k, 30, seed=k)
    Xt, yt = blobs(k, 40, seed=k + 100)
    params = dict(kernel=kernel, C=5.0, gamma=0.2, degree=2, coef0=1.0)
    model = glgpgpu.LSSVC(**params, packed=packed).fit(X, y)
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
                                       (dict(kernel="sigmoid"), "kernel must be one of")])
def test_bad_hyperparameters(ctx, kw, match):
    X, y = blobs(2, 5, seed=1)
    with pytest.raises(ValueError, match=match):
        glgpgpu.LSSVC(**kw).fit(X, y)


def test_bad_data(ctx):
    X, y = blobs(2, 5, seed=1)
    with pytest.raises(ValueError, match="one class only"):
        glgpgpu.LSSVC().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="non-finite"):
        glgpgpu.LSSVC().fit(np.where(X > 3, np.nan, X), y)
    with pytest.raises(ValueError, match="one label per row"):
        glgpgpu.LSSVC().fit(X, y[:-1])
    model = glgpgpu.LSSVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])
