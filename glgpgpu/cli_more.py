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

    if args.suite in ("wls", "lp"):
        # the Tables 1-3 runs of their own commands, with the same --out
        import argparse as _ap

        if args.suite == "wls":
            code = 0
            for table in (1, 2):
                ns = _ap.Namespace(table=table, sizes=args.sizes, packed=False, method="paper", out=args.out)
                code |= cmd_wls(ns)
            return code
        ns = _ap.Namespace(table=3, path=None, cholesky=None, method=None, problems=None, out=args.out)
        return cmd_lp(ns)
    out = Path(args.out)
    res = bench.run_suite(args.suite, _sizes(args.sizes), args.repeat, out)
    c = res["ceiling"]
    print(f"ceiling: copy {c['copy_fill_gfrag_s']:.3g} Gfrag/s ({c['copy_gb_s']:.3g} GB/s), "
          f"FMA {c['fma_tflop_s']:.3g} TFLOP/s, RGBA fetch {c['rgba_fetch_g_s']:.3g} G/s, "
          f"dependent draw {c['dependent_draw_us']:.3g} us (host issue {c['draw_issue_us']:.3g} us, "
          f"GPU time {c['draw_gpu_us']:.3g} us)")
    rows = res.get("rows", [])
    if rows:
        cols = ["m", "n", "variant", "seconds", "gfrag_s", "gb_s", "frac_copy_ceiling", "tflop_s",
                "frac_fma_ceiling", "host_seconds", "host_over_gpu", "over_floor"]
        print("  ".join(f"{c:>12s}" for c in cols))
        for r in rows:
            print("  ".join(f"{r.get(c, ''):>12.4g}" if isinstance(r.get(c), float) else f"{str(r.get(c, '')):>12s}"
                            for c in cols))
    for r in res.get("tune", []):
        print(f"tune {r['kernel']:<9} m={r['m']} B={r['B']} P={r['P']}: {r['seconds']:.4f} s, "
              f"{r['tflop_s']:.3f} TFLOP/s")
    for f in res["files"]:
        print("wrote", f)
    return 0


def register_bench(sub):
    s = sub.add_parser("bench", help="benchmarks: ceiling | assembly | cholesky | tune | wls | lp")
    s.add_argument("suite", choices=["ceiling", "assembly", "cholesky", "tune", "wls", "lp"])
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
    rows = wls_tables.run(args.table, sizes, packed=args.packed, method=args.method)
    print(wls_tables.format_table(args.table, rows, ctx.caps.renderer))
    tag = "" if args.method == "paper" else f"-{args.method}"
    out = Path(args.out) / f"wls-table{args.table}{tag}-{bench.device_slug(ctx)}-{dt.date.today().isoformat()}.csv"
    print("wrote", bench.write_csv(wls_tables.csv_rows(args.table, rows, ctx.caps.renderer), out))
    return 0 if all(r["status"] == "converged" for r in rows) else 1


def register_wls(sub):
    s = sub.add_parser("wls", help="weighted least squares: reproduce Table 1 or 2 of the 2008 paper")
    s.add_argument("--table", type=int, choices=[1, 2], required=True)
    s.add_argument("--sizes", default="512,1024,1536,2048", help="comma-separated m (n = 2m)")
    s.add_argument("--packed", action="store_true", help="assemble and factor in the packed format")
    s.add_argument("--method", choices=["paper", "blocked"], default="paper",
                   help="paper (the reproduction, default) or the blocked fast path")
    s.add_argument("--out", default="benchmarks/results", help="folder for the CSV")
    s.set_defaults(func=cmd_wls)


def cmd_trace(args) -> int:
    from . import runs

    rec = runs.record(args.algorithm, args.m, packed=args.packed, n=args.n)
    print(runs.format_trace(rec, args.algorithm, args.m, args.packed))
    return 0


def register_trace(sub):
    from .runs import ALGORITHMS

    s = sub.add_parser("trace", help="print every draw of a small run: kernel, vertices, fragments")
    s.add_argument("algorithm", choices=ALGORITHMS)
    s.add_argument("--m", type=int, default=6)
    s.add_argument("--n", type=int, default=None, help="columns of A (assembly)")
    s.add_argument("--packed", action="store_true")
    s.set_defaults(func=cmd_trace)


def cmd_demo(args) -> int:
    if args.window:
        from . import window

        return window.run(algorithm=args.algorithm, m=args.m, packed=args.packed,
                          screenshot=args.screenshot, step=args.step)
    from . import demo

    index = demo.build(Path(args.out), sizes=tuple(_sizes(args.sizes)))
    print(f"wrote the pictures, GIFs and {index}  (open it in a browser)")
    return 0


def register_demo(sub):
    s = sub.add_parser("demo", help="pictures (or a window) of which fragments each triangle computes")
    s.add_argument("--out", default="demo_out", help="folder for PNG, GIF and index.html")
    s.add_argument("--sizes", default="6,7", help="matrix orders to show (one even, one odd)")
    s.add_argument("--window", action="store_true", help="interactive glfw window instead of files")
    s.add_argument("--algorithm", default="cholesky", choices=["assembly", "cholesky"], help="(window)")
    s.add_argument("--m", type=int, default=6, help="(window) matrix order")
    s.add_argument("--packed", action="store_true", help="(window) start in the packed format")
    s.add_argument("--step", type=int, default=0, help="(window) pass to show first")
    s.add_argument("--screenshot", default=None, help="(window) save this PNG of the first frame and exit")
    s.set_defaults(func=cmd_demo)


def cmd_lp(args) -> int:
    import datetime as dt

    from . import bench
    from .context import get_context
    from .lp import solve_mps, table3

    if args.table:
        if args.table != 3:
            raise ValueError("the LP table of the papers is Table 3")
        ctx = get_context()
        variants = [args.cholesky] if args.cholesky else ["inner", "outer"]
        if args.method == "blocked":
            variants = ["blocked"]
        rows = table3.run(args.problems.split(",") if args.problems else None, variants)
        print(table3.format_table(rows, ctx.caps.renderer))
        tag = "-blocked" if args.method == "blocked" else ""
        out = Path(args.out) / f"lp-table3{tag}-{bench.device_slug(ctx)}-{dt.date.today().isoformat()}.csv"
        print("wrote", bench.write_csv([dict(r, device=ctx.caps.renderer) for r in rows], out))
        return 0 if all(r["status"] == "optimal" for r in rows) else 1
    if not args.path:
        raise ValueError("give an MPS file (glgpgpu lp PATH.mps[.gz]) or --table 3")

    def show(e):
        print(f"{e['iter']:>4} {e['pobj']:>15.8e} {e['dobj']:>15.8e} {e['rb']:>9.2e} {e['rc']:>9.2e} "
              f"{e['mu']:>9.2e} {e.get('alpha_p', 0):>7.4f} {e.get('alpha_d', 0):>7.4f}")

    print(f"{'iter':>4} {'primal obj':>15} {'dual obj':>15} {'|rb|rel':>9} {'|rc|rel':>9} {'mu':>9} "
          f"{'a_pri':>7} {'a_dual':>7}")
    res = solve_mps(args.path, tol=args.tol, cholesky=args.cholesky or "outer", max_iter=args.max_iter,
                    device=args.device, method=args.method or ("paper" if args.cholesky else "auto"),
                    callback=show)
    if res.log:
        show(res.log[-1])
    print(f"\nstatus: {res.status}{'  (' + res.message + ')' if res.message else ''}")
    print(f"objective: {res.objective:.12g}   iterations: {res.iterations}   standard form: "
          f"{res.size[0]} x {res.size[1]}   max violation: {res.violation:.2e}")
    print("times: " + ", ".join(f"{k} {v:.3f} s" for k, v in res.times.items()))
    return 0 if res.success else 1


def register_lp(sub):
    s = sub.add_parser("lp", help="solve an LP (MPS file) by the GPU interior-point method, or --table 3")
    s.add_argument("path", nargs="?", help="MPS file, plain or .gz")
    s.add_argument("--tol", type=float, default=1e-6, help="termination tolerance eps of (6.1)-(6.3)")
    s.add_argument("--cholesky", choices=["inner", "outer", "triad"], default=None)
    s.add_argument("--max-iter", type=int, default=100)
    s.add_argument("--device", choices=["gpu", "cpu64", "cpu32"], default="gpu",
                   help="where the vectors live (cpu64/cpu32: the numpy reference)")
    s.add_argument("--method", choices=["paper", "blocked"], default=None,
                   help="paper kernels or the blocked fast path (default: blocked for a file, paper for --table)")
    s.add_argument("--table", type=int, help="3: reproduce Table 3 of the 2006 paper on the NETLIB set")
    s.add_argument("--problems", default=None, help="(--table) comma-separated subset")
    s.add_argument("--out", default="benchmarks/results")
    s.set_defaults(func=cmd_lp)


REGISTER = [register_bench, register_wls, register_trace, register_demo, register_lp]
