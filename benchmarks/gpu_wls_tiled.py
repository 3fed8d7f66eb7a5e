"""Weighted least squares beyond one texture on the GPU (on
a GPU machine): glgpgpu.wls with m basis functions (m > 16384, so the normal
equations are tiled) against float64 numpy's normal equations, end to end.

    python3 benchmarks/gpu_wls_tiled.py M N
"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import sys
import time

import numpy as np

import glgpgpu

m, n = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(17)
A = rng.standard_normal((m, n)).astype(np.float32)
d2 = rng.uniform(0.5, 2.0, n)
x_true = rng.standard_normal(m)
b = A.T.astype(np.float64) @ x_true + 1e-3 * rng.standard_normal(n)
glgpgpu.wls(A[:32, :64], d2[:64], b[:64], method="blocked")           # warm-up
t0 = time.perf_counter()
x, info = glgpgpu.wls(A, d2, b, method="blocked")
t = time.perf_counter() - t0
r = A.astype(np.float64) @ (d2 * (b - A.T.astype(np.float64) @ x))  # the normal equations' residual
print({"device": glgpgpu.get_context().caps.renderer, "m": m, "n": n, "end_to_end_s": round(t, 3),
       "status": info.status, "refinement_steps": info.iterations,
       "normal_residual_over_x": float(np.linalg.norm(r) / np.linalg.norm(x)),
       "times": {k: round(v, 3) for k, v in info.times.items()}}, flush=True)
