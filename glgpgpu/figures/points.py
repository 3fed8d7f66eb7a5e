"""Sparse A·D·Aᵀ by points -- beyond the papers, for the LP's normal matrix.

Fig. 2(b) adds a whole column's outer product: m(m+1)/2 fragments per column of
A, whatever its sparsity.  An entry of C = A·D·Aᵀ is a sum over the columns j
where both rows are nonzero, C(i, k) = Σ_j d_j a_ij a_kj, so each nonzero pair
(i ≥ k) of a column can be drawn as one *point* on the texel of C(i, k),
carrying a_ij, a_kj and j; with additive blending the points
sum into C: Σ_j nnz_j(nnz_j + 1)/2 fragments instead of n·m(m+1)/2.  The pairs
depend on A only, so the vertex table is built once per A and only d (and the
row scaling s) change between draws.

A point's vertex: V = the centre of C(i, k)'s texel; T0 = (a_ij, a_kj, j);
T1 = (i + .5, k + .5, component) -- the rows, for the row scaling, and which
RGBA component holds C(i, k) (0 in an R32F texture).  The kernel forms
(a_ij √d_j s_i)(a_kj √d_j s_k): with s scaling C's diagonal to one, each factor
is at most 1 in size, so no product leaves float32's range.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .vertices import VERTEX_FLOATS


@dataclass
class Points:
    """A vertex table drawn as GL_POINTS: one fragment per vertex."""

    corners: np.ndarray          # (K, 8) float32: V, T0, T1
    label: str = ""
    names: tuple = field(default=("T0", "T1"))
    triangles: tuple = ()
    primitive: str = "points"

    @property
    def vertices(self) -> np.ndarray:
        return self.corners


def pair_count(A) -> int:
    """Σ_j nnz_j (nnz_j + 1) / 2: the points (fragments) of A's normal matrix."""
    c = np.diff(sp.csc_matrix(A).indptr).astype(np.int64)
    return int((c * (c + 1) // 2).sum())


def column_pairs(A):
    """(i, k, j, a_ij, a_kj) for every nonzero pair i >= k of every column j of A
    (duplicates summed first)."""
    A = sp.csc_matrix(A, dtype=np.float64)
    A.sum_duplicates()
    A.eliminate_zeros()
    counts = np.diff(A.indptr)
    out_i, out_k, out_j, out_a, out_b = [], [], [], [], []
    for c in np.unique(counts[counts > 0]):
        cols = np.flatnonzero(counts == c)
        base = A.indptr[cols][:, None] + np.arange(c)[None, :]        # (ncols, c) positions in A.data
        a, b = np.tril_indices(c)
        pa, pb = base[:, a].ravel(), base[:, b].ravel()
        out_i.append(A.indices[pa])
        out_k.append(A.indices[pb])
        out_j.append(np.repeat(cols, len(a)))
        out_a.append(A.data[pa])
        out_b.append(A.data[pb])
    if not out_i:
        z = np.zeros(0, np.int64)
        return z, z, z, np.zeros(0), np.zeros(0)
    i, k = np.concatenate(out_i), np.concatenate(out_k)
    if (i < k).any():
        raise AssertionError("CSC row indices must be sorted")   # sum_duplicates sorts them
    return i, k, np.concatenate(out_j), np.concatenate(out_a), np.concatenate(out_b)


def normal_points(A, texel, mirror_block: int = 0) -> Points:
    """The points of A·D·Aᵀ's lower triangle.  texel(i, k) -> (x, y, component) of
    C(i, k) in the target's layout (numpy arrays in, out).  mirror_block > 0: pairs
    i > k in the same mirror_block-wide diagonal block also land on C(k, i) (a
    layout whose kernels read whole diagonal blocks)."""
    i, k, j, a, b = column_pairs(A)
    if mirror_block:
        same = (i != k) & (i // mirror_block == k // mirror_block)
        i, k, j, a, b = (np.concatenate([i, k[same]]), np.concatenate([k, i[same]]), np.concatenate([j, j[same]]),
                         np.concatenate([a, b[same]]), np.concatenate([b, a[same]]))
    if len(j) and j.max() >= 2 ** 24:
        raise ValueError("A has more than 2^24 columns: a float32 vertex attribute cannot name them exactly")
    x, y, comp = texel(i, k)
    t = np.zeros((len(i), VERTEX_FLOATS), np.float32)
    t[:, 0], t[:, 1] = np.asarray(x) + .5, np.asarray(y) + .5
    t[:, 2], t[:, 3], t[:, 4] = a, b, j
    t[:, 5], t[:, 6], t[:, 7] = i + .5, k + .5, comp
    return Points(t, f"A D A^T by points: {len(t)} nonzero pairs")
