"""Matrices beyond one texture on a GPU machine: A diag(d2) A^T with m
beyond one texture, end to end (numpy in, numpy out: glgpgpu.adat), e.g. the
issue's m = 40,000, n = 80,000.  A uniform in [-1, 1), d2 in [0.5, 2), made in
row bands; checked by a probe ||C x - A (d2 * (A^T x))|| / ||A (d2 * (A^T x))||
in float64 a band at a time (C is returned as its lower triangle).

    python3 benchmarks/gpu_adat_tiled.py M N [--csv PATH]
"""
import argparse
import csv
import time

import numpy as np

import glgpgpu
from glgpgpu.layouts.tiles import TileGrid, tile_order

p = argparse.ArgumentParser()
p.add_argument("M", type=int)
p.add_argument("N", type=int)
p.add_argument("--csv", default=None)
a = p.parse_args()
ctx = glgpgpu.get_context()
m, n = a.M, a.N
g = TileGrid(m, tile_order(m, ctx.max_texture_size))
A = np.empty((m, n), np.float32)
for I in range(g.count):
    s = g.span(I)
    A[s] = np.random.default_rng(2000 + I).uniform(-1, 1, (s.stop - s.start, n))
d2 = np.random.default_rng(1).uniform(0.5, 2, n).astype(np.float32)
glgpgpu.adat(A[:64, :64], d2[:64], method="blocked")          # warm-up: shaders compiled
t0 = time.perf_counter()
C = glgpgpu.adat(A, d2, method="blocked")
t_e2e = time.perf_counter() - t0
x = np.random.default_rng(5).standard_normal(m)
v = np.zeros(n)
for I in range(g.count):
    s = g.span(I)
    v += A[s].T.astype(np.float64) @ x[s]
want = np.empty(m)
got = np.zeros(m)
for I in range(g.count):
    s = g.span(I)
    want[s] = A[s].astype(np.float64) @ (d2 * v)
    band = C[s].astype(np.float64)                       # lower triangle rows: C x = L x + L^T x - diag x
    got[s] += band @ x
    got += band.T @ x[s]
    got[s] -= np.diag(band[:, s]) * x[s]
err = float(np.linalg.norm(got - want) / np.linalg.norm(want))
flops = float(m) * m * n                                 # the lower half: m^2 n / 2 multiply-adds
row = {"device": ctx.caps.renderer, "date": time.strftime("%Y-%m-%d"), "m": m, "n": n, "tile": g.t,
       "tiles": g.count, "end_to_end_s": t_e2e, "end_to_end_tflop_s": flops / t_e2e / 1e12,
       "probe_relative_error": err}
print({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
if a.csv:
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        w.writeheader()
        w.writerow(row)
