"""What every suite shares: the device's name in file names, best-of-n timing,
progress bars, one result row, CSV and plot output, the NETLIB scripts' arguments."""
from __future__ import annotations

import argparse
import csv
import datetime as _dt
import re
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np


def device_slug(ctx) -> str:
    """The renderer's name as a file-name stem."""
    s = re.sub(r"[^A-Za-z0-9]+", "-", ctx.caps.renderer).strip("-").lower()
    return s[:40]


def best_of(fn, repeat):
    """Fastest of `repeat` calls of fn(), seconds."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def timings(fn, repeat: int) -> list:
    """Seconds of each of `repeat` calls of fn(), after one untimed call (kernels built, caches warm)."""
    fn()
    out = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def progress(items, desc):
    try:
        from tqdm import tqdm

        import sys

        return tqdm(items, desc=desc, leave=False, disable=not sys.stderr.isatty())   # no bar in logs
    except ImportError:  # pragma: no cover
        return items


def say(line: str) -> None:
    """Print a line while a progress bar may be drawn: above the bar, not through it."""
    try:
        from tqdm import tqdm

        tqdm.write(line)
    except ImportError:  # pragma: no cover
        print(line, flush=True)


def make_row(suite, ctx, m, n, variant, seconds, frags, byts, ceil, host, extra=None):
    """One CSV row: seconds, fragment and byte rates, fraction of the copy ceiling, host ratio."""
    row = {
        "suite": suite, "device": ctx.caps.renderer, "date": _dt.date.today().isoformat(),
        "m": m, "n": n, "variant": variant, "seconds": seconds,
        "gfrag_s": frags / seconds / 1e9, "gb_s": byts / seconds / 1e9, "fragments": frags,
        "frac_copy_ceiling": (frags / seconds / 1e9 / ceil["copy_fill_gfrag_s"]) if ceil else "",
        "host_seconds": host, "host_over_gpu": host / seconds,
    }
    row.update(extra or {})
    return row


@contextmanager
def csv_rows(path, columns: list):
    """A CSV at `path` with these columns, written row by row as a long run goes: yields
    emit(row), which writes the row, flushes the file and prints it as key=value."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, columns)
        w.writeheader()

        def emit(row: dict) -> None:
            w.writerow(row)
            f.flush()
            print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        yield emit


def provenance() -> dict:
    """Where a result came from: glgpgpu's version and commit (a checkout's), Python and
    the libraries' versions (those imported), the renderer and driver of the thread's
    context if it has one, the machine, the time."""
    import json  # noqa: F401 -- the caller writes it
    import platform
    import subprocess
    import sys

    from importlib.metadata import PackageNotFoundError, version
    try:
        ours = version("glgpgpu")
    except PackageNotFoundError:
        ours = "0+unknown"
    out = {"glgpgpu": ours, "python": platform.python_version(), "machine": platform.platform(),
           "written": _dt.datetime.now().isoformat(timespec="seconds")}
    try:
        root = Path(__file__).resolve().parents[2]
        out["commit"] = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                                       text=True, timeout=5).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        out["commit"] = None
    for name in ("numpy", "scipy", "moderngl", "torch", "sklearn", "highspy", "dask", "distributed"):
        mod = sys.modules.get(name)
        if mod is not None:
            out[name] = getattr(mod, "__version__", "?")
    from ..gl.context import _threads
    ctx = getattr(_threads, "current", None)
    if ctx is not None and getattr(ctx, "caps", None) is not None:
        out.update(renderer=ctx.caps.renderer, gl_version=ctx.caps.version, vendor=ctx.caps.vendor)
    return out


def write_provenance(csv_path) -> Path:
    """provenance() as JSON beside a CSV: <name>.provenance.json."""
    import json
    path = Path(csv_path)
    side = path.with_name(path.stem + ".provenance.json")
    side.write_text(json.dumps(provenance(), indent=1) + "\n")
    return side


def write_csv(rows: list, path: Path) -> Path:
    """rows as CSV (the union of their keys, in first-seen order) and, beside it, the
    run's provenance (write_provenance)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_provenance(path)
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    return path


def plot(rows: list, path: Path, title: str, host_keys: dict) -> Path:
    from ..teach.plotting import subplots

    fig, ax = subplots(figsize=(6.4, 4.4))
    for v in dict.fromkeys(r["variant"] for r in rows):
        pts = [(r["m"], r["seconds"]) for r in rows if r["variant"] == v]
        ax.plot(*zip(*pts), "o-", label=f"GPU {v}")
    for key, label in host_keys.items():
        pts = sorted({(r["m"], r[key]) for r in rows if key in r})
        if pts:
            ax.plot(*zip(*pts), "s--", label=label)
    ax.set_xlabel("m")
    ax.set_ylabel("seconds")
    ax.set_yscale("log")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=.3)
    legend(ax)
    return save_figure(fig, path)


#: legend entries that fit inside the axes; more go beside them (a legend never hides the data)
LEGEND_INSIDE = 6


def legend(ax) -> None:
    """The axes' legend: inside where it is short, else beside the axes on the right."""
    n = len(ax.get_legend_handles_labels()[1])
    if n <= LEGEND_INSIDE:
        ax.legend(fontsize=8)
    else:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0,
                  ncol=1 + n // 24, frameon=False)


def save_figure(fig, path: Path, rect=(0, 0, 1, 1)) -> Path:
    """Write a matplotlib figure as PNG (folders made); rect: the part of the
    figure the axes may fill (room left for a legend below them)."""

    fig.tight_layout(rect=rect)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")      # a legend beside the axes is kept
    return path


def call_inputs(rng, m: int):
    """The inputs the end-to-end and host suites hand the public calls at order m
    (n = 2m): A, d2 > 0, an SPD C with its float64-exact factor L, b (m), bw (n)."""
    n = 2 * m
    A = rng.random((m, n), dtype=np.float32)
    d2 = rng.random(n, dtype=np.float32) + 0.5
    X = rng.random((m, m), dtype=np.float32)
    C = (X @ X.T + m * np.eye(m, dtype=np.float32)).astype(np.float32)
    L = np.linalg.cholesky(C.astype(np.float64)).astype(np.float32)
    b = rng.random(m, dtype=np.float32)
    bw = rng.random(n).astype(np.float32)
    return A, d2, C, L, b, bw


def netlib_parser(doc: str, problems: list) -> argparse.ArgumentParser:
    """The arguments the NETLIB benchmark scripts share: the folder of MPS files, problem names
    (default `problems`), --method (default blocked) and --out (default benchmarks/results)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("problems", nargs="*", default=problems)
    ap.add_argument("--method", default="blocked")
    ap.add_argument("--out", default="benchmarks/results")
    return ap
