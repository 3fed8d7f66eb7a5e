"""Issue 17 debugging aid: where does the tiled Cholesky of the thesis's matrix
fail?  A = L L^T + jitter I formed on the host in float32 (numpy's sgemm) is
compared tile by tile with the GPU's tiled product, then factored by LAPACK's
spotrf (float32) on the host and by the tiled GPU Cholesky from the host's A.

    python3 benchmarks/debug_thesis.py N T [jitter]
"""
import sys
import time

import numpy as np
import scipy.linalg as sla

import glgpgpu
from glgpgpu.bench.tiled import thesis_factor
from glgpgpu import tiled
from glgpgpu.blocked import BlockedTiles, tiled as blocked_tiled
from glgpgpu.layouts.tiles import TileGrid
from glgpgpu.layouts.transfer import read_rgba

N, t = int(sys.argv[1]), int(sys.argv[2])
jitter = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1
ctx = glgpgpu.get_context()
g = TileGrid(N, t)
L = thesis_factor(N, g)
t0 = time.perf_counter()
A = L @ L.T
A[np.diag_indices(N)] += np.float32(jitter)
print(f"host sgemm L L^T {time.perf_counter() - t0:.1f} s", flush=True)
T = blocked_tiled.adat_tiled(ctx, L, np.ones(N, np.float32), t)
for (I, J), tex in sorted(T.tiles.items()):
    got = read_rgba(tex, g.size(I), g.size(J)).astype(np.float64)
    want = A[g.span(I), g.span(J)].astype(np.float64)
    if I == J:
        want[np.diag_indices(g.size(I))] -= jitter
        got, want = np.tril(got), np.tril(want)
    print("A tile", I, J, f"max |GPU - host| / max |A| = {np.abs(got - want).max() / np.abs(want).max():.2e}", flush=True)
T.release()
for name, run in (("GPU tiled from the host's A", lambda: tiled.factor(tiled.TiledLower.upload(ctx, A, t, BlockedTiles(ctx)))),
                  ("LAPACK spotrf", lambda: sla.cholesky(A, lower=True, check_finite=False))):
    t0 = time.perf_counter()
    try:
        out = run()
        print(name, "ok", f"{time.perf_counter() - t0:.1f} s", flush=True)
    except np.linalg.LinAlgError as exc:
        print(name, "failed:", str(exc)[:160], f"{time.perf_counter() - t0:.1f} s", flush=True)
