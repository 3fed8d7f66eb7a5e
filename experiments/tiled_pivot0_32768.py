"""Why glgpgpu.cholesky of an SPD 32,768 x 32,768 float32 matrix in 8,192-tiles (compute
method, H100) failed at pivot 0 while 16,384 passed: the same call with the staging ring
on and off, other tile orders, and tile (0, 0) read back right after the upload."""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
from distributed_cholesky import spd  # noqa: E402

import glgpgpu  # noqa: E402
from glgpgpu.compute.tile_kernels import ComputeTiles  # noqa: E402
from glgpgpu.tiled import TiledLower  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("m", type=int, nargs="?", default=32768, help="the order (tiles of m/4 and m/8)")
m = ap.parse_args().m
A = spd(m, np.random.default_rng(m))
print("A", A.shape, A.dtype, "a00", A[0, 0], "max", np.abs(A).max(), flush=True)
for tile, staging in ((m // 4, None), (m // 4, False), (m // 8, None)):
    ctx = glgpgpu.Context(max_texture_size=tile)
    ctx.staging = staging
    T = TiledLower.upload(ctx, A, tile, ComputeTiles(ctx))
    bad = []
    for (I, J), tex in T.tiles.items():
        got = T.ops.read(tex, tile)
        want = A[T.grid.span(I), T.grid.span(J)]
        if not np.array_equal(got[:want.shape[0], :want.shape[1]], want):
            bad.append((I, J))
    T.release()
    t = time.perf_counter()
    try:
        L = glgpgpu.cholesky(A, method="compute", ctx=ctx)
        res = f"ok, L00 {L[0, 0]}"
    except Exception as exc:        # noqa: BLE001 -- the experiment reports it
        res = f"{type(exc).__name__}: {exc}"
    print(f"tile {tile} staging {staging}: tiles read back wrong {bad[:6]} ({len(bad)}); cholesky {res} "
          f"{time.perf_counter() - t:.2f} s", flush=True)
    ctx.release()
