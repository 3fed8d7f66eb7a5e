"""Do the LS-SVM's float32 solves gain from taking their k right-hand sides in one chained
dispatch each way (`experiments/shaders/trsv_chain_cols.comp`) instead of a dispatch pair a
column (compute/chain.py, as shipped)?  The factor of K + I/C for N random points (rbf), then
for k = 1, 2, 4, 8: both solves of L L^T X = R, best of `repeat`, numpy to numpy; whether the
answers are the same bits (every column's sums in the same order) and whether a wait gave up.

    python experiments/chain_columns.py [--n 16384] [--columns 1,2,4,8] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os

import numpy as np

os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))

import glgpgpu  # noqa: E402
from glgpgpu.bench.common import timings  # noqa: E402
from glgpgpu.compute.blas import NB, download, fill, write  # noqa: E402
from glgpgpu.compute.normal import OneBufferKernelFactor  # noqa: E402


def solve_together(ctx, F, R: np.ndarray) -> tuple:
    """(X, gave_up): L L^T X = R for every column of R in one dispatch each way."""
    N, k = R.shape
    blocks = -(-N // NB)
    ld = N + 1                                           # each right-hand side with its give-up slot
    X = ctx.buffers.take(k, ld, "the right-hand sides", ld=ld)
    Y = ctx.buffers.take(k, ld, "the solutions", ld=ld)
    sync = ctx.buffers.take(1, 2 + blocks, "the block flags", ld=2 + blocks)
    try:
        write(ctx, X, np.vstack([R, np.zeros((1, k))]).T.astype(np.float32))
        fill(ctx, sync, 0.0)
        per_block = bool(ctx.caps.software)
        for epoch, (src, dst, backward) in enumerate(((X, Y, False), (Y, X, True)), start=1):
            defines = {"NB": NB, "KCOLS": k, **({"BACKWARD": 1} if backward else {})}
            uniforms = {"u_m": N, "u_ld": F.L.ld, "u_ldx": ld, "u_blocks": blocks, "u_base": (epoch - 1) * blocks,
                        "u_epoch": epoch}
            for _ in range(blocks if per_block else 1):
                ctx.kernels.dispatch("trsv_chain_cols", (1 if per_block else blocks, 1, 1),
                                     buffers={0: F.L.buf, 1: src.buf, 2: dst.buf, 3: sync.buf}, defines=defines,
                                     uniforms=uniforms)
        out = download(ctx, X)
        return out[:, :N].T.astype(np.float64), bool(out[:, N].any())
    finally:
        for b in (X, Y, sync):
            b.give()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=16384)
    ap.add_argument("--columns", default="1,2,4,8")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((a.n, 32)).astype(np.float32)
    F = OneBufferKernelFactor(X, kernel="rbf", gamma=1 / 32, degree=3, coef0=0.0, diag=0.1, ctx=ctx)
    try:
        for k in (int(v) for v in a.columns.split(",")):
            R = rng.standard_normal((a.n, k))

            t0 = min(timings(lambda: F.solves.solve_columns(R.astype(np.float32)), a.repeat))
            t1 = min(timings(lambda: solve_together(ctx, F, R), a.repeat))
            X0 = F.solves.solve_columns(R.astype(np.float32))
            X1, gave = solve_together(ctx, F, R)
            print(f"N = {a.n}, k = {k}: a dispatch pair a column {t0 * 1e3:8.2f} ms, all columns together "
                  f"{t1 * 1e3:8.2f} ms; same bits {np.array_equal(X0, X1)}; a wait gave up: {gave}", flush=True)
    finally:
        F.release()


if __name__ == "__main__":
    main()
