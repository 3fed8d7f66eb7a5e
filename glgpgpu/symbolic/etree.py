"""The column elimination tree (Yeralan et al. 2015, section 2.1.1, Figs. 1-2: "the
parent of node i is j if j > i is the smallest row index for which r_ij is
nonzero") -- the elimination tree of A^T A, found from A without forming A^T A
(Liu 1986; Davis, Direct Methods for Sparse Linear Systems, section 4.1,
cs_etree with ata) -- and its postorder, which makes every subtree, and so every
chain of a supernode, a contiguous range of columns."""
from __future__ import annotations

import numpy as np


def column_etree(A) -> np.ndarray:
    """parent[j] of every column of A (scipy.sparse, m x n) in A^T A's elimination
    tree; -1 at roots.  Row i links the columns it touches: each column k meets row i's
    previous column through the path-compressed ancestors."""
    A = A.tocsc()
    m, n = A.shape
    parent = np.full(n, -1, np.int64)
    ancestor = [-1] * n
    prev = [-1] * m                 # prev[i]: the last column seen in row i
    par = [-1] * n
    indptr, indices = A.indptr.tolist(), A.indices.tolist()
    for k in range(n):
        for p in range(indptr[k], indptr[k + 1]):
            r = indices[p]
            i = prev[r]
            while i != -1 and i < k:
                nxt = ancestor[i]
                ancestor[i] = k
                if nxt == -1:
                    par[i] = k
                i = nxt
            prev[r] = k
    parent[:] = par
    return parent


def postorder(parent: np.ndarray) -> np.ndarray:
    """post[k]: the node visited k-th by a depth-first walk that visits children in
    increasing order, every node after its children (CSparse's cs_post)."""
    n = parent.shape[0]
    children = [[] for _ in range(n)]
    roots = []
    for j, p in enumerate(np.asarray(parent).tolist()):
        (children[p] if p >= 0 else roots).append(j)
    post = []
    for r in roots:
        stack = [(r, 0)]
        while stack:
            node, i = stack[-1]
            if i < len(children[node]):
                stack[-1] = (node, i + 1)
                stack.append((children[node][i], 0))
            else:
                stack.pop()
                post.append(node)
    return np.asarray(post, np.int64)
