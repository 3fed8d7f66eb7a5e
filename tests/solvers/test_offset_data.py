"""Data far from the origin (prices, years): the rbf kernel is translation-invariant, so
the kernel matrix and the LS-SVM work on centred data -- no |x|^2 + |y|^2 - 2 x.y
cancellation in float32 (kernel_matrix) or float64 (the LS-SVM's host side)."""
import numpy as np
import pytest

import glgpgpu
from glgpgpu.solvers.lssvm import kernel64


@pytest.mark.parametrize("offset", [1e3, 1e6])
@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_kernel_matrix_on_offset_data(ctx, rng, offset, method):
    Z = rng.standard_normal((30, 3))
    K = glgpgpu.kernel_matrix(offset + Z, kernel="rbf", gamma=0.5, method=method)
    Zc = Z - Z.mean(0)
    want = np.tril(kernel64(Zc, Zc, "rbf", 0.5, 3, 0.0))
    assert np.abs(K - want).max() <= 1e-5                 # the float32 bound of the centred problem


@pytest.mark.parametrize("offset", [1e3, 1e6])
def test_lssvc_on_offset_data_agrees_with_float64(ctx, rng, offset):
    Z = rng.standard_normal((60, 2))
    y = (Z[:, 0] * Z[:, 1] > 0).astype(int)
    Zt = rng.standard_normal((40, 2))
    ref = glgpgpu.LSSVC(gamma=1.0, C=10.0).fit(Z, y)        # centred data: the float64 reference
    got = glgpgpu.LSSVC(gamma=1.0, C=10.0).fit(offset + Z, y)
    f_ref, f_got = ref.decision_function(Zt), got.decision_function(offset + Zt)
    assert np.abs(f_got - f_ref).max() <= 1e-6 * np.abs(f_ref).max()
    assert np.mean(got.predict(offset + Zt) == ref.predict(Zt)) >= 0.995
