"""Issue 17 on the GPU machine (after `. .gl/setup.sh`): Cholesky beyond one
texture at the PLSSVM thesis's sizes.  For each N: the thesis's random L
(diagonal in [0.5, 2], lower part in [-1, 1]), A = L L^T formed on the GPU by the
project's own tiled product (blocked_adat per tile pair), jitter on the diagonal
(the thesis's 0.1: its matrices are numerically singular without it, see
RESULTS.md's Fig. 7.8 section), the tiled Cholesky of the resident tiles, then L
read back and a probed backward error ||L (L^T x) - (A + jitter I) x|| / (||A|| ||x||)
in float64 (exact products of the float32 L, O(N^2)), relative to ||(A + jitter I) x||.  Optionally the public
glgpgpu.cholesky end to end (numpy in, numpy out) as well.

    python3 benchmarks/gpu_tiled.py N [N ...] [--tile T] [--e2e] [--profile] [--csv PATH]
"""
import argparse
import csv
import time

import numpy as np

import glgpgpu
from glgpgpu.bench.ceiling import ceiling
from glgpgpu.bench.tiled import probe_backward_error, thesis_factor
from glgpgpu.blocked import tiled
from glgpgpu.layouts.tiles import TileGrid, tile_order
from glgpgpu.layouts.transfer import read_rgba

p = argparse.ArgumentParser()
p.add_argument("N", type=int, nargs="+")
p.add_argument("--tile", type=int, default=None)
p.add_argument("--jitter", type=float, default=0.1)
p.add_argument("--e2e", action="store_true")
p.add_argument("--csv", default=None)
p.add_argument("--slab", type=int, default=None, help="TRSM slab width (tiled.TRSM_SLAB)")
p.add_argument("--profile", action="store_true", help="time POTRF / TRSM / update (waits at each phase)")
a = p.parse_args()
if a.slab:
    tiled.TRSM_SLAB = a.slab
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
    T = tiled.adat_tiled(ctx, L, np.ones(N, np.float32), t)          # A = L L^T, on the GPU
    ctx.finish()
    t_form = time.perf_counter() - t0
    for I in range(g.count):                                          # + jitter I, diagonal tiles
        D = read_rgba(T.tiles[I, I], t, t).copy()
        D[np.arange(g.size(I)), np.arange(g.size(I))] += a.jitter
        T.tiles[I, I].write(D.reshape(t, t // 4, 4))
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
    T.release()
    err = float("nan")
    if Lg is not None:
        err = probe_backward_error(L, Lg, a.jitter, g)
    flops = N ** 3 / 3
    row = {"device": ctx.caps.renderer, "date": time.strftime("%Y-%m-%d"), "N": N, "tile": t, "tiles": g.count,
           "jitter": a.jitter, "form_LLt_s": t_form, "factor_s": t_factor,
           "factor_tflop_s": flops / t_factor / 1e12, "frac_fma_ceiling": flops / t_factor / 1e12 / fma,
           "probe_backward_error": err, "status": status,
           **{f"{k}_s": v for k, v in (prof or {}).items() if not k.startswith("_")}}
    if a.e2e and Lg is not None:
        A = (L.astype(np.float32) @ L.T.astype(np.float32)) if N <= 16384 else None
        if A is not None:
            A[np.diag_indices(N)] += a.jitter
            glgpgpu.cholesky(A[:64, :64], method="blocked")
            t0 = time.perf_counter()
            glgpgpu.cholesky(A, method="blocked")
            row["end_to_end_s"] = time.perf_counter() - t0
    rows.append(row)
    print({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
    del Lg
if a.csv:
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=sorted({k for r in rows for k in r}))
        w.writeheader()
        w.writerows(rows)
