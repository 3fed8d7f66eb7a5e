"""Print RESULTS.md's NETLIB table (issue 13) from the committed CSVs of
`glgpgpu lp --netlib` (blocked and, where it ran, paper), so the prose quotes
what the run wrote.

    python benchmarks/netlib_table.py [results-folder]
"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import csv
import glob
import sys
from pathlib import Path


def latest(folder, method):
    files = sorted(glob.glob(str(Path(folder) / f"lp-netlib-{method}-mixed-*.csv")))
    return list(csv.DictReader(open(files[-1]))) if files else []


def main(folder="benchmarks/results"):
    paper = {r["problem"]: r for r in latest(folder, "paper")}
    print("| problem | rows × cols | status | iter (HiGHS) | ratio | rel. obj. error | s | "
          "assemble / factor / refine s | paper: status, iter, s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in latest(folder, "blocked"):
        p = paper.get(r["problem"])
        other = f"{p['status']}, {p['iterations']}, {float(p['seconds']):.2f}" if p else "—"
        print(f"| {r['problem']} | {r['rows']} × {r['cols']} | {r['status']} | {r['iterations']} "
              f"({r['highs_iterations']}) | {float(r['iteration_ratio']):.2f} | {float(r['rel_obj_error']):.1e} | "
              f"{float(r['seconds']):.2f} | {float(r['assemble_s']):.2f} / {float(r['factor_s']):.2f} / "
              f"{float(r['refine_s']):.2f} | {other} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
