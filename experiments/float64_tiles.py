"""The compute method's float64 factor of an LP's A D A^T: dense (M as it comes) against the
tile pattern (M in the analysis's COLAMD order, the tiles that order leaves zero skipped:
EntryPlaces(order=...)).  Median milliseconds of the factorization and of one solve, numpy to
numpy, and the tile updates run against a dense factor's.  --phases: each step's kernels
timed apart (the GPU waited for after each dispatch, so the sum exceeds the factor's time).

    python experiments/float64_tiles.py NETLIB_DIR dfl001 pilot87 maros-r7 [--phases]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp

import glgpgpu
from glgpgpu.bench.common import timings
from glgpgpu.compute.float64 import EntryPlaces, Float64Cholesky
from glgpgpu.solvers.lp.mixed import bounded
from glgpgpu.solvers.lp.mixed.normal_pattern import NormalPattern
from glgpgpu.solvers.lp.problem import from_mps
from glgpgpu.solvers.sparse_cholesky import CholeskyAnalysis


def median_ms(fn, repeat=5):
    return 1e3 * float(np.median(timings(fn, repeat)))


def phases(ctx, factor):
    """{kernel: milliseconds} of one factorization, the GPU waited for after each dispatch."""
    from glgpgpu.compute import dense
    spent, saved = {}, {k: getattr(dense, k) for k in ("potrf_block", "trsm_rows", "syrk64")}

    def timed(name, fn):
        def run(*a, **k):
            ctx.kernels.wait()
            t = time.perf_counter()
            fn(*a, **k)
            ctx.kernels.wait()
            spent[name] = spent.get(name, 0.0) + 1e3 * (time.perf_counter() - t)
        return run
    try:
        for k, fn in saved.items():
            setattr(dense, k, timed(k, fn))
        factor()
    finally:
        for k, fn in saved.items():
            setattr(dense, k, fn)
    return {k: round(v, 2) for k, v in spent.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="a folder of NETLIB .mps.gz files")
    ap.add_argument("names", nargs="+", help="problem names")
    ap.add_argument("--phases", action="store_true", help="time potrf, trsm_rows and syrk64 apart")
    args = ap.parse_args()
    folder, names = args.folder, args.names
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer)
    rng = np.random.default_rng(0)
    for name in names:
        p = bounded.scale(bounded.presolve(bounded.from_general(from_mps(f"{folder}/{name}.mps.gz"))))
        A = sp.csc_matrix(p.A)
        m, n = A.shape
        P = NormalPattern(A, border=False)
        data = P.data(np.exp(rng.uniform(-3, 3, n)), 1e-8)
        s = 1.0 / np.sqrt(data[P.diagonal_at])
        P.scale(data, s)
        an = CholeskyAnalysis.of(A)
        b = rng.standard_normal(m)
        for label, order in (("dense", None), ("tiles", an)):
            places = EntryPlaces(ctx, m, P.col_of, P.row_of, order)
            F = Float64Cholesky(ctx, data, places)

            def factor():
                Float64Cholesky(ctx, data, places).release()
                ctx.kernels.wait()
            tf = median_ms(factor)
            if args.phases:
                print(f"{name:10s} {label:6s} phases (ms): {phases(ctx, factor)}")
            ts = median_ms(lambda: F.solve(b))
            M = P.matrix(data)
            M = M + sp.triu(M, 1).T
            res = np.linalg.norm(b - M @ F.solve(b)) / np.linalg.norm(b)
            t = -(-m // 64)
            upd = places.tiles.updates if places.tiles else sum((t - k) * (t - k - 1) // 2 for k in range(t))
            print(f"{name:10s} m={m:5d} {label:6s} factor {tf:8.2f} ms  solve {ts:6.2f} ms  residual {res:.1e}  "
                  f"tile updates {upd}")
            F.release()
            places.give()


if __name__ == "__main__":
    main()
