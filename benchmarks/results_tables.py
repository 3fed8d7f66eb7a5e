"""Print the Markdown tables of RESULTS.md from the CSV files in results/
(so the prose quotes what the run wrote, not a retyping of it).

    python benchmarks/results_tables.py [results-folder]
"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import csv
import glob
import sys
from pathlib import Path


def rows(folder, pattern):
    files = sorted(glob.glob(str(Path(folder) / pattern)))
    return list(csv.DictReader(open(files[-1]))) if files else []


def f(x, fmt="{:.4g}"):
    return fmt.format(float(x)) if x not in ("", None) else ""


def main(folder="benchmarks/results"):
    print("| measured with | copy pass fill rate | effective bandwidth | FMA-loop peak | RGBA32F fetch rate (cached) | "
          "one dependent 1-pixel draw | of which host issue |")
    print("|---|---|---|---|---|---|---|")
    for c in rows(folder, "ceiling-*.csv"):
        print(f"| {c.get('measured_with', '')} | {f(c['copy_fill_gfrag_s'])} G fragments/s | "
              f"{f(c['copy_gb_s'], '{:.0f}')} GB/s | {f(c['fma_tflop_s'], '{:.3g}')} TFLOP/s | "
              f"{f(c['rgba_fetch_g_s'], '{:.3g}')} G texels/s | {f(c['dependent_draw_us'], '{:.2g}')} µs | "
              f"{f(c['draw_issue_us'], '{:.2g}')} µs |")
    print()

    A = rows(folder, "assembly-*.csv")
    print("| m | n | full s | packed s | packed/full | blocked s | blocked packed s | host best s (numpy / ssyrk) | "
          "host/full | host/blocked | full: fraction of copy fill rate | blocked TFLOP/s (fraction of FMA peak) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for m in sorted({int(r["m"]) for r in A}):
        g = {r["variant"]: r for r in A if int(r["m"]) == m}
        fu, pa, bl = g["full"], g["packed"], g["blocked"]
        print(f"| {m} | {fu['n']} | {f(fu['seconds'])} | {f(pa['seconds'])} | "
              f"{float(pa['seconds']) / float(fu['seconds']):.3f} | {f(bl['seconds'])} | "
              f"{f(g['blocked-packed']['seconds']) if 'blocked-packed' in g else ''} | {f(fu['host_seconds'])} "
              f"({f(fu['host_numpy_s'], '{:.3g}')} / {f(fu['host_ssyrk_s'], '{:.3g}')}) | "
              f"{f(fu['host_over_gpu'], '{:.3f}')} | {f(bl['host_over_gpu'], '{:.2f}')} | "
              f"{f(fu['frac_copy_ceiling'], '{:.3f}')} | {f(bl['tflop_s'], '{:.3f}')} "
              f"({f(bl['frac_fma_ceiling'], '{:.2f}')}) |")
    print()

    C = rows(folder, "cholesky-*.csv")
    vs = ["outer", "outer-packed", "triad", "inner", "lu", "outer-dynamic", "blocked"]
    print("| m | outer (Alg. 5) | outer packed | triads | inner | LU (Galoppo) | outer, vertices uploaded per draw "
          "| blocked | spotrf | sgetrf | LU/outer | spotrf/blocked | outer: fraction of copy fill rate | "
          "outer / floor |")
    print("|---|" + "---|" * 13)
    for m in sorted({int(r["m"]) for r in C}):
        g = {r["variant"]: r for r in C if int(r["m"]) == m}
        o = g["outer"]
        cells = " | ".join(f(g[v]["seconds"]) for v in vs)
        print(f"| {m} | {cells} | {f(o['host_spotrf_s'])} | {f(o['host_sgetrf_s'])} | "
              f"{float(g['lu']['seconds']) / float(o['seconds']):.2f} | "
              f"{float(o['host_spotrf_s']) / float(g['blocked']['seconds']):.2f} | "
              f"{f(o['frac_copy_ceiling'], '{:.3f}')} | {f(o['over_floor'], '{:.2f}')} |")
    print()

    for table in (1, 2):
        for tag in ("", "-blocked"):
            W = rows(folder, f"wls-table{table}{tag}-*.csv")
            if not W:
                continue
            print(f"Table {table}{' (' + tag[1:] + ')' if tag else ' (paper kernels)'}:\n")
            print("| m | err x0 | err refined | iter | GPU x0 s | refine s | total s | CPU s | speedup |")
            print("|---|---|---|---|---|---|---|---|---|")
            for r in W:
                p = lambda k, fmt: f" [{f(r['paper_' + k], fmt)}]" if r.get("paper_" + k) else ""
                print(f"| {r['m']} | {f(r['err_x0'], '{:.2e}')}{p('err_x0', '{:.2e}')} | "
                      f"{f(r['err_refined'], '{:.2e}')}{p('err_refined', '{:.2e}')} | {r['iterations']}"
                      f"{p('iterations', '{:.0f}')} | {f(r['gpu_x0_s'], '{:.3f}')}{p('gpu_x0_s', '{:.2f}')} | "
                      f"{f(r['refine_s'], '{:.3f}')}{p('refine_s', '{:.2f}')} | {f(r['total_s'], '{:.3f}')}"
                      f"{p('total_s', '{:.2f}')} | {f(r['cpu_s'], '{:.3f}')}{p('cpu_s', '{:.2f}')} | "
                      f"{f(r['speedup'], '{:.2f}')}{p('speedup', '{:.2f}')} |")
            print()

    L = rows(folder, "lp-table3-n*.csv")
    Lb = {r["problem"]: r for r in rows(folder, "lp-table3-blocked-*.csv")}
    print("| problem | std. form | ε | inner: iter | inner: s | outer: iter | outer: s | blocked: iter | blocked: s "
          "| status (inner/outer/blocked) | rel. diff. of objective (outer / blocked) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in sorted({r["problem"] for r in L}):
        g = {r["cholesky"]: r for r in L if r["problem"] == name}
        i, o, b = g["inner"], g["outer"], Lb.get(name, {})
        print(f"| {name} | {o['rows']}×{o['cols']} | {o['eps']} | {i['iterations']} [{i['paper_iterations']}] | "
              f"{f(i['seconds'], '{:.2f}')} [{i['paper_seconds']}] | {o['iterations']} [{o['paper_iterations']}] | "
              f"{f(o['seconds'], '{:.2f}')} [{o['paper_seconds']}] | {b.get('iterations', '')} | "
              f"{f(b.get('seconds', ''), '{:.2f}')} | {i['status']}/{o['status']}/{b.get('status', '')} | "
              f"{f(o['rel_diff'], '{:.1e}')} / {f(b.get('rel_diff', ''), '{:.1e}')} |")
    print()

    T = rows(folder, "tune-*.csv")
    print("Tuning (m = 4096): " + "; ".join(f"{r['kernel']} {r['B']}{'/P=' + r['P'] if r['P'] else ''}: "
                                          f"{float(r['seconds']):.4f} s" for r in T))


if __name__ == "__main__":
    main(*sys.argv[1:2])
