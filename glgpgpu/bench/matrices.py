"""Sparse test matrices for the multifrontal QR (Yeralan et al. 2015, Table III and
section 4): the NETLIB LPs' constraint matrices in the tall orientation, and
generators for the families of two of the paper's matrices, built exactly:

    chessboard(7, 8, 3)  ch7-8-b3, the boundary map d_3 of the 7 x 8 chessboard complex
                         (rows: sets of 4 non-attacking rooks, columns: sets of 3;
                         58,800 x 11,760, nnz 235,200)
    nug(20)              lp_nug20's matrix transposed: the QAP linear relaxation
                         (x_kl, y_ijkl = y_klij; 72,600 x 15,240, nnz 304,800)
    grid(40, 3)          [grad; eps I] on a 40^3 grid: 251,200 x 64,000, many fronts
"""
from __future__ import annotations

import itertools
import os
from math import comb, factorial
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..solvers.lp.problem import read_model


def netlib_at(path) -> sp.csc_matrix:
    """The constraint matrix of an MPS file, transposed when it has fewer rows than
    columns (the tall orientation the paper factors), as CSC float64."""
    lp = read_model(path)
    a = lp.a_matrix_
    A = sp.csc_matrix((np.array(a.value_), np.array(a.index_), np.array(a.start_)),
                      shape=(lp.num_row_, lp.num_col_))
    return (A.T if A.shape[0] < A.shape[1] else A).tocsc()


def chessboard(m: int, n: int, k: int) -> sp.csc_matrix:
    """The boundary map d_k of the m x n chessboard complex: rows are the sets of k+1
    non-attacking rooks, columns the sets of k, entry (-1)^i where column = row
    without its i-th rook (rooks ordered by row of the board)."""
    def faces(s):
        return [tuple(zip(r, c)) for r in itertools.combinations(range(m), s)
                for c in itertools.permutations(range(n), s)]
    cols = {f: j for j, f in enumerate(faces(k))}
    rows = faces(k + 1)
    assert len(rows) == comb(m, k + 1) * comb(n, k + 1) * factorial(k + 1)
    ri, ci, v = [], [], []
    for i, f in enumerate(rows):
        for t in range(k + 1):
            ri.append(i)
            ci.append(cols[f[:t] + f[t + 1:]])
            v.append(-1.0 if t % 2 else 1.0)
    return sp.csc_matrix((v, (ri, ci)), shape=(len(rows), len(cols)))


def nug(n: int) -> sp.csc_matrix:
    """The constraint matrix of the QAP linear relaxation (the LP of lp_nugNN),
    transposed: variables x_kl (n^2) and y_ijkl = y_klij for (i, j) < (k, l), i != k,
    j != l; rows sum_i x_il = 1, sum_l x_il = 1, and for each (k, l) and j != l:
    sum_{i != k} y_ijkl = x_kl, for each (k, l) and i != k: sum_{j != l} y_ijkl = x_kl."""
    def x(k, l):
        return k * n + l
    yid = {}
    for i, j, k, l in itertools.product(range(n), repeat=4):
        if i != k and j != l and (i, j) < (k, l):
            yid[(i, j, k, l)] = n * n + len(yid)
    def y(i, j, k, l):
        return yid[(i, j, k, l) if (i, j) < (k, l) else (k, l, i, j)]
    rows = [[(x(a, l), 1.0) for l in range(n)] for a in range(n)]          # sum_l x_al = 1
    rows += [[(x(a, l), 1.0) for a in range(n)] for l in range(n)]         # sum_a x_al = 1
    for k, l in itertools.product(range(n), repeat=2):
        rows += [[(x(k, l), -1.0)] + [(y(i, j, k, l), 1.0) for i in range(n) if i != k] for j in range(n) if j != l]
        rows += [[(x(k, l), -1.0)] + [(y(i, j, k, l), 1.0) for j in range(n) if j != l] for i in range(n) if i != k]
    ri = [r for r, row in enumerate(rows) for _ in row]
    ci = [c for row in rows for c, _ in row]
    v = [w for row in rows for _, w in row]
    r = len(rows)
    A = sp.csc_matrix((v, (ri, ci)), shape=(r, n * n + len(yid)))
    return A.T.tocsc()


def grid(n: int, dim: int = 2, eps: float = 0.01) -> sp.csc_matrix:
    """[grad; eps I] on an n^dim grid (forward differences along each axis): the
    least-squares problem of a smoothed field, (dim n^(dim-1) (n-1) + n^dim) x n^dim."""
    d1 = sp.diags([-np.ones(n - 1), np.ones(n - 1)], [0, 1], shape=(n - 1, n))
    eye = sp.identity(n)
    blocks = []
    for axis in range(dim):
        parts = [d1 if a == axis else eye for a in range(dim)]
        M = parts[0]
        for p in parts[1:]:
            M = sp.kron(M, p)
        blocks.append(M)
    blocks.append(eps * sp.identity(n ** dim))
    return sp.vstack(blocks).tocsc()


def netlib_folder() -> Path | None:
    """The 75 NETLIB problems where this checkout sits beside a shared data folder
    (or $GLGPGPU_NETLIB), else None."""
    for cand in (Path(__file__).resolve().parents[3] / "shared" / "data" / "netlib",
                 Path(os.environ.get("GLGPGPU_NETLIB", "/nonexistent"))):
        if (cand / "optima.csv").exists():
            return cand
    return None


#: the generated families by name (Table III's two exact ones, smaller members, grids)
GENERATED = {"nug05": lambda: nug(5), "nug08": lambda: nug(8), "nug12": lambda: nug(12),
             "nug15": lambda: nug(15), "nug20": lambda: nug(20),
             "ch5-6-b2": lambda: chessboard(5, 6, 2), "ch6-7-b3": lambda: chessboard(6, 7, 3),
             "ch7-8-b3": lambda: chessboard(7, 8, 3), "grid2d_200": lambda: grid(200, 2),
             "grid3d_20": lambda: grid(20, 3), "grid3d_30": lambda: grid(30, 3),
             "grid3d_40": lambda: grid(40, 3)}


def suite(netlib=None, generated: str = ""):
    """(name, A) of a sparse QR benchmark's matrices, made one at a time: every NETLIB
    problem's A^T in the folder `netlib` (smallest file first), then the generated
    families named in `generated` (comma-separated keys of GENERATED)."""
    if netlib:
        for p in sorted(Path(netlib).glob("*.mps.gz"), key=lambda p: p.stat().st_size):
            yield p.name[:-len(".mps.gz")], netlib_at(p)
    for name in filter(None, generated.split(",")):
        yield name, GENERATED[name]()
