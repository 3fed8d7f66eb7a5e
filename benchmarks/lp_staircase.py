"""A multi-period (staircase) LP whose normal matrix is sparse and banded, solved three ways in
one run: device="auto" (the default), device="gpu" (the GPU's dense factor of A D A^T, what auto
took before its SPARSE_RATIO rule) and device="cpu64" (the host's sparse float64 factor).

    python benchmarks/lp_staircase.py [--periods T] [--rows K] [--method blocked] [--out DIR]

Period t has K rows and 2K columns (a random sparse block, 4 entries a column, plus its slack-like
diagonal) and is linked to period t-1 by an identity block; b = A x0 for a positive x0 and c > 0,
so the LP is feasible and bounded.  Writes lp-staircase-<device>-<date>.csv: seconds, iterations,
objective, the device auto chose and why.
"""
from __future__ import annotations

import argparse
import time
from datetime import date
from pathlib import Path

import numpy as np

import glgpgpu
from glgpgpu.bench.common import device_slug, write_csv
from glgpgpu.bench.lp_families import staircase_matrix


def staircase(periods: int, k: int, seed: int = 0):
    """(A, b, c) of the staircase LP: T K rows, 2 T K columns (lp_families.staircase_matrix)."""
    return staircase_matrix(periods, k, np.random.default_rng(seed))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--periods", type=int, default=150)
    ap.add_argument("--rows", type=int, default=100)
    ap.add_argument("--method", default="blocked")
    ap.add_argument("--devices", default="auto,cpu64,gpu")
    ap.add_argument("--out", default="benchmarks/results")
    args = ap.parse_args()
    A, b, c = staircase(args.periods, args.rows)
    ctx = glgpgpu.get_context()
    rows = []
    for device in args.devices.split(","):
        t = time.perf_counter()
        res = glgpgpu.linprog(c, A_eq=A, b_eq=b, method=args.method, device=device)
        seconds = time.perf_counter() - t
        rows.append({"rows": A.shape[0], "cols": A.shape[1], "nnz": A.nnz, "method": args.method, "device": device,
                     "factored": res.stats.get("device"), "reason": res.stats.get("device_reason", ""),
                     "flops": res.stats.get("factor_flops", float("nan")), "status": res.status,
                     "iterations": res.iterations, "objective": res.objective, "seconds": seconds})
        print(rows[-1], flush=True)
    out = Path(args.out) / f"lp-staircase-{device_slug(ctx)}-{date.today()}.csv"
    write_csv(rows, out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
