"""The paper's kernels beyond one texture (issue 17): glgpgpu.cholesky(method="paper")
on a context whose texture limit is cut to `limit`, so the matrix is tiles (Algorithm 5
per diagonal tile, TRSM by multipass substitution, SYRK/GEMM by Kernels 1 and 2),
against the same call on one texture: seconds end to end, whether the bits agree,
and the backward error ||L L^T - C||_F / ||C||_F.

    python benchmarks/gpu_paper_tiles.py N limit
"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import sys
import time

import numpy as np

import glgpgpu


def main(N=2048, limit=1024):
    N, limit = int(N), int(limit)
    rng = np.random.default_rng(17)
    X = rng.standard_normal((N, N // 2)).astype(np.float32)
    C = (X @ X.T + N * np.eye(N, dtype=np.float32)).astype(np.float32)
    one = glgpgpu.get_context()
    small = glgpgpu.Context(max_texture_size=limit)
    print(f"{one.caps.renderer}: N = {N}, tiles of {limit}", flush=True)
    out = {}
    for name, ctx in (("one texture", one), (f"tiles of {limit}", small)):
        glgpgpu.cholesky(C[:64, :64], method="paper", ctx=ctx)                    # compile
        t0 = time.perf_counter()
        L = glgpgpu.cholesky(C, method="paper", ctx=ctx)
        dt = time.perf_counter() - t0
        L64 = L.astype(np.float64)
        err = np.linalg.norm(np.tril(L64 @ L64.T - C)) / np.linalg.norm(np.tril(C))
        out[name] = L
        print(f"paper cholesky, {name}: {dt:.2f} s end to end, backward error {err:.2e}", flush=True)
    a, b = out.values()
    print("same bits:", bool(np.array_equal(a, b)), f"max |difference| {np.abs(a - b).max():.3g}", flush=True)
    small.release()


if __name__ == "__main__":
    main(*sys.argv[1:])
