"""Reproduction of Table 3 of Jung (2006): the interior-point method on ten
NETLIB problems, with the paper's problem-specific tolerances, both Cholesky
variants, iteration counts beside the paper's, and the objective against the
reference optimum (listed in shared/data/netlib/README.md, as HiGHS reports it)."""
from __future__ import annotations

import datetime as _dt
import os
import time
from pathlib import Path

from ..solvers.lp import solve_mps

# problem -> (reference optimum, paper's eps, paper's GPU iterations, paper's GPU time inner / outer (s))
PAPER = {
    "adlittle": (2.2549496316e+05, 3e-5, 12, 0.60, 0.62),
    "afiro": (-4.6475314286e+02, 4e-5, 7, 0.20, 0.20),
    "agg2": (-2.0239252356e+07, 5e-5, 18, 22.77, 17.14),
    "agg3": (1.0312115935e+07, 6e-4, 20, 25.30, 19.02),
    "bandm": (-1.5862801845e+02, 2e-3, 12, 5.22, 4.45),
    "beaconfd": (3.3592485807e+04, 3e-4, 7, 1.23, 1.18),
    "blend": (-3.0812149846e+01, 2e-3, 11, 0.70, 0.88),
    "e226": (-1.1638929066e+01, 9e-4, 18, 4.94, 4.39),
    "sc50b": (-7.0000000000e+01, 3e-5, 6, 0.28, 0.29),
    "sctap1": (1.4122500000e+03, 5e-4, 15, 7.00, 6.02),
}


def data_dir() -> Path:
    """The NETLIB files: $GLGPGPU_NETLIB, else data/netlib of the checkout (a copy
    ships with the repository), else ../shared/data/netlib beside it."""
    env = os.environ.get("GLGPGPU_NETLIB")
    if env:
        return Path(env)
    from ..solvers.lp.problem import shipped_netlib
    if shipped_netlib() is not None:                 # the samples in the package (or checkout)
        return shipped_netlib()
    here = Path(__file__).resolve()
    for base in (here.parents[2], here.parents[2].parent, Path.cwd(), Path.cwd().parent):
        for cand in (base / "data" / "netlib", base / "shared" / "data" / "netlib"):
            if cand.is_dir():
                return cand
    raise FileNotFoundError("NETLIB problems not found: set GLGPGPU_NETLIB to the folder with afiro.mps.gz etc.")


def run(problems=None, variants=("inner", "outer"), progress=True, ctx=None) -> list:
    problems = list(problems or PAPER)
    folder = data_dir()
    jobs = [(p, v) for p in problems for v in variants]
    if progress:
        from .common import progress as bar

        jobs = bar(jobs, "Table 3")
    solve_mps(folder / "afiro.mps.gz", tol=1e-3, precision="single", ctx=ctx)   # warm-up: compile the kernels
    rows = []
    for name, variant in jobs:
        ref, eps, paper_it, t_in, t_out = PAPER[name]
        t0 = time.perf_counter()
        method = "blocked" if variant == "blocked" else "paper"
        res = solve_mps(folder / f"{name}.mps.gz", tol=eps, precision="single",      # the 2006 solver
                        cholesky="outer" if method == "blocked" else variant, method=method, ctx=ctx)
        dt = time.perf_counter() - t0
        rows.append({
            "problem": name, "rows": res.size[0] if res.size else 0, "cols": res.size[1] if res.size else 0,
            "eps": eps, "cholesky": variant, "status": res.status, "iterations": res.iterations,
            "paper_iterations": paper_it, "seconds": dt,
            "paper_seconds": t_in if variant == "inner" else t_out,   # (blocked: vs the paper's outer)
            "objective": res.objective, "reference": ref,
            "rel_diff": abs(res.objective - ref) / abs(ref) if ref else abs(res.objective),
            "within_eps": bool(abs(res.objective - ref) <= eps * abs(ref)),
            "violation": res.violation,
        })
    return rows


def format_table(rows, device: str) -> str:
    lines = [f"Table 3 (Jung 2006) on {device}, {_dt.date.today().isoformat()}: GPU interior-point method, "
             "float32; paper (GeForce 6800, BrookGPU) in brackets",
             f"{'problem':<9} {'size':>9} {'eps':>7} {'chol':>5} {'status':>10} {'iter':>8} {'time s':>15} "
             f"{'objective':>17} {'rel diff':>9}"]
    for r in rows:
        lines.append(f"{r['problem']:<9} {r['rows']:>4}x{r['cols']:<4} {r['eps']:>7.0e} {r['cholesky']:>5} "
                     f"{r['status']:>10} {r['iterations']:>3} [{r['paper_iterations']:>2}] "
                     f"{r['seconds']:>7.2f} [{r['paper_seconds']:>5.2f}] {r['objective']:>17.10g} "
                     f"{r['rel_diff']:>9.1e}{'' if r['within_eps'] else '  > eps'}")
    return "\n".join(lines)
