"""LSSVC and LSSVR are scikit-learn estimators: scikit-learn's own checks
(parametrize_with_checks, every check of the installed version), and what its users
do with an estimator -- clone, GridSearchCV, cross_val_score, a Pipeline with a
StandardScaler, pickling."""
import pickle
import warnings

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.exceptions import DataConversionWarning, NotFittedError  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from glgpgpu import LSSVC, LSSVR  # noqa: E402


@parametrize_with_checks([LSSVC(), LSSVR()])
def test_sklearn_check(estimator, check, ctx):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)


def _blobs(rng, n=60):
    X = rng.standard_normal((n, 3))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    return X, y


def test_search_pipeline_clone_pickle(ctx, rng):
    X, y = _blobs(rng)
    search = GridSearchCV(LSSVC(), {"C": [0.1, 10.0], "gamma": ["scale", 0.5]}, cv=3).fit(X, y)
    assert search.best_score_ > 0.8
    assert cross_val_score(LSSVR(C=10.0), X, X[:, 0] + X[:, 1], cv=3).mean() > 0.8
    pipe = make_pipeline(StandardScaler(), LSSVC(C=10.0)).fit(X, y)
    assert pipe.score(X, y) > 0.9 and pipe.predict(X).shape == (len(y),)
    model = LSSVC(C=3.0, gamma="auto").fit(X, y)
    twin = clone(model)
    assert twin.get_params() == model.get_params() and not hasattr(twin, "alpha_")
    again = pickle.loads(pickle.dumps(model))
    assert np.array_equal(again.predict(X), model.predict(X))


def test_what_users_hit(ctx, rng):
    X, y = _blobs(rng)
    with pytest.raises(NotFittedError):
        LSSVC().predict(X)
    with pytest.raises(ValueError, match="Unknown label type"):
        LSSVC().fit(X, X[:, 0])                                       # continuous targets
    with pytest.warns(DataConversionWarning):
        LSSVC().fit(X, y[:, None])                                    # a column y: warned, raveled
    with pytest.raises(ValueError, match="[Cc]omplex"):
        LSSVC().fit(X + 1j, y)
    assert LSSVC().fit(X.astype(object), y).n_features_in_ == 3       # an object array of numbers
    assert not hasattr(LSSVR(), "decision_function")
    for gamma in ("scale", "auto"):
        assert LSSVC(gamma=gamma).fit(X, y).score(X, y) > 0.8
    with pytest.raises(ValueError, match="3 features"):
        LSSVC().fit(X, y).predict(X[:, :2])
