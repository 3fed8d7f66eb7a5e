"""A sparse matrix by rows whose product with one float64 vector goes straight to scipy's
compiled kernel (csr_matvec): the interior-point iteration makes dozens of such products an
iteration, where scipy's operator dispatch cost about as much as a small product itself
(benchmarks/RESULTS.md, round 25).  The same kernel as `A @ v`, so the same numbers."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

try:
    from scipy.sparse._sparsetools import csr_matvec
except ImportError:                      # a scipy without it: the operator's own path
    csr_matvec = None


def rows(A) -> "Rows":
    """A (scipy.sparse or dense) as Rows, float64, duplicates summed and indices sorted."""
    R = Rows(sp.csr_matrix(A, dtype=np.float64))
    R.sum_duplicates()
    return R


class Rows(sp.csr_matrix):
    """scipy.sparse.csr_matrix with `@` of a 1-D float64 array done directly (made by `rows`;
    scipy's own methods may build more of them, which behave as any csr_matrix)."""

    def __matmul__(self, other):
        if (csr_matvec is not None and type(other) is np.ndarray and other.ndim == 1
                and other.dtype == np.float64 and other.shape[0] == self.shape[1]):
            out = np.zeros(self.shape[0])
            csr_matvec(self.shape[0], self.shape[1], self.indptr, self.indices, self.data, other, out)
            return out
        return super().__matmul__(other)
