"""Does the tiled factor's SYRK / GEMM (C -= R S^T) gain from taking its sign by alpha = -1
instead of by a d row of -1s (gemm_rows.comp's USE_D: every slice of R scaled by d as it is
loaded)?  The LS-SVM's tiled kernel factor (rbf, 32 features, N points) with ComputeTiles.downdate
as shipped (alpha) and with TileKernels.downdate (update with d), alternating, best of
`repeat` each; the same pivots and last tiles?

    python experiments/tile_downdate.py [--n 60000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import glgpgpu
from glgpgpu.compute import tiled
from glgpgpu.compute.tile_kernels import ComputeTiles
from glgpgpu.tiled import TileKernels
from glgpgpu.tiled.cholesky import factor


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=60000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    X = np.random.default_rng(0).standard_normal((a.n, 32)).astype(np.float32)
    shipped = ComputeTiles.downdate
    seconds, last = {"alpha": [], "d": []}, {}
    try:
        for rep in range(a.repeat):
            for name in seconds:
                ComputeTiles.downdate = shipped if name == "alpha" else TileKernels.downdate
                T = tiled.kernel_tiles(X, kernel="rbf", gamma=1 / 32, degree=3, coef0=0.0, diag=0.1, ctx=ctx)
                try:
                    ctx.finish()
                    t = time.perf_counter()
                    pivots = factor(T)
                    ctx.finish()
                    seconds[name].append(time.perf_counter() - t)
                    g = T.grid
                    last[name] = (pivots, T.ops.read(T.tiles[g.count - 1, max(0, g.count - 2)], g.t),
                                  T.ops.read(T.tiles[g.count - 1, g.count - 1], g.t))
                finally:
                    T.release()
    finally:
        ComputeTiles.downdate = shipped
    same = all(np.array_equal(x, y) for x, y in zip(last["alpha"], last["d"]))
    print(f"N = {a.n}: " + "; ".join(f"sign by {k}: {', '.join(f'{v:.3f}' for v in ts)} s" for k, ts in seconds.items())
          + f"; the same bits: {same}", flush=True)


if __name__ == "__main__":
    main()
