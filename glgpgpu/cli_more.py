"""Subcommands beyond `info`; each `register_*` adds one to the parser."""
from __future__ import annotations

from pathlib import Path


def _sizes(text: str):
    try:
        return [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise ValueError(f"--sizes takes comma-separated integers, got {text!r}") from None


def cmd_bench(args) -> int:
    from . import bench

    out = Path(args.out)
    res = bench.run_suite(args.suite, _sizes(args.sizes), args.repeat, out)
    c = res["ceiling"]
    print(f"ceiling: copy {c['copy_fill_gfrag_s']:.3g} Gfrag/s ({c['copy_gb_s']:.3g} GB/s), "
          f"FMA {c['fma_tflop_s']:.3g} TFLOP/s, dependent draw {c['dependent_draw_us']:.3g} us "
          f"(host issue {c['draw_issue_us']:.3g} us)")
    rows = res.get("rows", [])
    if rows:
        cols = ["m", "n", "variant", "seconds", "gfrag_s", "gb_s", "frac_copy_ceiling", "host_seconds",
                "host_over_gpu"] + (["over_floor"] if "over_floor" in rows[0] else [])
        print("  ".join(f"{c:>12s}" for c in cols))
        for r in rows:
            print("  ".join(f"{r[c]:>12.4g}" if isinstance(r[c], float) else f"{str(r[c]):>12s}" for c in cols))
    for f in res["files"]:
        print("wrote", f)
    return 0


def register_bench(sub):
    s = sub.add_parser("bench", help="benchmarks: ceiling | assembly | cholesky")
    s.add_argument("suite", choices=["ceiling", "assembly", "cholesky"])
    s.add_argument("--sizes", default="64,128", help="comma-separated m (default 64,128)")
    s.add_argument("--repeat", type=int, default=2, help="timed runs per point (best is kept)")
    s.add_argument("--out", default="benchmarks/results", help="folder for CSV and PNG")
    s.set_defaults(func=cmd_bench)


def cmd_wls(args) -> int:
    import datetime as dt

    from . import bench, wls_tables
    from .context import get_context

    ctx = get_context()
    sizes = _sizes(args.sizes)
    rows = wls_tables.run(args.table, sizes, packed=args.packed)
    print(wls_tables.format_table(args.table, rows, ctx.caps.renderer))
    out = Path(args.out) / f"wls-table{args.table}-{bench.device_slug(ctx)}-{dt.date.today().isoformat()}.csv"
    print("wrote", bench.write_csv(wls_tables.csv_rows(args.table, rows, ctx.caps.renderer), out))
    return 0 if all(r["status"] == "converged" for r in rows) else 1


def register_wls(sub):
    s = sub.add_parser("wls", help="weighted least squares: reproduce Table 1 or 2 of the 2008 paper")
    s.add_argument("--table", type=int, choices=[1, 2], required=True)
    s.add_argument("--sizes", default="512,1024,1536,2048", help="comma-separated m (n = 2m)")
    s.add_argument("--packed", action="store_true", help="assemble and factor in the packed format")
    s.add_argument("--out", default="benchmarks/results", help="folder for the CSV")
    s.set_defaults(func=cmd_wls)


REGISTER = [register_bench, register_wls]
