"""`glgpgpu lp PATH | --table 3`: the interior-point LP solver."""
from __future__ import annotations

import argparse
from pathlib import Path

from .common import Formatter, add_out, existing_dir, positive_int, tolerance, run_stamp


def mps_file(text: str) -> str:
    """A path to an MPS file, or the name of one of the NETLIB problems that ship in data/netlib."""
    if Path(text).is_file():
        return text
    from ..bench.lp_table3 import data_dir
    try:
        folder = data_dir()
    except FileNotFoundError:
        raise argparse.ArgumentTypeError(f"no such file: {text}") from None
    shipped = folder / f"{text}.mps.gz"
    if shipped.is_file():
        return str(shipped)
    names = ", ".join(sorted(p.name.split(".")[0] for p in folder.glob("*.mps.gz")))
    raise argparse.ArgumentTypeError(f"no such file: {text} (nor a NETLIB problem in {folder}: {names})")


def run(args) -> int:

    from ..bench import device_slug, lp_table3 as table3, write_csv
    from ..gl import get_context
    from ..solvers.lp import solve_mps

    if not args.netlib:
        only = [flag for flag, value in (("--max-rows", args.max_rows),) if value is not None]
        only += ["--problems"] if args.problems and not args.table else []
        if only:
            raise ValueError(f"{', '.join(only)} select(s) problems of --netlib DIR"
                             + ("" if "--max-rows" in only else " or --table 3")
                             + f"; with {'--table' if args.table else 'one MPS file'} there is nothing to select")
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
        out = Path(args.out) / f"lp-table3{tag}-{device_slug(ctx)}-{run_stamp()}.csv"
        print("wrote", write_csv([dict(r, device=ctx.caps.renderer) for r in rows], out))
        return 0 if all(r["status"] == "optimal" for r in rows) else 1
    if args.netlib:
        from ..bench import netlib

        names = args.problems.split(",") if args.problems else None
        netlib.problems(Path(args.netlib), names, args.max_rows)        # an empty folder or a wrong name: named now
        ctx = get_context() if args.device in ("gpu", "auto") else None
        print(f"NETLIB in {args.netlib}: method {args.method or 'auto'}, precision {args.precision}"
              + (f", {ctx.caps.renderer}" if ctx else ""))
        print(netlib.HEADER)
        stem = f"lp-netlib-{args.method or 'auto'}-{args.precision}-{device_slug(ctx) if ctx else args.device}"
        out = Path(args.out) / f"{stem}-{run_stamp()}.csv"
        rows = netlib.run(args.netlib, names, method=args.method or "auto", precision=args.precision,
                          tol=args.tol, max_rows=args.max_rows, csv_path=out, device=args.device)
        print(netlib.summary(rows, args.tol or 1e-8))
        print("wrote", write_csv([dict(r, device=ctx.caps.renderer if ctx else "cpu") for r in rows], out))
        return 0 if all(r["status"] == "optimal" for r in rows) else 1
    if not args.path:
        raise ValueError("give an MPS file (glgpgpu lp PATH.mps[.gz]), --netlib DIR or --table 3")

    def show(e):
        print(f"{e['iter']:>4} {e['pobj']:>15.8e} {e['dobj']:>15.8e} {e['rb']:>9.2e} {e['rc']:>9.2e} "
              f"{e['mu']:>9.2e} {e.get('alpha_p', 0):>7.4f} {e.get('alpha_d', 0):>7.4f}")

    print(f"{'iter':>4} {'primal obj':>15} {'dual obj':>15} {'|rb|rel':>9} {'|rc|rel':>9} {'mu':>9} "
          f"{'a_pri':>7} {'a_dual':>7}")
    res = solve_mps(args.path, tol=args.tol, precision=args.precision, cholesky=args.cholesky or "outer",
                    max_iter=args.max_iter, device=args.device,
                    method=args.method or ("paper" if args.cholesky else "auto"), callback=show)
    print(f"\nstatus: {res.status}{'  (' + res.message + ')' if res.message else ''}")
    print(f"objective: {res.objective:.12g}   iterations: {res.iterations}   standard form: "
          f"{res.size[0]} x {res.size[1]}   max violation: {res.violation:.2e}")
    print("times: " + ", ".join(f"{k} {v:.3f} s" for k, v in res.times.items()))
    if res.stats.get("device_asked") == "auto":
        where = "the host, float64" if res.stats["device"] == "cpu64" else "the GPU"
        why = {"software renderer": "the GL renderer is software", "no GL": "no OpenGL context",
               "sparse factor": f"a sparse float64 factor of {res.stats['factor_flops']:.3g} flops, far below the "
                                "GPU's dense one"}.get(res.stats.get("device_reason"),
                                                        f"a float64 factor of {res.stats['factor_flops']:.3g} flops")
        print(f"factored on {where} (device auto: {why})")
    return 0 if res.success else 1


def register(sub):
    s = sub.add_parser("lp", help="solve an LP (MPS file) by the GPU interior-point method, or --table 3",
                       formatter_class=Formatter)
    s.add_argument("path", nargs="?", type=mps_file,
                   help="MPS file, plain or .gz, or the name of a shipped NETLIB problem (e.g. afiro)")
    s.add_argument("--tol", type=tolerance, default=None,
                   help="termination tolerance (default 1e-8 mixed, 1e-5 single precision)")
    s.add_argument("--precision", choices=["mixed", "single"], default="mixed",
                   help="mixed: float64 iterates, float32 GPU factorizations (default); single: the 2006 solver")
    s.add_argument("--netlib", default=None, type=existing_dir, help="solve every MPS file in this folder, table + CSV against "
                                                  "optima.csv there")
    s.add_argument("--max-rows", type=positive_int, default=None, help="(--netlib) only problems with at most this many rows")
    s.add_argument("--cholesky", choices=["inner", "outer", "triad"], default=None,
                   help="the paper's Cholesky variant (implies method paper); default outer")
    s.add_argument("--max-iter", type=positive_int, default=None,
                   help="iteration limit (default 200 mixed, 100 single precision)")
    s.add_argument("--device", choices=["auto", "gpu", "cpu64", "cpu32"], default="auto",
                   help="where the normal equations are factored: auto -- the GPU, except small problems (few "
                        "rows after presolve: the host's float64 factor is quicker there); gpu -- the GPU "
                        "(float32) always; or the host -- cpu64 in "
                        "float64, sparse where A D A^T is (the yardstick); cpu32 dense float32 (for tests). With "
                        "--precision single: the numpy reference of the 2006 solver in that precision")
    s.add_argument("--method", choices=["paper", "blocked", "compute"], default=None,
                   help="the paper's kernels, the blocked fragment kernels or the compute shaders (default: blocked "
                        "for a file, paper for --table)")
    s.add_argument("--table", type=int, choices=[3], help="3: reproduce Table 3 of the 2006 paper on the shipped NETLIB set")
    s.add_argument("--problems", default=None, help="(--table, --netlib) comma-separated subset")
    add_out(s, "CSV file")
    s.set_defaults(func=run)
