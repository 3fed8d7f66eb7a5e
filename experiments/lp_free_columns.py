"""Free columns' proximal term: the constant rho_free (tried first) against the one
relative to each column's size (rho / (1 + |x_j|)^2, the retry), each forced for the
whole solve, with and without the row presolve, on chosen NETLIB problems.

    python experiments/lp_free_columns.py DIR problem [problem ...]
"""
import functools
import sys
import time

import glgpgpu
from glgpgpu.solvers.lp.mixed import mehrotra

if {"-h", "--help"} & set(sys.argv[1:]) or len(sys.argv) < 3:
    print(__doc__)
    sys.exit(0)

solve = mehrotra.solve
opt = {r.split(",")[0]: float(r.split(",")[3]) for r in open(f"{sys.argv[1]}/optima.csv").read().split()[1:]}
for name in sys.argv[2:]:
    for free_rho in ("constant", "relative"):
        mehrotra.solve = functools.partial(lambda *a, rho, **k: solve(*a, **{**k, "free_rho": rho}), rho=free_rho)
        for presolve in (True, False):
            t = time.perf_counter()
            r = glgpgpu.solve_mps(f"{sys.argv[1]}/{name}.mps.gz", presolve=presolve)
            err = abs(r.objective - opt[name]) / max(1, abs(opt[name]))
            print(f"{name} {free_rho} presolve={presolve}: {r.status} {r.iterations} it, rel err {err:.1e}, "
                  f"{time.perf_counter() - t:.1f} s", flush=True)
