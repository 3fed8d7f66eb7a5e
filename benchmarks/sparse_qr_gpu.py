"""Sparse multifrontal QR on a GPU against SuiteSparseQR on the same host, one run.

    python benchmarks/sparse_qr_gpu.py OUT.csv [--netlib DIR] [--generated NAMES] [--method blocked]
                                       [--host-assembly] [--no-spqr]

For each matrix (the NETLIB LPs' A^T in the tall orientation, then generated
members of the paper's families): the symbolic analysis, R by `glgpgpu.sparse_qr`
(tol < 0: R only, as the paper's GPU path), R's float32 backward error
||R^T R - (AP)^T (AP)||_F / ||A||_F^2 where affordable, phase times, and
SuiteSparseQR's time on the same host: R only with no rank detection (the paper's
mode) through `sparseqr` when installed, else `pyspqr` (which keeps H: more work).  Times
include the analysis and all transfers (Table IV's rule); the analysis is also
given on its own.  --host-assembly: the fronts assembled on the host between rounds
even where the method has a front store (the comparison); --no-spqr: ours only.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp

import glgpgpu
from glgpgpu.bench import matrices
from glgpgpu.bench.common import csv_rows

GENERATED = matrices.GENERATED
DENSE_CHECK = 5000              # columns up to which R's backward error is checked with dense products


def backward_error(A, fac):
    AP = A[:, fac.perm].tocsc()
    R = fac.R.astype(np.float64)
    if A.shape[1] <= DENSE_CHECK:           # R^T R by BLAS: a sparse product of a dense R is slow
        Rd = R.toarray()
        D = Rd.T @ Rd - (AP.T @ AP).toarray()
        return np.linalg.norm(D) / sp.linalg.norm(A) ** 2
    D = (R.T @ R - AP.T @ AP)
    return sp.linalg.norm(D) / sp.linalg.norm(A) ** 2


def spqr_seconds(A):
    """(seconds, which): SuiteSparseQR in the paper's mode -- R only, no rank detection
    (tol = -1), its default ordering -- through `sparseqr`; else `pyspqr` (keeps H)."""
    try:
        import sparseqr
        t = time.perf_counter()
        sparseqr.rz(A.tocsc(), np.zeros((A.shape[0], 1)), tolerance=-1)
        return time.perf_counter() - t, "sparseqr R only"
    except ImportError:
        pass
    try:
        import pyspqr
    except ImportError:
        return float("nan"), "none"
    t = time.perf_counter()
    pyspqr.qr(A.tocsc(), ordering="COLAMD")
    return time.perf_counter() - t, "pyspqr keeps H"


def one(name, A, method, check_limit=2e10, spqr_limit=1e13) -> dict:
    """One matrix: ours, its backward error, SuiteSparseQR (spqr_limit 0: not run)."""
    t = time.perf_counter()
    fac = glgpgpu.sparse_qr(A, tol=-1, method=method)
    total = time.perf_counter() - t
    info = fac.info
    err = backward_error(A, fac) if info["flops"] <= check_limit or A.shape[1] <= DENSE_CHECK else float("nan")
    ref, which = spqr_seconds(A) if info["flops"] <= spqr_limit else (float("nan"), "not run")
    row = dict(matrix=name, m=A.shape[0], n=A.shape[1], nnz=A.nnz, fronts=info["fronts"], rounds=info["rounds"],
               flops=f"{info['flops']:.4g}", intensity=f"{info['intensity']:.3g}", nnz_r=info["nnz_r"],
               seconds=f"{total:.3f}", analyze=f"{info['times'].get('analyze', 0):.3f}",
               assemble=f"{info['times'].get('assemble', 0):.3f}", factor=f"{info['times'].get('factor', 0):.3f}",
               extract=f"{info['times'].get('extract', 0):.3f}", gflops=f"{info['flops'] / total / 1e9:.3g}",
               backward_error=f"{err:.2e}", spqr_seconds=f"{ref:.3f}", speedup=f"{ref / total:.3g}",
               method=info["method"], assembly=info["assembly"], schedule=info["schedule"], spqr=which)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--netlib", default=None, help="folder of NETLIB .mps.gz files")
    ap.add_argument("--generated", default="", help="comma-separated: " + ",".join(GENERATED))
    ap.add_argument("--method", default="blocked")
    ap.add_argument("--host-assembly", action="store_true", help="no front store: assemble on the host")
    ap.add_argument("--no-spqr", action="store_true", help="do not time SuiteSparseQR")
    a = ap.parse_args()
    if a.host_assembly:
        type(glgpgpu.dispatch.implementation(a.method)).fronts = None
    limit = 0.0 if a.no_spqr else 1e13
    fields = ["matrix", "m", "n", "nnz", "fronts", "rounds", "flops", "intensity", "nnz_r", "seconds", "analyze",
              "assemble", "factor", "extract", "gflops", "backward_error", "spqr_seconds", "speedup", "method",
              "assembly", "schedule", "spqr"]
    with csv_rows(a.out, fields) as emit:
        glgpgpu.sparse_qr(matrices.grid(4, 2), method=a.method, tol=-1)         # warm: compile the kernels
        for name, A in matrices.suite(a.netlib, a.generated):
            emit(one(name, A, a.method, spqr_limit=limit))


if __name__ == "__main__":
    main()
