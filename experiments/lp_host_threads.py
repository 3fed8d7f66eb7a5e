"""Does the host's BLAS thread count change the LP's host-factored solves?  Every NETLIB
problem but the three the GPU factors (dfl001, pilot87, maros-r7), device="cpu64", timed
one by one; run it under OPENBLAS_NUM_THREADS=1, 4, 16 and compare the totals.  Prints one
JSON object: total seconds, problem count, and per problem (seconds, status, iterations).

    OPENBLAS_NUM_THREADS=4 python experiments/lp_host_threads.py NETLIB_DIR
"""
from __future__ import annotations

import glob
import json
import os
import sys
import time

from glgpgpu.solvers.lp import solve_mps

GPU_FACTORED = {"dfl001", "pilot87", "maros-r7"}


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    files = sorted(f for f in glob.glob(f"{sys.argv[1]}/*.mps.gz")
                   if os.path.basename(f).split(".")[0] not in GPU_FACTORED)
    out = {}
    for f in files:
        t = time.perf_counter()
        r = solve_mps(f, device="cpu64")
        out[os.path.basename(f).split(".")[0]] = (round(time.perf_counter() - t, 4), r.status, r.iterations)
    print(json.dumps({"total": sum(v[0] for v in out.values()), "n": len(out), "rows": out}))


if __name__ == "__main__":
    main()
