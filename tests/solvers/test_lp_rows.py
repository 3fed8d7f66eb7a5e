"""rows.Rows: A by rows whose products with one float64 vector skip scipy's dispatch -- the same
numbers as scipy's own product, bit for bit, and scipy's path for anything else."""
import numpy as np
import pytest
import scipy.sparse as sp

from glgpgpu.solvers.lp.mixed.rows import Rows, rows


@pytest.mark.parametrize("m, n", [(1, 1), (2, 3), (3, 2), (17, 40), (64, 31)])
def test_rows_products_are_scipys_bit_for_bit(rng, m, n):
    A = sp.random(m, n, density=0.3, random_state=rng, format="coo")
    A = sp.coo_matrix((np.concatenate([A.data, [1.5]]), (np.concatenate([A.row, [0]]), np.concatenate([A.col, [0]]))),
                      shape=(m, n))                        # a duplicate entry: summed, as scipy sums it
    R, ref = rows(A), sp.csr_matrix(A)
    assert isinstance(R, Rows) and R.has_canonical_format
    v = rng.standard_normal(n)
    assert np.array_equal(R @ v, ref @ v)
    strided = rng.standard_normal((n, 3))[:, 1]             # a column view: not contiguous
    assert np.array_equal(R @ strided, ref @ strided)
    assert np.array_equal(R @ v.astype(np.float32), ref @ v.astype(np.float32))   # scipy's own path
    B = rng.standard_normal((n, 2))
    assert np.array_equal(R @ B, ref @ B)
    with pytest.raises(ValueError):
        R @ np.ones(n + 1)
