"""The large NETLIB problems a fragment method leaves to the host, both ways, in one run: the
GPU's float32 factor with its refinement (device="gpu") against the host's float64 factor
(device="cpu64": the multifrontal factor, every solve once by it), the latter with the BLAS
limited to each thread count asked (glgpgpu's own limit, BLAS_THREADS, set to it; "all" keeps
the machine's).  Beside each, HiGHS's IPM on the same file and the ratio of the dense m^3/3 to
the sparse factor's flops that device="auto" decides by (device.FRAGMENT_SPARSE_RATIO).

    python benchmarks/lp_host_paths.py NETLIB_DIR [problem ...] [--method blocked]
        [--threads 1,2,4,8,all] [--repeat 2] [--out DIR]

Writes lp-host-paths-<method>-<device>-<date>.csv: problem, device, blas_threads, repeat,
status, iterations, seconds, highs_s, time_ratio, sparse_ratio, float64_throughout,
multifrontal factors.
"""
from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import glgpgpu
from glgpgpu.bench.common import device_slug, netlib_parser, write_csv
from glgpgpu.bench.netlib import highs_seconds
from glgpgpu.solvers.lp import mixed
from glgpgpu.solvers.lp.mixed import bounded
from glgpgpu.solvers.lp.mixed.device import choose
from glgpgpu.solvers.lp.problem import from_mps
from glgpgpu.solvers.lp import presolve as rows_presolve

PROBLEMS = ["pilot87", "maros-r7", "dfl001"]


def sparse_ratio(path) -> float:
    """m^3/3 over the sparse float64 factor's flops, as device="auto" counts them."""
    t = rows_presolve.tighten(from_mps(str(path)))
    p = bounded.scale(bounded.presolve(bounded.from_general(t.lp)))
    c = choose(p.A, p.normal_flops, gpu_float64=False)
    return p.A.shape[0] ** 3 / 3.0 / c.flops


def main():
    ap = netlib_parser(__doc__, PROBLEMS)
    ap.add_argument("--threads", default="1,2,4,8,all")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    ctx = glgpgpu.get_context()
    threads = [None if t == "all" else int(t) for t in args.threads.split(",")]
    default = mixed.BLAS_THREADS
    rows = []
    for name in args.problems:
        path = Path(args.folder) / f"{name}.mps.gz"
        ratio = sparse_ratio(path)
        highs = highs_seconds(path)
        runs = [("gpu", default)] + [("cpu64", t) for t in threads]
        for rep in range(args.repeat):
            for device, t in runs:
                mixed.BLAS_THREADS = 10 ** 6 if t is None else t
                try:
                    t0 = time.perf_counter()
                    res = glgpgpu.solve_mps(path, method=args.method, device=device)
                    total = time.perf_counter() - t0
                finally:
                    mixed.BLAS_THREADS = default
                st = res.stats
                rows.append({"problem": name, "device": device, "blas_threads": "all" if t is None else t,
                             "repeat": rep, "status": res.status, "iterations": res.iterations, "seconds": total,
                             "highs_s": highs, "time_ratio": total / highs, "sparse_ratio": ratio,
                             "float64_throughout": st.get("float64_throughout"),
                             "multifrontal": st.get("host_factor_multifrontal"), "method": args.method,
                             "renderer": ctx.caps.renderer, "date": date.today().isoformat()})
                r = rows[-1]
                print(f"{name:<9} {device:<6} threads {r['blas_threads']!s:>4}  {res.status:<10} it {res.iterations:>3} "
                      f"{total:7.2f} s  (HiGHS {highs:.2f} s, ratio {ratio:.1f})", flush=True)
    out = Path(args.out) / f"lp-host-paths-{args.method}-{device_slug(ctx)}-{date.today().isoformat()}.csv"
    print("wrote", write_csv(rows, out))


if __name__ == "__main__":
    main()
