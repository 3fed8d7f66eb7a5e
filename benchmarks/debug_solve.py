"""Issue 17 debugging aid: the blocked forward substitution with many right-hand
sides against float64 numpy.   python3 benchmarks/debug_solve.py M NRHS [NRHS ...]"""
import sys

import numpy as np

import glgpgpu
from glgpgpu.blocked.triangular import substitute_texture
from glgpgpu.layouts.transfer import upload_rgba

m = int(sys.argv[1])
ctx = glgpgpu.get_context()
rng = np.random.default_rng(0)
L = np.tril(rng.uniform(-1, 1, (m, m)) / m) + np.eye(m) * 2
l_tex = upload_rgba(ctx, L.astype(np.float32), m, m)
import os
if os.environ.get("QUEUE_LIMIT"):          # e.g. 1e30: no waiting, to reproduce the driver's failure
    ctx.kernels.QUEUE_LIMIT = float(os.environ["QUEUE_LIMIT"])
if os.environ.get("FINISH_EVERY"):
    # wrap the draw call: wait for the GPU every N draws (a watchdog test)
    every = int(os.environ["FINISH_EVERY"])
    K = ctx.kernels
    orig = K.draw
    count = [0]

    def draw(*a, **kw):
        orig(*a, **kw)
        count[0] += 1
        if count[0] % every == 0:
            ctx.finish()
    K.draw = draw
for k in map(int, sys.argv[2:]):
    B = rng.standard_normal((m, k)).astype(np.float32)
    b = ctx.kernels.pool.take(m, k)
    b.write(B)
    y = substitute_texture(l_tex, m, b, backward=False, ctx=ctx)
    Y = y.read()
    ctx.kernels.pool.give(y)
    ref = np.linalg.solve(L, B.astype(np.float64))
    bad = np.argwhere(np.abs(Y - ref) > 1e-4 * np.abs(ref).max())
    print(m, k, f"{np.abs(Y - ref).max() / np.abs(ref).max():.2e}", "first bad (row, col):", bad[:3].tolist(), flush=True)
