"""The LS-SVM's kernel functions in float64 on the host: k(x_i, y_j) for the refinement's
residuals where the GPU has no float64, prediction's small cases, and the tiles a Dask
worker makes (glgpgpu.distributed) -- one definition for all of them."""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist


def kernel64(X, Y, kernel, gamma, degree, coef0):
    """k(x_i, y_j) in float64 on the host (refinement residuals, prediction)."""
    if kernel == "rbf":
        return _rbf64(X, Y, gamma)
    G = X @ Y.T
    if kernel == "linear":
        return G
    if kernel == "poly":
        return (gamma * G + coef0) ** degree


def _rbf64(X, Y, gamma):
    """|x|^2 + |y|^2 - 2 x.y (BLAS) loses ~1e-16 (|x|^2 + |y|^2) to cancellation, which gamma
    multiplies: where that could pass ~1e-14 the squared distances are summed directly."""
    xx, yy = (X * X).sum(1), (Y * Y).sum(1)
    if gamma * (xx.max(initial=0.0) + yy.max(initial=0.0)) > EXPANSION_MOST:
        return np.exp(-gamma * cdist(X, Y, "sqeuclidean"))
    return np.exp(-gamma * np.maximum(xx[:, None] + yy[None, :] - 2 * (X @ Y.T), 0.0))


#: gamma (|x|^2 + |y|^2) up to which the rbf kernel's distances come from the expansion (error < ~1e-12)
EXPANSION_MOST = 1024.0


