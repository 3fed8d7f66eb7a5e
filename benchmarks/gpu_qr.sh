#!/usr/bin/env bash
# The QR run on a GPU machine (benchmarks/README.md): Yeralan et al.'s
# Tables I/II, the 2008 Table 2 by QR vs the normal equations, square QR at
# 2048 / 4096 (end to end), and the QR tests; everything into $OUT.
case "${1:-}" in -h|--help) sed -n "2,/^set -u/p" "$0" | grep "^#" | cut -c3-; exit 0;; esac
set -u
OUT=${OUT:-benchmarks/results}
python3 -m glgpgpu.cli info
python3 -m glgpgpu.cli qr --table both --repeat 3 --out "$OUT" 2>/dev/null
python3 -m glgpgpu.cli qr --table ls --sizes 512,1024,1536,2048 --out "$OUT" 2>/dev/null
python3 - <<'PY'
import time, numpy as np, scipy.linalg.lapack as lp, glgpgpu
from glgpgpu.bench.qr import canonical_flops
from glgpgpu.bench.ceiling import ceiling
ctx = glgpgpu.get_context()
fma = ceiling(ctx)["fma_tflop_s"]
for n in (2048, 4096):
    A = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    for method in ("blocked", "paper"):
        glgpgpu.qr(A, mode="raw", method=method)
        t = time.perf_counter(); glgpgpu.qr(A, mode="raw", method=method); t = time.perf_counter() - t
        print(f"square {n} {method}: {t:.3f} s e2e, {canonical_flops(n, n) / t / 1e9:.1f} GFLOP/s, "
              f"{100 * canonical_flops(n, n) / t / 1e12 / fma:.2f}% of the FMA ceiling {fma:.1f} TFLOP/s")
    t = time.perf_counter(); lp.sgeqrf(A); t = time.perf_counter() - t
    print(f"square {n} host sgeqrf: {t:.3f} s")
PY
python3 -m pytest -q -p no:cacheprovider tests/api/test_qr.py tests/solvers/test_lstsq.py tests/figures/test_qr_tables.py 2>&1 | tail -3
