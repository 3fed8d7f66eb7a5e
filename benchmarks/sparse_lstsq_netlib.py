"""Sparse least squares and rank on every NETLIB A^T against SuiteSparseQR, one run.

    python benchmarks/sparse_lstsq_netlib.py OUT.csv --netlib DIR [--method host] [--svd-limit N]

For each LP's A^T (tall) and b with random entries: `glgpgpu.sparse_lstsq` (the
float32 multifrontal QR, then LSMR preconditioned by it, in float64), its status,
||A^T r|| / (||A||_F ||r||) (`optimality`; `floor`: what float64 can certify for x), the
rank and the passes it took; SuiteSparseQR's basic solution (`sparseqr.solve`, its
default ordering and tolerance) -- its rank, and our residual over its residual;
numpy's SVD rank at SuiteSparseQR's tolerance where n <= --svd-limit.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import glgpgpu
from glgpgpu.bench import matrices
from glgpgpu.bench.common import csv_rows
from glgpgpu.solvers.sparse_qr import default_tol


def one(name, A, method, svd_limit) -> dict:
    import sparseqr
    b = np.random.default_rng(0).standard_normal(A.shape[0])
    t = time.perf_counter()
    x, info = glgpgpu.sparse_lstsq(A, b, method=method)
    ours = time.perf_counter() - t
    t = time.perf_counter()
    xs = np.asarray(sparseqr.solve(A.tocsc(), b.reshape(-1, 1), tolerance=-2)).ravel()
    theirs = time.perf_counter() - t
    _, R, _, rank_spqr = sparseqr.rz(A.tocsc(), np.zeros((A.shape[0], 1)), tolerance=-2)
    rank_svd = ""
    if A.shape[1] <= svd_limit:
        rank_svd = int(np.sum(np.linalg.svd(A.toarray(), compute_uv=False) > default_tol(A)))
    row = dict(matrix=name, m=A.shape[0], n=A.shape[1], status=info.status, iterations=info.iterations,
               optimality=f"{info.optimality:.3g}", floor=f"{info.floor:.3g}", rank=info.rank,
               rank_spqr=int(rank_spqr), rank_svd=rank_svd, passes=info.factor.info.get("passes", 1),
               residual_ratio=f"{np.linalg.norm(b - A @ x) / np.linalg.norm(b - A @ xs):.12f}",
               seconds=f"{ours:.3f}", spqr_seconds=f"{theirs:.3f}")
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--netlib", required=True, help="folder of NETLIB .mps.gz files")
    ap.add_argument("--method", default="host")
    ap.add_argument("--svd-limit", type=int, default=1500, help="numpy's SVD rank where n <= this")
    a = ap.parse_args()
    cols = ["matrix", "m", "n", "status", "iterations", "optimality", "floor", "rank", "rank_spqr", "rank_svd",
            "passes", "residual_ratio", "seconds", "spqr_seconds"]
    with csv_rows(a.out, cols) as emit:
        for name, A in matrices.suite(a.netlib):
            emit(one(name, A, a.method, a.svd_limit))


if __name__ == "__main__":
    main()
