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


REGISTER = [register_bench]
