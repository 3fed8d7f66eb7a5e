"""Issue 17 debugging aid: the tiled Cholesky on a well-conditioned SPD matrix,
checked tile by tile against float64 numpy.  mode "gpu": A formed by the tiled
product on the GPU and jittered in place; mode "host": A made on the host and
uploaded (TiledLower.upload, as glgpgpu.cholesky does).

    python3 benchmarks/debug_tiled.py N T [gpu|host]
"""
import sys

import numpy as np

import glgpgpu
from glgpgpu import tiled
from glgpgpu.blocked import BlockedTiles, tiled as blocked_tiled
from glgpgpu.layouts.transfer import read_rgba

N, t = int(sys.argv[1]), int(sys.argv[2])
mode = sys.argv[3] if len(sys.argv) > 3 else "gpu"
ctx = glgpgpu.get_context()
X = np.random.default_rng(0).standard_normal((N, 64)).astype(np.float32)
A = X.astype(np.float64) @ X.T.astype(np.float64)
A[np.diag_indices(N)] += N / 10
if mode == "gpu":
    T = blocked_tiled.adat_tiled(ctx, X, np.ones(64, np.float32), t)
    g = T.grid
    for I in range(g.count):
        D = read_rgba(T.tiles[I, I], t, t).copy()
        D[np.arange(g.size(I)), np.arange(g.size(I))] += N / 10
        T.tiles[I, I].write(D.reshape(t, t // 4, 4))
else:
    T = tiled.TiledLower.upload(ctx, A.astype(np.float32), t, BlockedTiles(ctx))
    g = T.grid
for (I, J), tex in sorted(T.tiles.items()):
    got = read_rgba(tex, g.size(I), g.size(J)).astype(np.float64)
    want = A[g.span(I), g.span(J)]
    if I == J:
        got, want = np.tril(got), np.tril(want)
    print(mode, "A tile", I, J, f"{np.abs(got - want).max() / np.abs(want).max():.2e}")
tiled.factor(T)
L = T.read().astype(np.float64)
Lr = np.linalg.cholesky(A)
for I in range(g.count):
    for J in range(I + 1):
        print(mode, "L tile", I, J, f"{np.abs(L[g.span(I), g.span(J)] - Lr[g.span(I), g.span(J)]).max() / np.abs(Lr).max():.2e}")
