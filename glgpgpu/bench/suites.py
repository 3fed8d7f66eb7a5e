"""`glgpgpu bench SUITE`: run a suite beside the ceiling it is measured against,
write CSV (+ PNG) named after the device and the date."""
from __future__ import annotations

import csv
import datetime as _dt
import time
from pathlib import Path

from ..gl import resolve
from .assembly import assembly
from .ceiling import ceiling
from .cholesky import cholesky
from .common import device_slug, plot, write_csv
from .endtoend import end_to_end
from .host import host_overhead
from .ladder import ladder
from .tune import tune_blocked


# suite -> (measure, plot title, host lines of the plot)
FIGURES = {
    "e2e": (end_to_end, "public calls end to end (numpy in, numpy out)",
            {"host_seconds": "host best (numpy / spotrf)"}),
    "host": (host_overhead, "host seconds per call (Python + numpy, GL driver time excluded)", {}),
    "assembly": (assembly, "A D^2 A^T, n = 2m (Fig. 8)",
                 {"host_numpy_s": "host (A*d2) @ A.T", "host_ssyrk_s": "host ssyrk"}),
    "cholesky": (cholesky, "Cholesky (Fig. 9)", {"host_spotrf_s": "host spotrf", "host_sgetrf_s": "host sgetrf"}),
}


def run_suite(suite: str, sizes, repeat: int, out: Path, ctx=None) -> dict:
    """Run one suite (plus `ceiling`, which the others are measured against)."""
    ctx = resolve(ctx)
    date = _dt.date.today().isoformat()
    stem = f"{device_slug(ctx)}-{date}"            # the ceiling's file: one row per suite run, appended
    run = f"{device_slug(ctx)}-{time.strftime('%Y-%m-%d-%H%M%S')}"   # the suites' own: one file per run
    ceil = ceiling(ctx, repeat=repeat)
    result = {"ceiling": ceil, "files": []}
    crow = dict(suite="ceiling", measured_with=suite, device=ctx.caps.renderer, date=date, **ceil)
    path = out / f"ceiling-{stem}.csv"
    earlier = list(csv.DictReader(open(path))) if path.exists() else []   # one row per suite run
    result["files"].append(write_csv(earlier + [crow], path))
    if suite in FIGURES:
        measure, title, host_lines = FIGURES[suite]
        rows = measure(ctx, sizes, repeat, ceil)
        result["files"].append(write_csv(rows, out / f"{suite}-{run}.csv"))
        result["files"].append(plot(rows, out / f"{suite}-{run}.png",
                                    f"{title} - {ctx.caps.renderer}, {date}", host_lines))
        result["rows"] = rows
    elif suite == "tune":
        rows = []
        for m in sizes:
            rows += tune_blocked(ctx, m, repeat)
        result["files"].append(write_csv(rows, out / f"tune-{run}.csv"))
        result["tune"] = rows
    elif suite == "ladder":
        rows = ladder(ctx, sizes, repeat, ceil)
        result["files"].append(write_csv(rows, out / f"ladder-{run}.csv"))
        result["ladder"] = rows
    elif suite != "ceiling":
        raise ValueError(f"unknown suite {suite!r}: ceiling, assembly, cholesky, tune, e2e, host, ladder")
    return result
