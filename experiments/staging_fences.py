"""The staging ring's fences (gl/staging.py): retiring the fences the GPU has passed at
each take (RETIRE) and capping them (MAX_INFLIGHT), against neither: staged 1 and 8 MiB
transfers, and 200 one-row uploads in a row.  H100, 2026-11-23: 200 small uploads 6.5-7.5 ms
with both, 9-10.5 ms capped only, 10.6-13.3 ms with neither; large transfers unchanged.

    python benchmarks/staging_fences.py"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import time

import numpy as np

from glgpgpu.gl import resolve, staging
from glgpgpu.gl.staging import Stager
from glgpgpu.gl.textures import MatrixTexture

ctx = resolve(None)


def best(fn, n=7):
    fn(); t = 1e9
    for _ in range(n):
        ctx.gl.finish(); t0 = time.perf_counter(); fn(); ctx.gl.finish(); t = min(t, time.perf_counter() - t0)
    return t * 1e3


for retire, inflight in ((True, 64), (False, 64), (False, 10**9), (True, 64)):
    staging.RETIRE, staging.MAX_INFLIGHT = retire, inflight
    st = Stager()
    out = []
    for mib in (1, 8):
        rows = mib << 8
        tex = MatrixTexture(ctx, rows, 1024)
        a = np.ones((rows, 1024), np.float32); o = np.empty_like(a)
        out.append("%d MiB up %.2f read %.2f" % (mib, best(lambda: st.upload(tex.tex.glo, a, 0, 0, 1)), best(lambda: st.read(tex.tex.glo, o, 0, 0, 1))))
        # many small uploads while the GPU is busy
        v = np.ones((1, 1024), np.float32)
        out.append("200 small ups %.2f" % best(lambda: [st.upload(tex.tex.glo, v, 0, i, 1) for i in range(200)], 3))
        tex.release()
    st.release()
    print("retire", retire, "max", inflight, "|", "; ".join(out), flush=True)
