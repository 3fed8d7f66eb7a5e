"""How a solve with the compute method's float64 factor is best stepped.

Left-looking (`experiments/shaders/trsv_blocks.comp`, the product's until round 17): a block step is one workgroup that reads the block's
rows of L solved so far and solves the block -- the whole read of L by one SM.
Right-looking spread (`experiments/shaders/trsv_spread.comp`, the product's in rounds 17-21): every workgroup
solves the block itself and updates its own 256 rows of the rest, so a step's reads of L
are spread over the GPU.  Both are one dispatch a block each way.  Chain (`trsv_chain`,
what Float64Cholesky.solve runs): one dispatch each way, a workgroup a block, the solved
blocks passed on through flags.  Prints the median milliseconds of solve(b) (numpy in,
numpy out) for each, and the residuals.

    python experiments/float64_solve_steps.py --m 2030 6071
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
import scipy.sparse as sp

os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))

import glgpgpu  # noqa: E402
from glgpgpu.compute.blas import NB  # noqa: E402
from glgpgpu.compute.float64 import Float64Cholesky, Float64Matrix  # noqa: E402


def trsv_block(ctx, L, x, k0, nb, m, backward):
    """One left-looking block step (experiments/shaders/trsv_blocks.comp)."""
    ctx.kernels.dispatch("trsv_blocks", (1, 1, 1), buffers={0: L.buf, 1: x.buf},
                         defines={"NB": NB, "FP64": 1, **({"BACKWARD": 1} if backward else {})},
                         uniforms={"u_m": m, "u_ld": L.ld, "u_k0": k0, "u_nb": nb})


def spread_step(ctx, L, b, x, k0, nb, m, backward):
    """One right-looking block step spread over workgroups (experiments/shaders/trsv_spread.comp)."""
    rest = k0 if backward else m - k0 - nb
    ctx.kernels.dispatch("trsv_spread", (max(1, -(-rest // 256)), 1, 1), buffers={0: L.buf, 1: b.buf, 2: x.buf},
                         defines={"NB": NB, "FP64": 1, **({"BACKWARD": 1} if backward else {})},
                         uniforms={"u_m": m, "u_ld": L.ld, "u_k0": k0, "u_nb": nb})


def spread(F, b):
    X = Float64Matrix(F.ctx, 1, F.m, "rhs")
    Y = Float64Matrix(F.ctx, 1, F.m, "solution")
    try:
        X.put(F.ctx, b.reshape(1, -1))
        blocks = [(k0, min(NB, F.m - k0)) for k0 in range(0, F.m, NB)]
        for k0, nb in blocks:                       # L y = b: b in X, y into Y
            spread_step(F.ctx, F.L, X, Y, k0, nb, F.m, False)
        for k0, nb in reversed(blocks):             # L^T x = y: y in Y, x into X
            spread_step(F.ctx, F.L, Y, X, k0, nb, F.m, True)
        return X.get(F.ctx)[0].copy()
    finally:
        X.give()
        Y.give()


def left_looking(F, b):
    X = Float64Matrix(F.ctx, 1, F.m, "rhs")
    try:
        X.put(F.ctx, b.reshape(1, -1))
        blocks = [(k0, min(NB, F.m - k0)) for k0 in range(0, F.m, NB)]
        for backward in (False, True):
            for k0, nb in (reversed(blocks) if backward else blocks):
                trsv_block(F.ctx, F.L, X, k0, nb, F.m, backward)
        return X.get(F.ctx)[0].copy()
    finally:
        X.give()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, nargs="+", default=[2030, 6071])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    ctx = glgpgpu.get_context()
    rng = np.random.default_rng(0)
    print(ctx.caps.renderer)
    for m in args.m:
        B = sp.random(m, 2 * m, density=8 / m, random_state=rng) + sp.eye(m, 2 * m)
        M = (B @ B.T).tocsr()
        F = Float64Cholesky(ctx, M)
        b = rng.standard_normal(m)
        for name, fn in (("left-looking", lambda: left_looking(F, b)), ("spread", lambda: spread(F, b)),
                         ("chain", lambda: F.solve(b))):
            fn()
            ts = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                x = fn()
                ts.append(time.perf_counter() - t)
            res = np.linalg.norm(b - M @ x) / np.linalg.norm(b)
            print(f"m={m:6d} {name:13s} {1e3 * np.median(ts):8.2f} ms  residual {res:.1e}")
        F.release()


if __name__ == "__main__":
    main()
