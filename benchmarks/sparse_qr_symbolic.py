"""The sparse QR's symbolic analysis and rank decisions against SuiteSparseQR's, one run.

    python benchmarks/sparse_qr_symbolic.py OUT.csv [--netlib DIR] [--generated NAMES] [--svd-limit N]

For each matrix (the NETLIB LPs' A^T, then generated members of the paper's families):

* the same column permutation on both sides (ours, column singletons first), amalgamation
  off on both (CHOLMOD's nrelax = zrelax = 0, set in SuiteSparseQR's cholmod_common),
  R only: the flop count (ours from the analysis, SuiteSparseQR's SPQR_flopcount) and
  R's pattern -- both factor A with its entries replaced by random values of the same
  sign, so no entry cancels by accident; R's rows compared as sets of columns, in any
  order (a row SuiteSparseQR squeezes out moves the rows under it up).  An entry under
  1e-5 of its row's largest that one side has and the other not is what rounding
  leaves of a zero of exact arithmetic: each side rounds differently (float32 here; on
  dfl001 SuiteSparseQR's float64 leaves up to 1.0e-6 where the other has an exact
  zero), so the rows are compared again without such entries;
* each side's defaults on A itself (our COLAMD and rank rule, SuiteSparseQR's
  ordering and tolerance): nnz(R) and the rank, and numpy's SVD rank at SuiteSparseQR's
  tolerance where n <= --svd-limit.

Needs `sparseqr` over libspqr and, to reach cholmod_common's fields, a C compiler and
SuiteSparse's headers (the offsets are read from a three-line probe); without them the
same-permutation columns are left empty.
"""
from __future__ import annotations

import argparse
import ctypes
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import glgpgpu
from glgpgpu.bench import matrices
from glgpgpu.bench.common import csv_rows
from glgpgpu.solvers.sparse_fronts import HostQR, numeric
from glgpgpu.solvers.sparse_qr import default_tol
from glgpgpu.symbolic import analyze

OFF = dict(nrelax=(0, 0, 0), zrelax=(0, 0, 0))
ROUNDING = 1e-5

PROBE = """#include <stdio.h>
#include <stddef.h>
#include "cholmod.h"
int main(void){printf("%zu %zu %zu\\n", offsetof(cholmod_common, nrelax), offsetof(cholmod_common, zrelax),
                       offsetof(cholmod_common, SPQR_flopcount)); return 0;}
"""


def common_fields():
    """(nrelax, zrelax, flopcount) as ctypes views into sparseqr's cholmod_common, or None."""
    from sparseqr.sparseqr import cc, ffi
    cc_bin = shutil.which("cc") or shutil.which("gcc")
    if cc_bin is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "probe.c"
        src.write_text(PROBE)
        out = Path(d) / "probe"
        built = subprocess.run([cc_bin, "-I/usr/include/suitesparse", str(src), "-o", str(out)],
                               capture_output=True)
        if built.returncode:
            return None
        off = [int(v) for v in subprocess.run([str(out)], capture_output=True, text=True).stdout.split()]
    addr = int(ffi.cast("uintptr_t", cc))
    return ((ctypes.c_size_t * 3).from_address(addr + off[0]), (ctypes.c_double * 3).from_address(addr + off[1]),
            ctypes.c_double.from_address(addr + off[2]))


def spqr_r(A, fixed: bool, tol: float, fields=None, relax=True):
    """SuiteSparseQR's R (zeros dropped), its flop count and rank: R only through rz."""
    import sparseqr
    from sparseqr.sparseqr import lib
    if fields is not None:
        nrelax, zrelax, _ = fields
        nrelax[:] = [4, 16, 48] if relax else [0, 0, 0]
        zrelax[:] = [0.8, 0.1, 0.05] if relax else [0.0, 0.0, 0.0]
    _, R, _, rank = sparseqr.rz(A.tocsc(), np.zeros((A.shape[0], 1)), tolerance=tol,
                                ordering=lib.SPQR_ORDERING_FIXED if fixed else lib.SPQR_ORDERING_DEFAULT)
    R = R.tocsr()
    R.eliminate_zeros()
    flops = fields[2].value if fields is not None else float("nan")
    if fields is not None:
        fields[0][:], fields[1][:] = [4, 16, 48], [0.8, 0.1, 0.05]
    return R, flops, int(rank)


def row_entries(R) -> list:
    """R's nonempty rows as {column: |r| / the row's largest}."""
    R = R.tocsr()
    out = []
    for i in range(R.shape[0]):
        c, v = R.indices[R.indptr[i]:R.indptr[i + 1]], np.abs(R.data[R.indptr[i]:R.indptr[i + 1]])
        if c.size:
            out.append(dict(zip(c.tolist(), (v / v.max()).tolist())))
    return out


def pattern_diffs(ours, theirs) -> tuple:
    """(rows of one R's pattern not in the other's, in any order; of those, the rows
    that still differ by an entry of ROUNDING of its row's largest or more).  Rows
    not matched exactly are paired with the other side's unmatched row that shares
    the most columns among those holding the column of its largest entry."""
    a, b = row_entries(ours), row_entries(theirs)
    ea, eb = Counter(frozenset(r) for r in a), Counter(frozenset(r) for r in b)
    exact = sum(((ea - eb) + (eb - ea)).values())

    def leftover(rows, extra):
        out = []
        for r in rows:
            k = frozenset(r)
            if extra[k] > 0:
                extra[k] -= 1
                out.append(r)
        return out
    la, lb = leftover(a, ea - eb), leftover(b, eb - ea)
    by_col = {}
    for j, r in enumerate(lb):
        for c in r:
            by_col.setdefault(c, set()).add(j)
    free, above = set(range(len(lb))), 0
    for r in la:
        top = max(r, key=r.get)
        cands = by_col.get(top, set()) & free
        if not cands:
            above += 1
            continue
        j = max(cands, key=lambda j: len(r.keys() & lb[j].keys()))
        free.discard(j)
        other = lb[j]
        if any(r[c] >= ROUNDING for c in r.keys() - other.keys()) or \
                any(other[c] >= ROUNDING for c in other.keys() - r.keys()):
            above += 1
    return exact, above + len(free)


def one(name, A, fields, svd_limit) -> dict:
    A = sp.csc_matrix(A, dtype=np.float64)
    A.sum_duplicates()
    rng = np.random.default_rng(0)
    Ar = A.copy()
    Ar.data = rng.uniform(0.5, 1.5, A.nnz) * np.where(A.data < 0, -1.0, 1.0)
    an = analyze(Ar, **OFF)
    row = dict(matrix=name, m=A.shape[0], n=A.shape[1], nnz=A.nnz, n1=an.n1, fronts=an.nfronts,
               flops=f"{an.flops:.6g}")
    if fields is not None:
        AP = Ar[:, an.perm]
        Rs, fl, _ = spqr_r(AP, True, -1.0, fields, relax=False)
        R = numeric(an, AP.tocsr().astype(np.float32), HostQR(), None)[0]
        total, above = pattern_diffs(R, Rs)
        row.update(flops_spqr=f"{fl:.6g}", flops_ratio=f"{an.flops / fl:.6f}" if fl else "",
                   pattern_entries=R.nnz, pattern_rows_differing=total,
                   pattern_rows_differing_above_rounding=above)
    fac = glgpgpu.sparse_qr(A, method="host")
    Rd, _, rank_spqr = spqr_r(A, False, -2.0)
    rank_svd = ""
    if A.shape[1] <= svd_limit:
        s = np.linalg.svd(A.toarray(), compute_uv=False)
        rank_svd = int(np.sum(s > default_tol(A)))
    row.update(nnz_r=fac.R.nnz, nnz_r_spqr=Rd.nnz, nnz_ratio=f"{fac.R.nnz / max(Rd.nnz, 1):.4f}", rank=fac.rank,
               rank_spqr=rank_spqr, rank_svd=rank_svd)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--netlib", default=None, help="folder of NETLIB .mps.gz files")
    ap.add_argument("--generated", default="", help="comma-separated: " + ",".join(matrices.GENERATED))
    ap.add_argument("--svd-limit", type=int, default=1500, help="numpy's SVD rank where n <= this")
    a = ap.parse_args()
    fields = common_fields()
    if fields is None:
        print("no C compiler or SuiteSparse headers: the same-permutation columns stay empty")
    cols = ["matrix", "m", "n", "nnz", "n1", "fronts", "flops", "flops_spqr", "flops_ratio", "pattern_entries",
            "pattern_rows_differing", "pattern_rows_differing_above_rounding", "nnz_r", "nnz_r_spqr", "nnz_ratio",
            "rank", "rank_spqr", "rank_svd"]
    with csv_rows(a.out, cols) as emit:
        for name, A in matrices.suite(a.netlib, a.generated):
            emit(one(name, A, fields, a.svd_limit))


if __name__ == "__main__":
    main()
