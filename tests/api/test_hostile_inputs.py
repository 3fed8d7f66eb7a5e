"""Arguments checked at the door: what a hostile-input battery found accepted, or failing
deep inside, now raises an error that names the problem."""
import numpy as np
import pytest

import glgpgpu


@pytest.mark.parametrize("m", [-3, 0, 1.5, "2", True, None])
def test_packed_order_must_be_a_positive_integer(m):
    with pytest.raises(ValueError, match="positive integer"):
        glgpgpu.packed_shape(m)
    with pytest.raises(ValueError, match="positive integer"):
        glgpgpu.unpack(np.ones((1, 1)), m)


def test_masked_arrays_are_refused(ctx):
    A = np.ma.masked_array(np.eye(3) * 2, mask=np.eye(3) == 0)
    with pytest.raises(TypeError, match="masked"):
        glgpgpu.cholesky(A)
    with pytest.raises(TypeError, match="masked"):
        glgpgpu.adat(A, np.ones(3))


@pytest.mark.parametrize("bounds", [5, {"x": (0, 1)}, "0,1"])
def test_linprog_bounds_in_scipys_forms_only(ctx, bounds):
    with pytest.raises(ValueError, match="bounds"):
        glgpgpu.linprog([1.0, 2.0], bounds=bounds)


def test_linprog_callback_must_be_callable(ctx):
    with pytest.raises(TypeError, match="callable"):
        glgpgpu.linprog([1.0, 2.0], callback=3)


@pytest.mark.parametrize("path, error", [("data", ValueError), (123, TypeError)])
def test_mps_path_must_be_a_file(ctx, path, error):
    with pytest.raises(error):
        glgpgpu.solve_mps(path)
