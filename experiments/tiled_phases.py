"""Where the compute method's tiled Cholesky of order N spends its time (the matrix past one
storage buffer: `glgpgpu.cholesky(A, method="compute")` as gpu_compute.py --tiled times
it): the tile grid, then the tiles' upload, the factor's phases (POTRF, TRSM, the SYRK/GEMM
updates -- a wait at each phase boundary), and the read-back, each timed; `--tile T` takes
tiles of order T instead of the largest one buffer holds.  A = R + N I (R in [-1, 1), its lower
triangle read), as gpu_compute.py makes it; the backward error probed on 64 rows.

    python experiments/tiled_phases.py [--n 60000] [--tile T]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import glgpgpu
from glgpgpu import tiled
from glgpgpu.compute.tile_kernels import ComputeTiles


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=60000)
    ap.add_argument("--tile", type=int, default=None)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    N, rng = a.n, np.random.default_rng(0)
    A = rng.random((N, N), dtype=np.float32)
    A *= 2
    A -= 1
    A[np.diag_indices(N)] += N
    ops = ComputeTiles(ctx)
    if a.tile:
        ops.max_order = lambda ctx: a.tile                       # noqa: E731
    g = tiled.tile_grid(ctx, N, ops)
    print(f"N = {N}: {g.count} x {g.count} tiles of order {g.t}", flush=True)
    t0 = time.perf_counter()
    T = tiled.upload_checked(ctx, A, ops, "the Cholesky factorization")
    ctx.finish()
    t1 = time.perf_counter()
    prof = {}
    try:
        tiled.factor(T, profile=prof)
        t2 = time.perf_counter()
        T.clear_upper()
        L = T.read()
        t3 = time.perf_counter()
    finally:
        T.release()
    phases = ", ".join(f"{k} {v:.2f} s" for k, v in prof.items() if not k.startswith("_"))
    print(f"upload {t1 - t0:.2f} s; factor {t2 - t1:.2f} s ({phases}); read back {t3 - t2:.2f} s; "
          f"all {t3 - t0:.2f} s", flush=True)
    x = rng.standard_normal(N)
    r0 = N // 2
    y = L[r0:r0 + 64].astype(np.float64) @ (L.astype(np.float32).T @ x.astype(np.float32)).astype(np.float64)
    ax = np.array([A[i, :i + 1].astype(np.float64) @ x[:i + 1] + A[i + 1:, i].astype(np.float64) @ x[i + 1:]
                   for i in range(r0, r0 + 64)])               # rows r0.. of A x, A from its lower triangle
    print(f"rows {r0}..{r0 + 63} of L L^T x against A x: relative difference "
          f"{np.linalg.norm(y - ax) / np.linalg.norm(ax):.1e}", flush=True)


if __name__ == "__main__":
    main()
