"""`glgpgpu wls --table 1|2`: Tables 1 and 2 of the 2008 paper."""
from __future__ import annotations

from pathlib import Path

from .common import Formatter, add_out, fits_host, size_list, sizes, run_stamp


def run(args) -> int:

    from ..bench import device_slug, wls_tables, write_csv
    from ..gl import get_context

    ms = sizes(args.sizes)
    # A is m x 2m in float64 on the host, with a float32 copy and the reference's work (about 4 A's)
    fits_host(4 * 8 * 2 * max(ms) ** 2, f"--sizes {max(ms)} (A is {max(ms)} x {2 * max(ms)})")
    ctx = get_context()
    rows = wls_tables.run(args.table, ms, packed=args.packed, method=args.method)
    print(wls_tables.format_table(args.table, rows, ctx.caps.renderer))
    tag = "" if args.method == "paper" else f"-{args.method}"
    out = Path(args.out) / f"wls-table{args.table}{tag}-{device_slug(ctx)}-{run_stamp()}.csv"
    print("wrote", write_csv(wls_tables.csv_rows(args.table, rows, ctx.caps.renderer), out))
    return 0 if all(r["status"] == "converged" for r in rows) else 1


def register(sub):
    s = sub.add_parser("wls", help="weighted least squares: reproduce Table 1 or 2 of the 2008 paper",
                       formatter_class=Formatter)
    s.add_argument("--table", type=int, choices=[1, 2], required=True, help="which table of the 2008 paper")
    s.add_argument("--sizes", default="512,1024,1536,2048", type=size_list, help="comma-separated m (n = 2m)")
    s.add_argument("--packed", action="store_true", help="assemble and factor in the packed format")
    s.add_argument("--method", choices=["paper", "blocked", "compute"], default="paper",
                   help="paper (the reproduction, default), the blocked fragment kernels or the compute shaders")
    add_out(s, "CSV file")
    s.set_defaults(func=run)
