"""Where an interior-point iteration's time goes, before and after (issue: the LP at
the speed of its GPU work), on the same machine in one run:

  before  A D A^T by the dense assembly of the scaled A (uploaded each iteration),
          the preconditioner's substitutions drawn on the GPU
  after   A D A^T by points (figures/points.py), substitutions on the host against
          the float32 factor read back once per factorization

    python benchmarks/lp_profile.py NETLIB_DIR [problem ...] [--method blocked] [--out DIR]

Writes lp-profile-<device>-<date>.csv: seconds per phase in all and per iteration
(assemble, factor, transfer, refine, of which substitute, other), iterations, status.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import glgpgpu
from glgpgpu.bench.common import device_slug, netlib_parser, write_csv
from glgpgpu.blocked import normal as blocked_normal
from glgpgpu.paper import normal as paper_normal
from glgpgpu.solvers.lp.mixed.normal import MixedNormal

PROBLEMS = ["afiro", "pilot87", "fit2p", "80bau3b", "dfl001"]
PHASES = ["assemble", "factor", "transfer", "refine", "substitute"]


@contextmanager
def configured(name):
    mods = (paper_normal, blocked_normal)
    pays, sub = [m.points_pay for m in mods], MixedNormal.SUBSTITUTION
    if name == "before":
        for m in mods:
            m.points_pay = lambda m_, n, count: False
        MixedNormal.SUBSTITUTION = "gpu"
    try:
        yield
    finally:
        for m, pay in zip(mods, pays):
            m.points_pay = pay
        MixedNormal.SUBSTITUTION = sub


def main():
    ap = netlib_parser(__doc__, PROBLEMS)
    ap.add_argument("--configs", default="before,after")
    args = ap.parse_args()
    ctx = glgpgpu.get_context()
    device = ctx.caps.renderer
    rows = []
    for name in args.problems:
        path = Path(args.folder) / f"{name}.mps.gz"
        for config in args.configs.split(","):
            with configured(config):
                t0 = time.perf_counter()
                res = glgpgpu.solve_mps(path, method=args.method)
                total = time.perf_counter() - t0
            t = res.times
            it = max(res.iterations, 1)
            row = {"problem": name, "config": config, "method": args.method, "status": res.status,
                   "iterations": res.iterations, "seconds": total, "assembly": res.stats.get("assembly"),
                   "substitution": res.stats.get("substitution"), "pcg_iterations": res.stats.get("pcg_iterations"),
                   "device": device, "date": date.today().isoformat()}
            for ph in PHASES:
                row[f"{ph}_s"] = t.get(ph, 0.0)
            row["other_s"] = max(0.0, total - sum(t.get(ph, 0.0) for ph in ("assemble", "factor", "transfer", "refine")))
            for ph in PHASES + ["other"]:
                row[f"{ph}_ms_per_iter"] = 1e3 * row[f"{ph}_s"] / it
            rows.append(row)
            print(f"{name:<9} {config:<6} {res.status:<10} it {res.iterations:>3}  {total:8.2f} s   " +
                  "  ".join(f"{ph} {row[f'{ph}_ms_per_iter']:8.1f}" for ph in PHASES + ["other"]) + "  ms/iter",
                  flush=True)
    name = f"lp-profile-{args.method}-{device_slug(ctx)}-{date.today().isoformat()}.csv"
    print("wrote", write_csv(rows, Path(args.out) / name))


if __name__ == "__main__":
    main()
