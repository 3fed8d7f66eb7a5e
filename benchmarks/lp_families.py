"""The LP on what users bring: generated families (glgpgpu/bench/lp_families.py) at sizes from
1,000 to ~200,000 columns, each member solved by glgpgpu and by HiGHS's interior point (no
crossover) in the same run, from the same model in memory.  Writes lp-families-<device>-<date>.csv
(status, iterations, objective against HiGHS's, seconds, the ratio, where the normal equations
were factored) and a plot of the time ratio against the columns, one line per family.

    python benchmarks/lp_families.py [--families all] [--sizes 1000,3000,10000,30000]
                                     [--seeds 0] [--method auto] [--device auto] [--out DIR]

Held-out members: other --seeds and --sizes than the ones RESULTS.md reports.
"""
import argparse
import datetime
import os
from pathlib import Path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--families", default="all", help="comma-separated names, or all")
    ap.add_argument("--sizes", default="1000,3000,10000,30000", help="columns, comma-separated")
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--method", default="auto", help="glgpgpu's method= (auto, paper, blocked, compute)")
    ap.add_argument("--device", default="auto", help="glgpgpu's device= (auto, gpu, cpu64)")
    ap.add_argument("--out", default=os.environ.get("OUT", "benchmarks/results"))
    ap.add_argument("--tag", default="", help="appended to the file names")
    args = ap.parse_args()

    import glgpgpu
    from glgpgpu.bench.common import device_slug, save_figure, legend, write_csv
    from glgpgpu.bench.lp_families import FAMILIES, solve_beside_highs
    from glgpgpu.teach.plotting import subplots

    names = list(FAMILIES) if args.families == "all" else args.families.split(",")
    ctx = glgpgpu.get_context()
    rows = []
    stem = f"lp-families-{device_slug(ctx)}-{datetime.date.today()}" + (f"-{args.tag}" if args.tag else "")
    path = Path(args.out) / f"{stem}.csv"
    for n in (int(v) for v in args.sizes.split(",")):
        for family in names:
            for seed in (int(s) for s in args.seeds.split(",")):
                r = solve_beside_highs(family, n, seed, method=args.method, device=args.device, ctx=ctx)
                r.update(method=args.method, device=ctx.caps.renderer)
                rows.append(r)
                print(f"{family:<20} {r['rows']:>7} x {r['cols']:<7} {r['status']:<10} it {r['iterations']:>3} "
                      f"err {r['rel_obj_error']:.1e}  {r['seconds']:8.3f} s  HiGHS {r['highs_s']:8.3f} s  "
                      f"ratio {r['time_ratio']:6.2f}  ({r['device_kind']})", flush=True)
                write_csv(rows, path)                   # a long run stopped midway keeps what it measured
    fig, ax = subplots(figsize=(6.8, 4.4))
    for family in names:
        pts = sorted((r["cols"], r["time_ratio"]) for r in rows if r["family"] == family)
        if pts:
            ax.plot(*zip(*pts), "o-", label=family)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhline(1.5, color="k", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("columns")
    ax.set_ylabel("glgpgpu time / HiGHS IPM time")
    ax.set_title(f"LP families, {ctx.caps.renderer[:40]}, {datetime.date.today()}", fontsize=9)
    ax.grid(True, which="both", alpha=.3)
    legend(ax)
    save_figure(fig, path.with_suffix(".png"))
    bad = [r for r in rows if r["status"] != "optimal" or r["rel_obj_error"] > 1e-8]
    print(f"{len(rows) - len(bad)} of {len(rows)} optimal to 1e-8; time ratio max "
          f"{max(r['time_ratio'] for r in rows):.2f}; wrote {path}")


if __name__ == "__main__":
    main()
