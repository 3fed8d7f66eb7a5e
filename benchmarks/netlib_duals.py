"""Every NETLIB problem of a folder solved by glgpgpu (mixed precision) and by HiGHS:
status, objective against HiGHS's, and the duals -- row multipliers y and reduced
costs c - A^T y -- against HiGHS's (a vertex's duals).  Where the two differ the dual
optimum is not unique; then ours must still be an optimal dual: dual feasible and
with the optimum's value (columns dual_infeasibility, dual_objective_error).

    python benchmarks/netlib_duals.py DIR [--method blocked] [--problems a,b] [--out FOLDER]

Writes FOLDER/netlib-duals-METHOD.csv (FOLDER: $OUT or benchmarks/results)."""
import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

import glgpgpu
from glgpgpu.solvers.lp.problem import from_mps


def highs_solution(path):
    import highspy
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(path)
    h.run()
    sol = h.getSolution()
    return h.getInfo().objective_function_value, np.array(sol.row_dual), np.array(sol.col_dual)


def dual_value(lp, y, d):
    """The dual objective of y and d = c - A^T y, and how far they are from feasible: a
    multiplier on a bound that does not exist (relative to 1 + max|c|)."""
    lo_r = np.where(y > 0, lp.row_lo, lp.row_up)
    lo_c = np.where(d > 0, lp.col_lo, lp.col_up)
    bad = np.concatenate([np.abs(y[~np.isfinite(lo_r) & (y != 0)]), np.abs(d[~np.isfinite(lo_c) & (d != 0)])])
    value = float(np.sum(np.where(np.isfinite(lo_r), y * lo_r, 0)) + np.sum(np.where(np.isfinite(lo_c), d * lo_c, 0)))
    return value + lp.offset, float(bad.max(initial=0.0)) / (1 + np.abs(lp.c).max())


def write(rows, out):
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, keys)
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="folder of NETLIB .mps.gz files")
    ap.add_argument("--method", default="blocked", help="glgpgpu method")
    ap.add_argument("--problems", default="", help="comma-separated names (default: every .mps.gz of DIR)")
    ap.add_argument("--out", default=os.environ.get("OUT", "benchmarks/results"), help="output folder")
    args = ap.parse_args()
    names = args.problems.split(",") if args.problems else sorted(
        p.name.split(".")[0] for p in Path(args.dir).glob("*.mps.gz"))
    rows = []
    Path(args.out).mkdir(parents=True, exist_ok=True)
    out = Path(args.out) / f"netlib-duals-{args.method}.csv"
    for name in names:
        path = str(Path(args.dir) / f"{name}.mps.gz")
        lp = from_mps(path)
        t = time.perf_counter()
        res = glgpgpu.solve_mps(path, method=args.method)
        seconds = time.perf_counter() - t
        f_h, y_h, d_h = highs_solution(path)
        row = dict(problem=name, rows=lp.shape[0], cols=lp.shape[1], status=res.status, iterations=res.iterations,
                   seconds=f"{seconds:.2f}", rel_obj_error=f"{abs(res.objective - f_h) / max(1, abs(f_h)):.2e}")
        if res.y is not None:
            dy = np.abs(res.y - y_h).max(initial=0) / (1 + np.abs(y_h).max(initial=0))
            dd = np.abs(res.reduced_costs - d_h).max(initial=0) / (1 + np.abs(d_h).max(initial=0))
            value, infeas = dual_value(lp, res.y, res.reduced_costs)
            row.update(y_vs_highs=f"{dy:.2e}", reduced_costs_vs_highs=f"{dd:.2e}", dual_infeasibility=f"{infeas:.2e}",
                       dual_objective_error=f"{abs(value - f_h) / max(1, abs(f_h)):.2e}")
        rows.append(row)
        print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        write(rows, out)                                 # after each problem: a cut-off run keeps what it did
    ok = sum(r["status"] == "optimal" and float(r["rel_obj_error"]) <= 1e-8 for r in rows)
    agree = sum(float(r.get("y_vs_highs", 1)) <= 1e-6 for r in rows)
    optimal_duals = sum(float(r.get("dual_infeasibility", 1)) <= 1e-8 and float(r.get("dual_objective_error", 1)) <= 1e-8
                        for r in rows)
    print(f"{ok} of {len(rows)} optimal to 1e-8; duals: {agree} agree with HiGHS's to 1e-6, "
          f"{optimal_duals} optimal duals (feasible, value within 1e-8); {out}")


if __name__ == "__main__":
    sys.exit(main())
