"""A matrix larger than one texture: the tiled Cholesky, on a GPU whose textures
are made artificially small (64 texels), so a 200 x 200 matrix needs a 4 x 4 grid
of tiles -- the same code that factors N = 60,000 in 8192-tiles on an H100.

    python examples/tiled_cholesky.py [N] [tile]

Only the lower tiles exist (J <= I): the packed format's idea at tile
granularity, about half the memory.  For each tile column K, right-looking:
  POTRF  factor the diagonal tile            (the one-texture blocked Cholesky)
  TRSM   L_IK = A_IK L_KK^-T for I > K        (16-column panel solves + one product)
  SYRK / GEMM  A_IJ -= L_IK L_JK^T            (blocked_adat with d = -1; on a diagonal
                                               tile only its lower block triangle is drawn)
The schedule is glgpgpu.tiled's, written once; method="paper" runs it with the
papers' kernels instead (Algorithm 5 on each diagonal tile, the multipass
substitution, Kernels 1 and 2 for the updates) -- and since every element then gets
Algorithm 5's updates in Algorithm 5's order, its tiles give the single texture's bits.
"""
import sys

import numpy as np

import glgpgpu
from glgpgpu.layouts.tiles import TileGrid, cholesky_steps


def main(N: int = 200, tile: int = 64) -> int:
    ctx = glgpgpu.Context(max_texture_size=tile)
    try:
        rng = np.random.default_rng(3)
        X = rng.standard_normal((N, N))
        C = X @ X.T / N + np.eye(N)
        g = TileGrid(N, tile)
        print(f"{N} x {N} in tiles of {tile}: a {g.count} x {g.count} grid, {len(g.lower())} lower tiles stored "
              f"of {g.count ** 2} (last tile row: {g.size(g.count - 1)} real rows, the rest padding)")
        for I in range(g.count):
            print("   " + " ".join("[L]" if J <= I else " . " for J in range(g.count)))
        names = {"potrf": "POTRF", "trsm": "TRSM", "update": "GEMM"}
        ops = [f"{'SYRK' if op == 'update' and I == J else names[op]}({I},{J})" + (f"<-{K}" if op == "update" else "")
               for op, I, J, K in cholesky_steps(g.count)]      # the order tiled.factor draws them
        print(f"{len(ops)} tile operations: " + ", ".join(ops))
        L = glgpgpu.cholesky(C, method="blocked", ctx=ctx)
        ref = np.linalg.cholesky(C)
        err = np.abs(L - ref).max() / np.abs(ref).max()
        back = np.linalg.norm(L.astype(np.float64) @ L.T - C) / np.linalg.norm(C)
        print(f"against numpy (float64): max |L - L_ref| / max |L_ref| = {err:.1e}, "
              f"||L L^T - C|| / ||C|| = {back:.1e} (float32: u = 6e-8)")
        x = glgpgpu.cho_solve(L, np.ones(N), method="blocked", ctx=ctx)
        res = np.linalg.norm(C @ x - 1) / np.sqrt(N)
        print(f"cho_solve on the tiles: residual {res:.1e}")
        Lp = glgpgpu.cholesky(C, method="paper", ctx=ctx)          # the same tiles, the paper's kernels
        same = np.array_equal(Lp, glgpgpu.cholesky(C, method="paper"))
        print(f"method='paper' on the same tiles: max |L_paper - L_ref| / max |L_ref| = "
              f"{np.abs(Lp - ref).max() / np.abs(ref).max():.1e}; the single texture's bits: {same}")
        return 0 if back < 1e-5 and res < 1e-4 and same else 1
    finally:
        ctx.release()


if __name__ == "__main__":
    sys.exit(main(*(int(a) for a in sys.argv[1:3])))
