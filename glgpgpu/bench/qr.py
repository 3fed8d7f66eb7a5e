"""Yeralan et al.'s (2015) Tables I and II on this device: dense "short and fat" and "tall and
skinny" QR, canonical and executed GFLOP/s, beside host sgeqrf (scipy's LAPACK)
and, where installed, the GPU's compute path (torch.geqrf) in the same run; and
the 2008 paper's Table 2 solved by QR vs the normal equations.

Canonical flops are Golub & Van Loan's 2 m n^2 - 2 n^3 / 3 (m >= n; m and n
swapped for wide matrices).  Executed flops add what our algorithms do beyond it:
the reflectors' dots with earlier V columns (for T) and T itself, and the
Apply's T^T W product, the way the paper counts its GPU GFlops.
"""
from __future__ import annotations

import datetime as _dt

import math

import numpy as np

from ..api import qr
from ..gl import resolve
from .ceiling import ceiling
from .common import best_of, progress, save_figure

#: Yeralan et al. (2015), C2070, double precision: (rows, cols, canonical GFlops, GPU GFlops)
SEED = {1: [(128, 2048, 88.90, 89.60), (256, 4096, 110.30, 150.09), (384, 6144, 118.97, 159.17)],
        2: [(2048, 128, 29.42, 45.47), (4096, 256, 47.40, 69.80), (6144, 384, 60.31, 87.03)]}


def canonical_flops(m: int, n: int) -> float:
    a, b = (m, n) if m >= n else (n, m)
    return 2.0 * a * b * b - 2.0 * b ** 3 / 3


def executed_flops(m: int, n: int, method: str, nb: int = 32) -> float:
    s = min(m, n)
    extra = 0.0
    if method == "blocked":
        for kb in range(0, s, nb):
            bw = min(nb, s - kb)
            extra += (m - kb) * bw * bw          # dots with the panel's earlier reflectors (z for T)
            extra += bw ** 3 / 3                 # T by larft
            extra += 2 * bw * bw / 2 * max(n - kb - bw, 0)   # W2 = T^T W1
    return canonical_flops(m, n) + extra


def _host_sgeqrf(A):
    from scipy.linalg import lapack

    return lapack.sgeqrf(A)


def _torch_geqrf():
    try:
        import torch

        if torch.cuda.is_available():
            def run(A):
                t = torch.from_numpy(A).cuda()
                h, tau = torch.geqrf(t)
                return h.cpu().numpy(), tau.cpu().numpy()
            return run
    except Exception:   # noqa: BLE001 - torch missing or broken: the column stays empty
        pass
    return None


def blocked_kernel_seconds(ctx, A, repeat: int) -> float:
    """The blocked factorization alone (labelled kernel-only): A already in its texture,
    timed from the first draw to glFinish, best of `repeat`."""
    import time

    from ..blocked import qr as bqr
    from ..layouts.rgba import padded
    from ..gl.transfer import upload_rgba

    m, n = A.shape
    best = float("inf")
    for _ in range(max(1, repeat)):
        a_tex = upload_rgba(ctx, A, m, padded(n, 4), "A")
        ctx.finish()
        t0 = time.perf_counter()
        tt = bqr.qr_texture(a_tex, m, n, ctx=ctx)
        ctx.finish()
        best = min(best, time.perf_counter() - t0)
        ctx.pool.give(a_tex, tt)
    return best


def run_tables(ctx=None, *, tables=(1, 2), methods=("paper", "blocked"), scale: float = 1.0, repeat: int = 2,
               show=True) -> tuple:
    """Rows of Tables I/II for our methods (end to end: numpy in, numpy out) and the
    fragment FMA ceiling of this device; `scale` shrinks the shapes (CPU runs)."""
    ctx = resolve(ctx)
    ceil = ceiling(ctx, repeat=repeat)
    tgeqrf = _torch_geqrf()
    rng = np.random.default_rng(4)
    rows = []
    items = [(t, m, n, c, g) for t in tables for (m, n, c, g) in SEED[t]]
    for t, m0, n0, seed_c, seed_g in (progress(items, "QR tables") if show else items):
        m, n = max(1, int(m0 * scale)), max(1, int(n0 * scale))
        A = rng.standard_normal((m, n)).astype(np.float32)
        host = best_of(lambda: _host_sgeqrf(A), repeat)
        tor = best_of(lambda: tgeqrf(A), repeat) if tgeqrf else float("nan")
        for method in methods:
            qr(A, mode="raw", method=method, ctx=ctx)          # compile, cache the tables
            sec = best_of(lambda: qr(A, mode="raw", method=method, ctx=ctx), repeat)
            cf, ef = canonical_flops(m, n), executed_flops(m, n, method)
            kern = blocked_kernel_seconds(ctx, A, repeat) if method == "blocked" else float("nan")
            rows.append({
                "table": t, "device": ctx.caps.renderer, "date": _dt.date.today().isoformat(),
                "m": m, "n": n, "method": method, "seconds": sec,
                "gflops_canonical": cf / sec / 1e9, "gflops_executed": ef / sec / 1e9,
                "frac_fma_ceiling": ef / sec / 1e12 / ceil["fma_tflop_s"],
                "kernel_s": kern, "kernel_frac_fma_ceiling": ef / kern / 1e12 / ceil["fma_tflop_s"],
                "host_sgeqrf_s": host, "host_gflops": cf / host / 1e9, "gpu_over_host": host / sec,
                "torch_geqrf_s": tor, "seed_canonical_gflops": seed_c, "seed_gpu_gflops": seed_g,
                "paper_m": m0, "paper_n": n0,
            })
    return rows, ceil


def run_least_squares(ctx=None, sizes=(512, 1024), *, method: str = "auto") -> list:
    """The 2008 paper's Table 2 (ill-conditioned WLS) by the normal equations and by QR."""
    from .wls_tables import run

    rows = []
    for solver in ("normal", "qr"):
        rows += run(2, sizes, method=method, ctx=ctx, solver=solver, progress=False, lstsq_reference=True)
    return rows


def format_tables(rows, ceil) -> str:
    """The tables at most 100 characters wide: a column nobody measured is left out, and a
    cell that does not apply shows '-' (explained below the table)."""
    def num(v, fmt):
        return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)

    cols = [("tab", 3, lambda r: r["table"]), ("m", 5, lambda r: r["m"]), ("n", 5, lambda r: r["n"]),
            ("method", 7, lambda r: r["method"]), ("seconds", 8, lambda r: num(r["seconds"], ".4f")),
            ("GFLOP/s", 8, lambda r: num(r["gflops_canonical"], ".3g")),
            ("sgeqrf s", 8, lambda r: num(r["host_sgeqrf_s"], ".4f")),
            ("of FMA", 7, lambda r: num(100 * r["frac_fma_ceiling"], ".2f") + "%"),
            ("kernel s", 8, lambda r: num(r["kernel_s"], ".4f")),
            ("GPU/host", 8, lambda r: num(r["gpu_over_host"], ".3g")),
            ("torch s", 8, lambda r: num(r["torch_geqrf_s"], ".4f")),
            ("paper GF/s", 10, lambda r: r["seed_canonical_gflops"])]
    cols = [c for c in cols if any(str(c[2](r)) != "-" for r in rows)]       # measured somewhere
    out = [f"fragment FMA ceiling {ceil['fma_tflop_s']:.3g} TFLOP/s; GFLOP/s canonical (2mn^2 - 2n^3/3)",
           " ".join(f"{h:>{w}s}" for h, w, _ in cols)]
    for r in rows:
        out.append(" ".join(f"{str(f(r)):>{w}s}" for _, w, f in cols))
    out += ["kernel s: the GPU's draws alone (blocked; '-' for the paper's method: its draws are the call)",
            "paper GF/s: Yeralan et al. 2015 on a C2070, in double, at the paper's full shapes"]
    return "\n".join(out)


def plot_tables(rows, path):
    from ..teach.plotting import subplots

    tables = [t for t in (1, 2) if any(r["table"] == t for r in rows)]       # a panel per table there is
    fig, axes = subplots(1, len(tables), figsize=(5 * len(tables), 4))
    axes = np.atleast_1d(axes)
    for ax, t in zip(axes, tables):
        sel = [r for r in rows if r["table"] == t]
        labels = sorted({(r["m"], r["n"]) for r in sel}, key=lambda s: s[0] * s[1])
        x = np.arange(len(labels))
        methods = list(dict.fromkeys(r["method"] for r in sel))
        w = 0.8 / (len(methods) + 2)
        for i, meth in enumerate(methods):
            ys = [next(r["gflops_canonical"] for r in sel if (r["m"], r["n"]) == s and r["method"] == meth)
                  for s in labels]
            ax.bar(x + i * w, ys, w, label=f"GPU fragments, {meth}")
        ys = [next(r["host_gflops"] for r in sel if (r["m"], r["n"]) == s) for s in labels]
        ax.bar(x + len(methods) * w, ys, w, label="host sgeqrf")
        ys = [next(r["seed_canonical_gflops"] for r in sel if (r["m"], r["n"]) == s) for s in labels]
        shrunk = any((r.get("paper_m", r["m"]), r.get("paper_n", r["n"])) != (r["m"], r["n"]) for r in sel)
        paper = "Yeralan et al. 2015 (C2070, double)" + (", at the paper's full shapes" if shrunk else "")
        ax.bar(x + (len(methods) + 1) * w, ys, w, label=paper, hatch="//" if shrunk else None)
        ax.set_xticks(x + w, [f"{m}x{n}" for m, n in labels])
        ax.set_ylabel("canonical GFLOP/s")
        ax.set_yscale("log")
        ax.set_title(f"Table {'I short and fat' if t == 1 else 'II tall and skinny'}", fontsize=9)
        if shrunk:
            r0 = sel[0]
            fig.suptitle(f"shapes shrunk (e.g. {r0['m']}x{r0['n']} for the paper's {r0['paper_m']}x{r0['paper_n']}); "
                         "the paper's bars (hatched) are at its full shapes", fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=7, frameon=False)
    return save_figure(fig, path, rect=(0, 0.06, 1, 1))
