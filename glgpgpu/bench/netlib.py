"""`glgpgpu lp --netlib DIR`: every NETLIB problem in a folder, against HiGHS.

For each file: rows and columns, status, iterations beside HiGHS's interior-point
count (optima.csv in the folder), the relative objective error against HiGHS's
optimum, seconds, and where they went (assemble / factor on the GPU, refine =
the float64 refinement and PCG, other).  Both solvers are timed from the model read
(highspy's reader, the same file): the read's seconds are a column of their own.
"""
from __future__ import annotations

import csv
import gc
import time
from pathlib import Path

from ..solvers.lp.problem import from_mps
from ..solvers.lp.solver import solve_general
from .common import progress, say


def references(folder: Path) -> dict:
    """problem -> (rows, cols, HiGHS objective, HiGHS IPM iterations), from optima.csv."""
    path = folder / "optima.csv"
    if not path.exists():
        return {}
    with open(path) as f:
        return {r["problem"]: (int(r["rows"]), int(r["cols"]), float(r["highs_objective"]),
                               int(r["highs_ipm_iterations"])) for r in csv.DictReader(f)}


def problems(folder: Path, names=None, max_rows: int | None = None) -> list:
    """The problem names to run, smallest first (by rows x cols where optima.csv says)."""
    ref = references(folder)
    found = sorted(p.name[:-len(".mps.gz")] for p in folder.glob("*.mps.gz"))
    found += sorted(p.name[:-len(".mps")] for p in folder.glob("*.mps"))
    if not found:
        raise FileNotFoundError(f"no MPS files (*.mps, *.mps.gz) in {folder}")
    if names:
        missing = sorted(set(names) - set(found))
        if missing:
            raise FileNotFoundError(f"not in {folder}: {', '.join(missing)}")
        found = [n for n in found if n in names]
    if max_rows is not None:
        found = [n for n in found if n not in ref or ref[n][0] <= max_rows]
    return sorted(found, key=lambda n: (ref[n][0] * ref[n][1]) if n in ref else 0)


def relative_error(value: float, reference: float) -> float:
    """|value - reference| / max(1, |reference|)."""
    return abs(value - reference) / max(1.0, abs(reference))


def highs_ipm(model) -> tuple:
    """(seconds, objective, status) of HiGHS's interior-point method without crossover on a
    `highspy.HighsLp`, the model passed before the clock starts: the time a user would
    compare with."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "ipm")
    h.setOptionValue("run_crossover", "off")
    h.passModel(model)
    t0 = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - t0
    return seconds, float(h.getInfo().objective_function_value), h.modelStatusToString(h.getModelStatus())


def highs_seconds(path) -> float:
    """highs_ipm's seconds on the model of an MPS file (the model read, then the solve timed)."""
    from ..solvers.lp.problem import read_model

    return highs_ipm(read_model(str(path)))[0]


def run(folder, names=None, *, method="auto", precision="mixed", tol=None, max_rows=None, show=True,
        ctx=None, csv_path=None, highs=True, device="auto") -> list:
    """Solve each problem; `csv_path`: rewrite the CSV after every problem (a long
    run stopped midway keeps what it measured); `highs`: time HiGHS's IPM beside it.
    The extension modules the solver loads on first use (highspy reads the MPS files,
    qdldl factors on the host) are loaded before the first clock starts, as the GL
    context is: otherwise the first problem alone pays ~30 ms of loading (afiro's time 3x)."""
    _load_modules()
    folder = Path(folder)
    ref = references(folder)
    rows = []
    for name in progress(problems(folder, names, max_rows), "NETLIB") if show else problems(folder, names,
                                                                                           max_rows):
        path = folder / f"{name}.mps.gz"
        path = path if path.exists() else folder / f"{name}.mps"
        # the model read first, then the solve timed -- as HiGHS's is (highs_seconds): the same
        # reader (highspy's) on both sides, so the read is left out of both.  The earlier
        # problems' garbage is collected before the clock starts: a full collection (~15 ms on
        # the CPU machine, over the objects 74 solves leave) landing inside a 5 ms problem is
        # the run's, not the problem's
        t0 = time.perf_counter()
        lp = from_mps(str(path))
        read_s = time.perf_counter() - t0
        gc.collect()
        t0 = time.perf_counter()
        res = solve_general(lp, method=method, precision=precision, tol=tol, ctx=ctx, device=device)
        factored = res.stats.get("device", device)
        seconds = time.perf_counter() - t0
        h_seconds = highs_seconds(path) if highs else float("nan")
        r_rows, r_cols, r_obj, r_it = ref.get(name, (None, None, float("nan"), None))
        t = res.times
        rows.append({
            "problem": name, "device_kind": factored, "device_reason": res.stats.get("device_reason", ""),
            "rows": r_rows, "cols": r_cols,
            "solved_rows": res.size[0] if res.size else 0,
            "solved_cols": res.size[1] if res.size else 0, "method": method, "precision": precision,
            "status": res.status, "iterations": res.iterations, "highs_iterations": r_it,
            "iteration_ratio": res.iterations / r_it if r_it else float("nan"),
            "objective": res.objective, "highs_objective": r_obj, "rel_obj_error": relative_error(res.objective, r_obj),
            "primal_infeasibility": res.primal_infeasibility, "dual_infeasibility": res.dual_infeasibility,
            "gap": res.gap, "seconds": seconds, "highs_s": h_seconds, "time_ratio": seconds / h_seconds,
            "read_s": read_s,
            "assemble_s": t.get("assemble", 0.0), "factor_s": t.get("factor", 0.0),
            "refine_s": t.get("refine", 0.0),          # host refinement + PCG, GPU substitutions included
            "substitute_s": t.get("substitute", 0.0),  # of which the GPU's triangular solves
            "other_s": max(0.0, seconds - t.get("assemble", 0.0) - t.get("factor", 0.0) - t.get("refine", 0.0)),
            "transfer_s": t.get("transfer", 0.0),
            "assembly": res.stats.get("assembly", ""), "substitution": res.stats.get("substitution", ""),
            "pcg_iterations": res.stats.get("pcg_iterations", ""),
            "host_fallbacks": res.stats.get("host_fallbacks", ""),
            "host_factors": (" ".join(str(res.stats.get(f"host_factor_{k}", 0)) for k in HOST_FACTORS)
                             if "host_factor_sparse" in res.stats else ""),
            "gpu_float64_factors": res.stats.get("gpu_factor_float64", ""),
            "message": res.message,
        })
        if show:
            say(format_row(rows[-1]))
        if csv_path is not None:
            from .common import write_csv

            write_csv(rows, Path(csv_path))
    return rows


def _load_modules() -> None:
    import importlib

    for name in ("highspy", "qdldl"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass                     # the solver says so where it needs one


#: the kinds of the LP's float64 host factor, as the CSV's host_factors column counts them (in order)
HOST_FACTORS = ("multifrontal", "sparse", "dense")

HEADER = (f"{'problem':<10} {'rows':>5} {'cols':>6} {'status':<18} {'iter':>4} {'HiGHS':>5} {'ratio':>5} "
          f"{'rel obj err':>11} {'seconds':>8} {'HiGHS s':>8} {'x HiGHS':>7} {'assemble':>8} {'factor':>7} "
          f"{'refine':>7} {'other':>7}")


def format_row(r) -> str:
    return (f"{r['problem']:<10} {r['rows'] or 0:>5} {r['cols'] or 0:>6} {r['status']:<18} {r['iterations']:>4} "
            f"{r['highs_iterations'] or 0:>5} {r['iteration_ratio']:>5.2f} {r['rel_obj_error']:>11.1e} "
            f"{r['seconds']:>8.2f} {r['highs_s']:>8.3f} {r['time_ratio']:>7.1f} {r['assemble_s']:>8.2f} "
            f"{r['factor_s']:>7.2f} {r['refine_s']:>7.2f} {r['other_s']:>7.2f}")


def summary(rows, tol: float = 1e-8) -> str:
    ok = [r for r in rows if r["status"] == "optimal" and r["rel_obj_error"] <= tol]
    ratios = [r["iteration_ratio"] for r in rows if r["iteration_ratio"] == r["iteration_ratio"]]
    return (f"{len(ok)} of {len(rows)} optimal with relative objective error <= {tol:g}; iterations / HiGHS's: "
            f"max {max(ratios, default=float('nan')):.2f}, mean {sum(ratios) / max(len(ratios), 1):.2f}; "
            f"{sum(r['seconds'] for r in rows):.1f} s in all (HiGHS's IPM, no crossover, same machine: "
            f"{sum(r['highs_s'] for r in rows):.2f} s; both from the model read, the reads "
            f"{sum(r.get('read_s', 0.0) for r in rows):.2f} s)" + _paths(rows))


def _paths(rows) -> str:
    """How many problems took each A D A^T assembly and substitution (res.stats)."""
    parts = []
    for key, what in (("assembly", "A D A^T by"), ("substitution", "substitutions on the")):
        seen = [r.get(key) for r in rows if r.get(key)]
        if seen:
            parts.append(f"{what} " + ", ".join(f"{v}: {seen.count(v)}" for v in sorted(set(seen))))
    # device="auto"'s host choices by their reason (device.py): a small factor, or a sparse one
    # far below the GPU's dense factor
    reasons = [r.get("device_reason") for r in rows if r.get("device_kind") == "cpu64"]
    told = [(n, reasons.count(k)) for k, n in (("flops", "a small factor"), ("sparse factor", "a sparse factor"))]
    if any(c for _, c in told):
        parts.append("factored on the host by device='auto' for " + ", ".join(f"{n}: {c}" for n, c in told if c))
    soft = [r for r in rows if r.get("device_reason") == "software renderer"]
    if soft:
        parts.append(f"factored on the host by device='auto' as the GL renderer is software: {len(soft)}")
    fallbacks = [r["host_factors"].split() for r in rows if r.get("host_factors")]
    if fallbacks:
        counts = [sum(int(f[k]) for f in fallbacks) for k in range(len(HOST_FACTORS))]
        parts.append("float64 host factors (the solves' last resort): "
                     + ", ".join(f"{c} {k}" for k, c in zip(HOST_FACTORS, counts)))
    gpu64 = sum(int(r["gpu_float64_factors"]) for r in rows if r.get("gpu_float64_factors") not in (None, ""))
    if gpu64:
        parts.append(f"float64 GPU factors (method='compute'): {gpu64}")
    return "; " + "; ".join(parts) if parts else ""
