"""`glgpgpu qr --table 1|2|ls`: Yeralan et al.'s Tables I / II (dense QR GFLOP/s) or the
2008 paper's Table 2 by QR vs the normal equations; CSV and PNG into --out."""
from __future__ import annotations

from .common import Formatter, add_out, positive_float, positive_int, size_list, run_stamp

from pathlib import Path


def run(args) -> int:
    from ..bench.common import device_slug, write_csv
    from ..bench.qr import format_tables, plot_tables, run_least_squares, run_tables
    from ..gl import get_context

    ctx = get_context()
    out = Path(args.out)
    stamp = run_stamp()
    slug = device_slug(ctx)
    if args.table in ("1", "2", "both"):
        tables = (1, 2) if args.table == "both" else (int(args.table),)
        methods = {"both": ("paper", "blocked"), "all": ("paper", "blocked", "compute")}.get(args.method, (args.method,))
        rows, ceil = run_tables(ctx, tables=tables, methods=methods, scale=args.scale, repeat=args.repeat)
        print(f"Yeralan et al. (2015) Tables {tables} on {ctx.caps.renderer}, {stamp} (the paper: C2070, double precision)")
        print(format_tables(rows, ceil))
        for f in (write_csv(rows, out / f"qr-tables-{slug}-{stamp}.csv"),
                  plot_tables(rows, out / f"qr-tables-{slug}-{stamp}.png")):
            print("wrote", f)
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = run_least_squares(ctx, sizes, method="auto" if args.method == "both" else args.method)
    print(f"2008 Table 2 (ill-conditioned WLS, n = 2m) by the normal equations and by QR on {ctx.caps.renderer}")
    print("errors against float64 QR least squares (LAPACK gelsy); the paper's float64 normal-equations")
    print("solve is itself off by about kappa^2 u64 on these problems (err vs it in the CSV)")
    print(f"{'solver':>8s} {'m':>6s} {'err x0':>10s} {'err refined':>12s} {'iter':>5s} {'total s':>8s} {'CPU s':>8s}")
    for r in rows:
        print(f"{r['solver']:>8s} {r['m']:>6d} {r['err_x0_lstsq']:>10.2e} {r['err_refined_lstsq']:>12.2e} "
              f"{r['iterations']:>5d} {r['total_s']:>8.3f} {r['cpu_s']:>8.3f}  {r['status']}")
    print("wrote", write_csv(rows, out / f"qr-vs-normal-table2-{slug}-{stamp}.csv"))
    return 0


def register(sub):
    s = sub.add_parser("qr", help="Householder QR: Yeralan et al.'s Tables I/II, or least squares by QR vs normal equations",
                       formatter_class=Formatter)
    s.add_argument("--table", choices=["1", "2", "both", "ls"], default="both",
                   help="1: short and fat, 2: tall and skinny (Yeralan et al. 2015); ls: the 2008 Table 2 by QR vs Cholesky")
    s.add_argument("--method", choices=["paper", "blocked", "compute", "both", "all"], default="both",
                   help="both: paper and blocked; all: the compute method too")
    s.add_argument("--scale", type=positive_float, default=1.0, help="shrink the paper's shapes by this factor (CPU runs)")
    s.add_argument("--sizes", default="128,256", type=size_list, help="m for --table ls (comma-separated)")
    s.add_argument("--repeat", type=positive_int, default=2, help="timed runs per shape (best is kept)")
    add_out(s)
    s.set_defaults(func=run)
