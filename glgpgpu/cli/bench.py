"""`glgpgpu bench SUITE`: benchmarks against numpy/scipy and the pipeline's own ceilings."""
from __future__ import annotations

from pathlib import Path

from .common import Formatter, add_out, fits_host, positive_int, size_list, sizes
from . import lp, wls


def run(args) -> int:
    from ..bench import run_suite

    if args.suite in ("wls", "lp"):
        # the Tables 1-3 runs of their own commands, with the same --out
        import argparse as _ap

        if args.suite == "wls":
            code = 0
            for table in (1, 2):
                ns = _ap.Namespace(table=table, sizes=args.sizes, packed=False, method="paper", out=args.out)
                code |= wls.run(ns)
            return code
        ns = _ap.Namespace(table=3, path=None, cholesky=None, method=None, problems=None, out=args.out)
        return lp.run(ns)
    out = Path(args.out)
    ns = sizes(args.sizes)
    fits_host(4 * 8 * max(ns) ** 2, f"--sizes {max(ns)} (n x n operands in float64, about four of them)")
    res = run_suite(args.suite, ns, args.repeat, out)
    c = res["ceiling"]
    print(f"ceiling: copy {c['copy_fill_gfrag_s']:.3g} Gfrag/s ({c['copy_gb_s']:.3g} GB/s), "
          f"FMA {c['fma_tflop_s']:.3g} TFLOP/s, RGBA fetch {c['rgba_fetch_g_s']:.3g} G/s, "
          f"dependent draw {c['dependent_draw_us']:.3g} us (host issue {c['draw_issue_us']:.3g} us, "
          f"GPU time {c['draw_gpu_us']:.3g} us)")
    rows = res.get("rows", [])
    if rows:
        cols = ["m", "n", "variant", "seconds", "gfrag_s", "gb_s", "frac_copy_ceiling", "tflop_s",
                "frac_fma_ceiling", "host_seconds", "host_over_gpu", "over_floor", "host_s_per_gb"]
        print("  ".join(f"{c:>12s}" for c in cols))
        for r in rows:
            print("  ".join(f"{r.get(c, ''):>12.4g}" if isinstance(r.get(c), float) else f"{str(r.get(c, '')):>12s}"
                            for c in cols))
    if args.suite == "e2e" and rows:
        from ..bench.endtoend import acceptance

        print("the end-to-end targets, this run:")
        for line in acceptance(rows):
            print("  " + line)
    if res.get("ladder"):
        from ..bench.ladder import format_ladder

        print(format_ladder(res["ladder"]))
    for r in res.get("tune", []):
        print(f"tune {r['kernel']:<9} m={r['m']} B={r['B']} P={r['P']}: {r['seconds']:.4f} s, "
              f"{r['tflop_s']:.3f} TFLOP/s")
    for f in res["files"]:
        print("wrote", f)
    return 0


def register(sub):
    s = sub.add_parser("bench", help="benchmarks: ceiling | assembly | cholesky | tune | e2e | host | ladder | wls | lp",
                       formatter_class=Formatter)
    s.add_argument("suite", choices=["ceiling", "assembly", "cholesky", "tune", "e2e", "host", "ladder", "wls", "lp"],
                   help="ladder: paper / blocked / compute / host / torch per operation, with both FMA ceilings")
    s.add_argument("--sizes", default="64,128", type=size_list, help="comma-separated matrix orders m")
    s.add_argument("--repeat", type=positive_int, default=2, help="timed runs per point (best is kept)")
    add_out(s)
    s.set_defaults(func=run)
