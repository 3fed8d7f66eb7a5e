import numpy as np, glgpgpu
from glgpgpu.blocked import tiled
from glgpgpu.blocked.cholesky import factor_texture, diagonal
from glgpgpu.blocked.adat import product_texture
from glgpgpu.layouts.transfer import read_rgba
import sys
N, t = int(sys.argv[1]), int(sys.argv[2])
ctx = glgpgpu.get_context()
X = np.random.default_rng(0).standard_normal((N, 64)).astype(np.float32)
A = X.astype(np.float64) @ X.T.astype(np.float64); A[np.diag_indices(N)] += N / 10
T = tiled.TiledLower.upload(ctx, A.astype(np.float32), t)
Lr = np.linalg.cholesky(A)
def chk(tag):
    L00 = read_rgba(T.tiles[0, 0], t, t).astype(np.float64)
    print(tag, f"{np.abs(np.tril(L00) - Lr[:t, :t]).max() / np.abs(Lr).max():.2e}", flush=True)
factor_texture(T.tiles[0, 0], t, ctx=ctx); chk("after POTRF")
diagonal(T.tiles[0, 0], t, ctx); chk("after diagonal")
new = tiled.trsm(ctx, T.tiles[0, 0], t, T.tiles[1, 0], t); chk("after TRSM")
L10 = read_rgba(new, t, t).astype(np.float64)
print("L10", f"{np.abs(L10 - Lr[t:2*t, :t]).max() / np.abs(Lr).max():.2e}")
