"""Reproduction of Tables 1 and 2 of Jung & O'Leary (2008), section 5.3.

Random weighted least-squares problems with n = 2m, A, D^2 and b uniform in
[0, 1] (Table 1), or D^2_i = 10^(-4 + 8 i / (n - 1)) (Table 2, ill-conditioned).
Columns in the paper's order: relative error of x0 and of the refined x against
a float64 CPU solve, refinement iterations, GPU time for x0 (transfers
included), refinement time, total, CPU time, speedup = CPU / total.
The CPU solve is what the paper's CPU column times: form A D^2 A^T, factor and
solve, all in float64 (here numpy/scipy's LAPACK on this host).
"""
from __future__ import annotations

import datetime as _dt
import time
import warnings

import numpy as np
import scipy.linalg as sla

from ..solvers.wls import wls

# The paper's rows: m -> (err x0, err refined, iterations, GPU x0, refine, total, CPU, speedup)
PAPER = {
    1: {512: (3.11e-4, 3.37e-13, 4, 0.39, 0.02, 0.41, 0.20, 0.49),
        1024: (3.10e-4, 4.25e-13, 4, 0.49, 0.04, 0.53, 1.03, 1.94),
        1536: (4.61e-4, 6.96e-13, 4, 1.33, 0.09, 1.42, 3.41, 2.40),
        2048: (1.01e-3, 1.76e-12, 5, 2.99, 0.22, 3.21, 7.95, 2.48)},
    2: {512: (2.92e-2, 1.16e-10, 7, 0.36, 0.02, 0.38, 0.20, 0.53),
        1024: (7.19e-2, 2.01e-10, 10, 0.48, 0.10, 0.58, 1.05, 1.81),
        1536: (9.35e-2, 2.37e-10, 13, 1.33, 0.30, 1.63, 3.41, 2.09),
        2048: (1.13e-1, 3.41e-10, 15, 3.00, 0.66, 3.66, 7.98, 2.18)},
}
COLUMNS = ["m", "err_x0", "err_refined", "iterations", "gpu_x0_s", "refine_s", "total_s", "cpu_s", "speedup"]


def problem(table: int, m: int, rng):
    n = 2 * m
    A = rng.random((m, n))
    b = rng.random(n)
    if table == 1:
        d2 = rng.random(n)
    elif table == 2:
        d2 = 10.0 ** (-4 + 8 * np.arange(n) / (n - 1))
    else:
        raise ValueError(f"the paper has Tables 1 and 2 for least squares, not {table}")
    return A, d2, b


def cpu_solve(A, d2, b):
    """Float64 on the host: form, factor, solve (the paper's CPU column)."""
    C = (A * d2) @ A.T
    return sla.cho_solve(sla.cho_factor(C, lower=True), A @ (d2 * b))


def run(table: int, sizes, *, packed: bool = False, method: str = "paper", seed: int = 2008, progress=True,
        ctx=None, solver: str = "normal", lstsq_reference: bool = False) -> list:
    """Rows of Table `table`.  Errors are against the paper's CPU solve (float64
    normal equations, itself off by about kappa^2 u64 on Table 2); with
    lstsq_reference=True also against float64 QR least squares (err_*_lstsq)."""
    rng = np.random.default_rng(seed)
    rows = []
    items = list(sizes)
    if progress:
        from .common import progress as bar

        items = bar(items, f"Table {table}")
    # warm-up: compile the kernels once so the first row is not charged for it
    wls(*problem(table, 8, np.random.default_rng(0)), method=method, ctx=ctx, solver=solver)
    for m in items:
        A, d2, b = problem(table, m, rng)
        t0 = time.perf_counter()
        x_cpu = cpu_solve(A, d2, b)
        cpu = time.perf_counter() - t0
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x, info = wls(A, d2, b, packed=packed, method=method, ctx=ctx, solver=solver)
        total = time.perf_counter() - t0
        refine = info.times.get("refine_total", 0.0)
        nrm = np.linalg.norm(x_cpu)
        rows.append({
            "m": m,
            "err_x0": float(np.linalg.norm(info.x0 - x_cpu) / nrm) if info.x0 is not None else float("nan"),
            "err_refined": float(np.linalg.norm(x - x_cpu) / nrm),
            "iterations": info.iterations,
            "gpu_x0_s": total - refine, "refine_s": refine, "total_s": total,
            "cpu_s": cpu, "speedup": cpu / total, "status": info.status, "solver": solver,
        })
        if lstsq_reference:
            D = np.sqrt(d2)
            ref = sla.lstsq((A * D).T, D * b, lapack_driver="gelsy")[0]
            nr = np.linalg.norm(ref)
            rows[-1]["err_x0_lstsq"] = float(np.linalg.norm(info.x0 - ref) / nr)
            rows[-1]["err_refined_lstsq"] = float(np.linalg.norm(x - ref) / nr)
    return rows


def format_table(table: int, rows: list, device: str) -> str:
    head = (f"Table {table} ({'random' if table == 1 else 'ill-conditioned'} weighted least squares, n = 2m) "
            f"on {device}, {_dt.date.today().isoformat()}; paper's values (GeForce 7800 GTX) in brackets\n")
    cols = ["m", "err x0", "err refined", "iter", "GPU x0 s", "refine s", "total s", "CPU s", "speedup"]
    lines = [head, "  ".join(f"{c:>20s}" for c in cols)]
    for r in rows:
        p = PAPER.get(table, {}).get(r["m"])
        cells = [f"{r['m']}",
                 _cell(r["err_x0"], p and p[0], "{:.2e}"), _cell(r["err_refined"], p and p[1], "{:.2e}"),
                 _cell(r["iterations"], p and p[2], "{}"), _cell(r["gpu_x0_s"], p and p[3], "{:.3f}"),
                 _cell(r["refine_s"], p and p[4], "{:.3f}"), _cell(r["total_s"], p and p[5], "{:.3f}"),
                 _cell(r["cpu_s"], p and p[6], "{:.3f}"), _cell(r["speedup"], p and p[7], "{:.2f}")]
        lines.append("  ".join(f"{c:>20s}" for c in cells) + ("" if r["status"] == "converged" else f"  ({r['status']})"))
    return "\n".join(lines)


def _cell(ours, paper, fmt):
    s = fmt.format(ours)
    return f"{s} [{fmt.format(paper)}]" if paper is not None else s


def csv_rows(table: int, rows: list, device: str) -> list:
    out = []
    for r in rows:
        p = PAPER.get(table, {}).get(r["m"])
        row = {"table": table, "device": device, "date": _dt.date.today().isoformat(), **r}
        if p:
            row.update({f"paper_{c}": v for c, v in zip(COLUMNS[1:], p)})
        out.append(row)
    return out
