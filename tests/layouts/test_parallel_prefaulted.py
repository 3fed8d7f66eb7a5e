"""parallel.Prefaulted: a result array whose pages the host's threads fault in while the
GPU works.  Its numbers are np.empty's (the caller writes them all); the touch writes one
zero a page, and `.array` waits for it."""
import numpy as np
import pytest

from glgpgpu import parallel


@pytest.mark.parametrize("shape, dtype", [((3000, 1001), np.float32), ((1000, 1500), np.float64), ((7, 5), np.float32)])
def test_a_prefaulted_array_is_the_shape_asked_with_one_zero_a_page(monkeypatch, shape, dtype):
    monkeypatch.setattr(parallel, "workers", lambda: 3)
    p = parallel.Prefaulted(shape, dtype)
    a = p.array
    assert a.shape == shape and a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable
    assert p.array is a
    if a.nbytes >= 8 << 20:                    # touched: every piece's first number, one a page after it
        flat = a.reshape(-1)
        step = 4096 // a.itemsize
        for piece in np.array_split(np.arange(flat.size), 3):
            assert (flat[piece[::step]] == 0).all()


@pytest.mark.parametrize("shape", [(3000, 1001), (5, 3)])
def test_a_prefaulted_array_asked_zero_is_all_zero(monkeypatch, shape):
    """Even where np.empty hands back memory that held numbers (reused, not fresh pages)."""
    monkeypatch.setattr(parallel, "workers", lambda: 3)
    full = np.full
    monkeypatch.setattr(np, "empty", lambda shape, dtype=float: full(shape, 7, dtype))
    a = parallel.Prefaulted(shape, np.float32, zero=True).array
    assert a.shape == shape and not a.any()
