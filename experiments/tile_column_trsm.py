"""Does the tiled factor's TRSM gain from one panel substitution over the whole tile column
(`experiments/shaders/trsm_rows_tiles.comp`: every tile of the column bound side by side, a
workgroup a tile's 64 rows) instead of one trsm_rows dispatch a tile?  round 32's kernel
times: the 60,000 factor's 4,514 substitutions of 66 us each (8,192 rows a dispatch: two
warps an SM) took 299 ms of GPU.  Here: a factored diagonal tile L of order t and `tiles`
tiles below it (the last `last` rows), X = A L^-T for all of them as shipped (ComputeTiles.trsm
a tile at a time) and with the column's substitutions in one dispatch a panel (the products
unchanged, a tile at a time), best of `repeat`; the same bits?

    python experiments/tile_column_trsm.py [--t 8192] [--tiles 7] [--last 2656] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))

import glgpgpu  # noqa: E402
from glgpgpu.compute import blas, dense  # noqa: E402
from glgpgpu.compute.blas import NB, gemm  # noqa: E402
from glgpgpu.compute.tile_kernels import ComputeTiles  # noqa: E402


def column_trsm(ctx, L, m, targets):
    """ComputeTiles.trsm for every (tile, rows) of targets, the panel substitutions of all
    of them in one trsm_rows_tiles dispatch (rows: t for all but the last)."""
    wide = max(NB, dense.UPDATE_COLUMNS // NB * NB) if m >= dense.BLOCK_COLUMNS_FROM else NB
    t = targets[0][1]
    groups = -(-t // 64)
    buffers = {1: L.buf, **{2 + w: a.buf for w, (a, _) in enumerate(targets)}}
    for K0 in range(0, m, wide):
        K1 = min(m, K0 + wide)
        for k0 in range(K0, K1, NB):
            nb = min(NB, K1 - k0)
            ctx.kernels.dispatch("trsm_rows_tiles", (groups * len(targets), 1, 1), buffers=buffers,
                                 defines={"NB": NB, "TILES": len(targets)},
                                 uniforms={"u_loff": k0 * L.ld + k0, "u_ldl": L.ld, "u_aoff": k0,
                                           "u_ld": targets[0][0].ld, "u_nb": nb, "u_groups": groups,
                                           "u_rows": t, "u_last_rows": targets[-1][1]})
            if k0 + nb < K1:
                for a, rows in targets:
                    gemm(ctx, a, a, L, m=rows, n=K1 - k0 - nb, k=nb, alpha=-1.0, beta=1.0, a_at=(0, k0),
                         b_at=(k0 + nb, k0), c_at=(0, k0 + nb))
        if K1 < m:
            for a, rows in targets:
                gemm(ctx, a, a, L, m=rows, n=m - K1, k=K1 - K0, alpha=-1.0, beta=1.0, a_at=(0, K0),
                     b_at=(K1, K0), c_at=(0, K1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--t", type=int, default=8192)
    ap.add_argument("--tiles", type=int, default=7)
    ap.add_argument("--last", type=int, default=2656)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    rng = np.random.default_rng(0)
    t = a.t
    G = rng.standard_normal((t, t)).astype(np.float32)
    L64 = np.linalg.cholesky(G.astype(np.float64) @ G.T / t + np.eye(t))
    L = blas.upload(ctx, L64.astype(np.float32))
    rows = [t] * (a.tiles - 1) + [a.last]
    A = [rng.standard_normal((t, t)).astype(np.float32) for _ in rows]
    ops = ComputeTiles(ctx)

    def shipped(tiles):
        for tile, r in zip(tiles, rows):
            ops.trsm(L, t, tile, t, rows=r)

    def variant(tiles):
        column_trsm(ctx, L, t, list(zip(tiles, rows)))

    best, out = {}, {}
    for _ in range(a.repeat):
        for name, run in (("a tile at a time", shipped), ("the column at once", variant)):
            tiles = [blas.upload(ctx, M) for M in A]
            ctx.finish()
            s = time.perf_counter()
            run(tiles)
            ctx.finish()
            best[name] = min(best.get(name, np.inf), time.perf_counter() - s)
            out[name] = [blas.download(ctx, x)[:r] for x, r in zip(tiles, rows)]
            for x in tiles:
                x.give()
    same = all(np.array_equal(x, y) for x, y in zip(*out.values()))
    print(f"t = {t}, {a.tiles} tiles (the last {a.last} rows): "
          + "; ".join(f"{k} {v * 1e3:.1f} ms" for k, v in best.items()) + f"; the same bits: {same}", flush=True)
    L.give()


if __name__ == "__main__":
    main()
