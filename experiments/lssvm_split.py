"""Where an LS-SVM fit's seconds go, each part closed by a wait for the GPU (ctx.finish): the
float64 X's upload, the kernel matrix's tiles (their first touch and the form), the factor, every
solve, every float64 product K Z; "rest" is the fit less those.  The second fit at each size
(the first builds the kernels).  rbf, 32 features, C = 10, compute method.

    python experiments/lssvm_split.py [--sizes 16384,32768,60000]
"""
from __future__ import annotations

import argparse
import collections
import time

import numpy as np

import glgpgpu
from glgpgpu.compute import kernel_products, normal, tiled
from glgpgpu.solvers.estimators import LSSVC
from glgpgpu.tiled import matrix, solve


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="16384,32768,60000")
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    seconds, calls = collections.defaultdict(float), collections.Counter()

    def timed(owner, name, label):
        inner = getattr(owner, name)

        def call(*args, **kw):
            ctx.finish()
            t = time.perf_counter()
            try:
                return inner(*args, **kw)
            finally:
                ctx.finish()
                seconds[label] += time.perf_counter() - t
                calls[label] += 1
        setattr(owner, name, call)

    timed(kernel_products.KernelProducts, "__init__", "X up in float64")
    timed(kernel_products.KernelProducts, "__call__", "K Z in float64")
    timed(matrix.TiledLower, "zeros", "(of which the tiles' first touch)")
    timed(tiled, "kernel_tiles", "kernel matrix's tiles")
    timed(solve.TiledFactor, "factor_tiles", "factor")
    timed(solve.TiledFactor, "solve", "solves (tiled)")
    timed(normal.OneBufferKernelFactor, "__init__", "form + factor (one buffer)")
    timed(normal.OneBufferKernelFactor, "solve", "solves (one buffer)")
    rng = np.random.default_rng(0)
    for N in (int(v) for v in a.sizes.split(",")):
        X = rng.standard_normal((N, 32)).astype(np.float32)
        y = (X[:, 0] + 0.3 * rng.standard_normal(N) > 0).astype(int)
        for _ in range(2):
            seconds.clear()
            calls.clear()
            t = time.perf_counter()
            est = LSSVC(method="compute", C=10.0).fit(X, y)
            fit = time.perf_counter() - t
        print(f"N = {N}: fit {fit:.3f} s, refinement steps {len(est.info_['refinement'])}")
        for label, s in seconds.items():
            print(f"   {label:34s} {s:7.3f} s  x{calls[label]}")
        parts = sum(s for label, s in seconds.items() if not label.startswith("(of which"))
        print(f"   {'the rest':34s} {fit - parts:7.3f} s", flush=True)


if __name__ == "__main__":
    main()
