"""Column singletons (SuiteSparseQR's first step, before the fill-reducing order;
Davis 2011, "Algorithm 915, SuiteSparseQR", section 2.2).

A column with one entry in the rows not yet taken is a singleton: that row is its
row of R as it stands in A -- no arithmetic, no fill -- and is taken out of the rest
of the matrix, which may make more singletons.  A column with no entry left is a
dead singleton: no row of R.  The rows left have no entry in any singleton column,
so A with its rows and columns permuted is [[A11, A12], [0, A2]], A11 upper
triangular; only A2 needs the multifrontal factorization.  Without this step the
column elimination tree (the Cholesky of A^T A) carries a singleton's row into its
parents as fill that a QR never makes: 2.6x the entries of R on bnl2^T.
"""
from __future__ import annotations

from collections import deque

import numpy as np
import scipy.sparse as sp


def column_singletons(A, tol: float = 0.0) -> tuple:
    """(cols, rows): the singleton columns of A (scipy.sparse) in the order they were
    found, breadth first, and each one's row (-1: dead).  An entry counts as a
    column's only one where |a| > tol (SuiteSparseQR's rule)."""
    A = sp.csc_matrix(A)
    A.sum_duplicates()
    m, n = A.shape
    if not n:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    ip, ind, val = A.indptr, A.indices, np.abs(A.data)
    degree = np.diff(ip).astype(np.int64)
    AT = A.T.tocsc()                               # each row's columns
    rp, rind = AT.indptr, AT.indices
    taken = np.zeros(m, bool)
    queued = np.zeros(n, bool)
    cols, rows = [], []
    queue = deque()
    for j in np.flatnonzero(degree <= 1).tolist():
        if degree[j] == 0 or val[ip[j]] > tol:
            queued[j] = True
            queue.append(j)
    while queue:
        j = queue.popleft()
        row = -1
        for p in range(ip[j], ip[j + 1]):           # its one live entry, if any is left
            if not taken[ind[p]] and val[p] > tol:
                row = int(ind[p])
                break
        cols.append(j)
        rows.append(row)
        if row < 0:
            continue
        taken[row] = True
        for k in rind[rp[row]:rp[row + 1]].tolist():
            if queued[k]:
                continue
            degree[k] -= 1
            if degree[k] == 0:
                queued[k] = True
                queue.append(k)
            elif degree[k] == 1:
                live = [p for p in range(ip[k], ip[k + 1]) if not taken[ind[p]]]
                if val[live[0]] > tol:
                    queued[k] = True
                    queue.append(k)
    return np.asarray(cols, np.int64), np.asarray(rows, np.int64)


def leading_singletons(A, tol: float = 0.0) -> np.ndarray:
    """The rows of A's leading run of singleton columns in A's own order (-1: dead):
    column j is one while it has at most one entry (|a| > tol) in the rows the columns
    before it did not take (SuiteSparseQR's spqr_1fixed, for a given order)."""
    A = sp.csc_matrix(A)
    A.sum_duplicates()
    ip, ind, val = A.indptr, A.indices, np.abs(A.data)
    taken = np.zeros(A.shape[0], bool)
    rows = []
    for j in range(A.shape[1]):
        live = [p for p in range(ip[j], ip[j + 1]) if not taken[ind[p]]]
        if not live:
            rows.append(-1)
        elif len(live) == 1 and val[live[0]] > tol:
            rows.append(int(ind[live[0]]))
            taken[ind[live[0]]] = True
        else:
            break
    return np.asarray(rows, np.int64)
