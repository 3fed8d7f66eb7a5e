"""How far down the compute method's float64 factor on the GPU pays: each problem solved by
the host's float64 factor (device="cpu64", as the product has it) and by the compute method
with every factorization the GPU's float64 one (device="gpu", its thresholds GPU_FLOAT64_ROWS and MULTIFRONTAL_FLOPS
lowered to --rows and 0), each after a warm-up solve of the same problem.

    python experiments/lp_gpu_float64_reach.py NETLIB_DIR pilot greenbea d2q06c [--rows 300]
"""
from __future__ import annotations

import argparse
import time

from glgpgpu.solvers.lp import solve_mps
from glgpgpu.solvers.lp.mixed import normal


def timed(path, **kw):
    solve_mps(path, **kw)
    t = time.perf_counter()
    r = solve_mps(path, **kw)
    return time.perf_counter() - t, r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("names", nargs="+")
    ap.add_argument("--rows", type=int, default=300)
    a = ap.parse_args()
    saved = normal.GPU_FLOAT64_ROWS, normal.MULTIFRONTAL_FLOPS
    for name in a.names:
        path = f"{a.folder}/{name}.mps.gz"
        th, rh = timed(path, device="cpu64")                  # the product's own host path
        normal.GPU_FLOAT64_ROWS, normal.MULTIFRONTAL_FLOPS = a.rows, 0
        try:
            tg, rg = timed(path, device="gpu", method="compute")
        finally:
            normal.GPU_FLOAT64_ROWS, normal.MULTIFRONTAL_FLOPS = saved
        print(f"{name:10s} m={rg.size[0]:5d} cpu64 {th:6.3f} s ({rh.iterations} it, {rh.status})  "
              f"gpu float64 {tg:6.3f} s ({rg.iterations} it, {rg.status}, throughout {rg.stats['float64_throughout']}, "
              f"{rg.stats['gpu_factor_float64']} factors)  host/gpu {th / tg:5.2f}")


if __name__ == "__main__":
    main()
