"""LSSVC and LSSVR: the LS-SVM (lssvm.train) as scikit-learn estimators.

With scikit-learn installed (the [ml] extra) they derive from its BaseEstimator and
mixins and validate input as its estimators do (`validate_data`: NaN, infinity,
complex, sparse and shape errors in its words; `n_features_in_`; NotFittedError;
classification targets checked), so clone, GridSearchCV, Pipeline and
`check_estimator` work.  Without it they keep the same methods on a small base
class of their own (get_params / set_params, glgpgpu's own input checks).
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np

from .. import validate as check
from ..dispatch import METHODS
from .lssvm import KERNELS, decision_values, train

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted, validate_data
    HAVE_SKLEARN = True
except ImportError:                              # the lean install: the same estimators, plainer
    HAVE_SKLEARN = False
    try:                                         # installed, but older than the estimators need
        import sklearn as _sk
        import warnings as _w
        _w.warn(f"scikit-learn {_sk.__version__} is installed, but glgpgpu's LSSVC / LSSVR need scikit-learn "
                ">= 1.6 (sklearn.utils.validation.validate_data): they run without scikit-learn's machinery, "
                "so its tools (cross_val_score, GridSearchCV, Pipeline) will not work with them. "
                "Upgrade: pip install 'scikit-learn>=1.6' (or glgpgpu[ml]).", RuntimeWarning, stacklevel=2)
    except ImportError:
        pass

    class BaseEstimator:
        """get_params / set_params from __init__'s signature, as scikit-learn's."""

        def get_params(self, deep=True):
            names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
            return {n: getattr(self, n) for n in names}

        def set_params(self, **params):
            for k, v in params.items():
                if k not in self.get_params():
                    raise ValueError(f"invalid parameter {k!r} for {type(self).__name__}")
                setattr(self, k, v)
            return self

        def __repr__(self):
            return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.get_params().items())})"

    class ClassifierMixin:
        def score(self, X, y):
            return float(np.mean(self.predict(X) == np.asarray(y)))

    class RegressorMixin:
        def score(self, X, y):
            y = np.asarray(y, np.float64)
            u = ((y - self.predict(X)) ** 2).sum()
            v = ((y - y.mean()) ** 2).sum()
            return float(1 - u / v) if v > 0 else float("nan")

    def check_is_fitted(est):
        if not hasattr(est, "alpha_"):
            raise AttributeError(f"This {type(est).__name__} instance is not fitted yet; call fit first.")

    def check_classification_targets(y):
        if y.dtype.kind == "f" and not np.all(np.mod(y, 1) == 0):
            raise ValueError("Unknown label type: continuous. A classifier needs class labels.")

    def validate_data(est, X, y=None, reset=True, **_):
        X = check.array(X, "X", 2, np.float64)
        if reset:
            est.n_features_in_ = X.shape[1]
        elif X.shape[1] != est.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(est).__name__} is expecting "
                             f"{est.n_features_in_} features as input.")
        if y is None:
            return X
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn("A column-vector y was passed when a 1d array was expected; it is raveled.",
                          UserWarning, stacklevel=3)
            y = y.ravel()
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must be 1-D with one label per row of X ({X.shape[0]}), got shape {y.shape}")
        return X, y


#: the largest gamma the scaled problem takes (a float32 uniform; e^(-1e30 d^2) is 0 for any
#: two distinct scaled points, as e^(-gamma s^2 d^2) is for the data as given)
GAMMA_MOST = 1e30


class _LSSVM(BaseEstimator):
    """What the LS-SVM estimators share: hyperparameters, training, the decision values.

    kernel "rbf" | "poly" | "linear"; C the regularization (H = K + I/C); gamma a
    positive number, "scale" (1 / (n_features X.var())) or "auto" / None (1 / n_features),
    as scikit-learn's SVC; solver "cholesky" (the GPU's Cholesky, refined to float64) or
    "cg" (PLSSVM's conjugate gradients on the GPU, float32); method the Cholesky's
    kernels ("auto", "paper", "blocked", "compute"); client a dask.distributed Client:
    the float32 factor's tiles (order at most `tile`) made, factored and kept on its
    workers' GPUs (glgpgpu.distributed), the float64 refinement here."""

    def __init__(self, kernel="rbf", C=1.0, gamma=None, degree=3, coef0=0.0, jitter=0.0, solver="cholesky",
                 method="auto", packed=False, tol=1e-12, cg_tol=1e-3, cg_max_iter=None, ctx=None, client=None,
                 tile=None):
        self.kernel, self.C, self.gamma, self.degree, self.coef0 = kernel, C, gamma, degree, coef0
        self.jitter, self.solver, self.method, self.packed = jitter, solver, method, packed
        self.tol, self.cg_tol, self.cg_max_iter, self.ctx = tol, cg_tol, cg_max_iter, ctx
        self.client, self.tile = client, tile

    def _params(self, X):
        check.choice(self.kernel, "kernel", KERNELS)
        check.choice(self.solver, "solver", ("cholesky", "cg"))
        check.choice(self.method, "method", METHODS)
        C = check.real(self.C, "C", 0.0, np.inf)
        d = X.shape[1]
        if self.gamma is None or (isinstance(self.gamma, str) and self.gamma == "auto"):
            gamma = 1.0 / d
        elif isinstance(self.gamma, str) and self.gamma == "scale":
            var = float(X.var())
            gamma = 1.0 / (d * var) if var > 0 else 1.0
        elif isinstance(self.gamma, str):
            raise ValueError(f"gamma must be a positive number, 'scale' or 'auto', not {self.gamma!r}")
        else:
            gamma = check.real(self.gamma, "gamma", 0.0, np.inf)
        if self.client is not None and self.solver != "cholesky":
            raise ValueError("client= runs the Cholesky solver on the cluster; solver='cg' is one GPU's")
        if self.tile is not None:
            check.integer(self.tile, "tile", 1)
        if self.cg_max_iter is not None:
            check.integer(self.cg_max_iter, "cg_max_iter", 1)
        check.context(self.ctx)
        degree = check.integer(self.degree, "degree", 1, 64)
        coef0 = check.real(self.coef0, "coef0", -np.inf, np.inf)
        check.real(self.jitter, "jitter", 0.0, np.inf, open_lo=False)
        check.real(self.cg_tol, "cg_tol", 0.0, 1.0)
        check.flag(self.packed, "packed")
        return C, gamma, degree, coef0

    def _fit(self, X, Y, *, track=False):
        if X.shape[0] < 2:
            raise ValueError(f"Found array with {X.shape[0]} sample(s) (shape={X.shape}) while a minimum of 2 "
                             "is required: an LS-SVM needs two or more training points.")
        check.flag(track, "track")
        # the rbf kernel is translation-invariant: train and predict on data centred by the
        # training mean (in float64), so features far from the origin lose nothing to the
        # float32 kernel matrix or to |x|^2 + |y|^2 - 2 x.y
        raw = X
        self._shift = X.mean(axis=0) if self.kernel == "rbf" else np.zeros(X.shape[1])
        X = X - self._shift
        # and scaled by a power of two to a root-mean-square near 1 (exact): gamma x.y and
        # gamma |x - y|^2 are (gamma s^2) of the scaled data, so 1e-30 X and 1e200 X are the
        # same problem in float32 as X; the linear kernel's s^2 goes into C (alpha is X_'s)
        top = float(np.abs(X).max()) if X.size else 0.0
        rms = top * float(np.sqrt(np.mean(np.square(X / top)))) if top > 0 else 0.0    # no overflow at 1e200
        self._scale = float(np.exp2(np.round(np.log2(rms)))) if np.isfinite(rms) and rms > 0 else 1.0
        X = X / self._scale
        C, gamma, degree, coef0 = self._params(raw / self._scale)      # 'scale': the variance of X as given
        with np.errstate(over="ignore"):                   # inf past float64: gamma capped, C as large
            s2 = float(np.float64(self._scale) ** 2)
        if self.kernel == "linear":
            C = min(C * s2, np.finfo(np.float64).max)
        elif not (isinstance(self.gamma, str) and self.gamma == "scale"):
            gamma = min(gamma * s2, GAMMA_MOST)            # 'scale' is already the scaled data's
        self._gamma = gamma
        self.X_ = X
        self.alpha_, self.b_, self.info_ = train(
            X, Y, kernel=self.kernel, gamma=gamma, degree=degree, coef0=coef0, C=C, jitter=self.jitter,
            packed=self.packed, method=self.method, solver=self.solver, ctx=self.ctx, tol=self.tol,
            cg_tol=self.cg_tol, cg_max_iter=self.cg_max_iter, track=track, client=self.client, tile=self.tile)
        return self

    def _decision(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        X = (np.asarray(X, np.float64) - self._shift) / self._scale
        F = decision_values(X, self.X_, self.alpha_, self.b_, kernel=self.kernel, gamma=self._gamma,
                            degree=self.degree, coef0=self.coef0, ctx=self.ctx)
        return F[:, 0] if F.shape[1] == 1 else F


class LSSVC(ClassifierMixin, _LSSVM):
    """A least-squares SVM classifier (a scikit-learn estimator): fit, predict,
    decision_function, score; two classes by the sign, more by one-vs-all (one
    factorization for all classes)."""

    def fit(self, X, y, *, track=False):
        X, y = validate_data(self, X, y)
        X = np.asarray(X, np.float64)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(f"y holds one class only ({self.classes_.tolist()}); a classifier needs two or more "
                             "classes")
        if len(self.classes_) == 2:
            Y = np.where(y == self.classes_[1], 1.0, -1.0)[:, None]
        else:
            Y = np.where(y[:, None] == self.classes_[None, :], 1.0, -1.0)
        return self._fit(X, Y, track=track)

    def decision_function(self, X):
        return self._decision(X)

    def predict(self, X):
        F = self._decision(X)
        if F.ndim == 1:
            return np.where(F >= 0, self.classes_[1], self.classes_[0])
        return self.classes_[np.argmax(F, axis=1)]


class LSSVR(RegressorMixin, _LSSVM):
    """Least-squares support vector regression (a scikit-learn estimator): the same
    bordered system with real targets (Suykens' LS-SVR), the same solvers; score R^2."""

    def fit(self, X, y, *, track=False):
        X, y = validate_data(self, X, y, y_numeric=True) if HAVE_SKLEARN else validate_data(self, X, y)
        X = np.asarray(X, np.float64)
        y = check.array(y, "y", 1, np.float64)
        return self._fit(X, y[:, None], track=track)

    def predict(self, X):
        return self._decision(X)
