"""Matrices beyond one texture on a GPU machine: Cholesky beyond one
texture at the PLSSVM thesis's sizes.  For each N: the thesis's random L
(diagonal in [0.5, 2], lower part in [-1, 1]), A = L L^T formed on the GPU by the
project's own tiled product (blocked_adat per tile pair), jitter on the diagonal
(the thesis's 0.1: its matrices are numerically singular without it, see
RESULTS.md's Fig. 7.8 section), the tiled Cholesky of the resident tiles, then L
read back and a probed backward error ||L (L^T x) - (A + jitter I) x|| / ||(A + jitter I) x||
in float64 (exact products of the float32 L, O(N^2)).  --e2e: also the public
glgpgpu.cholesky on that A (its lower triangle read back: numpy in, numpy out),
timed and probed the same way; --no-resident skips the resident factorization.

    python3 benchmarks/gpu_tiled.py N [N ...] [--tile T] [--slab S] [--e2e] [--no-resident] [--profile] [--csv PATH]
"""
import argparse
import csv
import time

import numpy as np

import glgpgpu
from glgpgpu.bench.ceiling import ceiling
from glgpgpu.bench.tiled import probe_backward_error, thesis_factor
from glgpgpu import tiled
from glgpgpu.blocked import tile_kernels, tiled as blocked_tiled
from glgpgpu.layouts.tiles import TileGrid, tile_order
from glgpgpu.gl.transfer import read_rgba

p = argparse.ArgumentParser()
p.add_argument("N", type=int, nargs="+")
p.add_argument("--tile", type=int, default=None)
p.add_argument("--jitter", type=float, default=0.1)
p.add_argument("--e2e", action="store_true", help="also glgpgpu.cholesky(A) on the GPU-formed A, end to end")
p.add_argument("--no-resident", action="store_true", help="skip the factorization of the resident tiles")
p.add_argument("--csv", default=None)
p.add_argument("--slab", type=int, default=None, help="TRSM slab width (blocked.tile_kernels.TRSM_SLAB)")
p.add_argument("--profile", action="store_true", help="time POTRF / TRSM / update (waits at each phase)")
p.add_argument("--profile-e2e", action="store_true", help="cProfile the end-to-end call (with --e2e): host hot spots")
a = p.parse_args()
if a.slab:
    tile_kernels.TRSM_SLAB = a.slab
ctx = glgpgpu.get_context()
fma = ceiling(ctx, repeat=2)["fma_tflop_s"]
print(f"{ctx.caps.renderer}: fragment FMA ceiling {fma:.2f} TFLOP/s", flush=True)
rows = []
for N in a.N:
    t = a.tile or tile_order(N, ctx.max_texture_size)
    g = TileGrid(N, t)
    L = thesis_factor(N, g)
    ctx.finish()
    t0 = time.perf_counter()
    T = blocked_tiled.adat_tiled(ctx, L, np.ones(N, np.float32), t)          # A = L L^T, on the GPU
    ctx.finish()
    t_form = time.perf_counter() - t0
    for I in range(g.count):                                          # + jitter I, diagonal tiles
        D = read_rgba(T.tiles[I, I], t, t).copy()
        D[np.arange(g.size(I)), np.arange(g.size(I))] += a.jitter
        T.tiles[I, I].write(D.reshape(t, t // 4, 4))
    row = {"device": ctx.caps.renderer, "date": time.strftime("%Y-%m-%d"), "N": N, "tile": t, "tiles": g.count,
           "update_variant": "default",
           "trsm_slab": tile_kernels.TRSM_SLAB, "jitter": a.jitter, "form_LLt_s": t_form}
    flops = N ** 3 / 3
    A_low = T.read() if a.e2e else None          # the GPU-formed A (lower triangle), for the public call
    if not a.no_resident:
        ctx.finish()
        t0 = time.perf_counter()
        prof = {} if a.profile else None
        try:
            tiled.factor(T, profile=prof)
            ctx.finish()
            status = "ok"
        except np.linalg.LinAlgError as exc:
            status = f"failed: {exc}"
        t_factor = time.perf_counter() - t0
        Lg = T.read() if status == "ok" else None
        row.update(factor_s=t_factor, factor_tflop_s=flops / t_factor / 1e12,
                   frac_fma_ceiling=flops / t_factor / 1e12 / fma, status=status,
                   probe_backward_error=probe_backward_error(L, Lg, a.jitter, g) if Lg is not None else float("nan"),
                   **{f"{k}_s": v for k, v in (prof or {}).items() if not k.startswith("_")})
        del Lg
    T.release()
    if A_low is not None:                         # numpy in, numpy out: glgpgpu.cholesky end to end
        glgpgpu.cholesky(A_low[:64, :64], method="blocked")
        if a.profile_e2e:
            import cProfile
            import pstats
            pr = cProfile.Profile()
            pr.enable()
        t0 = time.perf_counter()
        try:
            Le = glgpgpu.cholesky(A_low, method="blocked")
            e2e_status = "ok"
        except np.linalg.LinAlgError as exc:
            Le, e2e_status = None, f"failed: {exc}"
        t_e2e = time.perf_counter() - t0
        if a.profile_e2e:
            pr.disable()
            pstats.Stats(pr).sort_stats("tottime").print_stats(16)
        del A_low
        row.update(end_to_end_s=t_e2e, end_to_end_tflop_s=flops / t_e2e / 1e12, end_to_end_status=e2e_status,
                   end_to_end_backward_error=probe_backward_error(L, Le, a.jitter, g) if Le is not None
                   else float("nan"))
        del Le
    rows.append(row)
    print({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
if a.csv:
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=sorted({k for r in rows for k in r}))
        w.writeheader()
        w.writerows(rows)
