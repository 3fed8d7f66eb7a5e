"""Yeralan et al. (2017)'s Table IV, Table V and Fig. 15 from a measured run of
`benchmarks/sparse_qr_gpu.py` (its CSV: one row per matrix with the GPU's and
SuiteSparseQR's seconds on the same host, flops and the paper's intensity)."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ..errors import optional_import
from .common import save_figure

#: Table V's intensity ranges (matrices below 10 are left out, as the paper does)
RANGES = ((10, 30), (30, 100), (100, 300), (300, np.inf))
#: the paper's Table V: (matrices, min, median, max speedup) per range
PAPER_TABLE5 = ((136, 0.5, 2.1, 8.1), (152, 0.7, 3.8, 10.6), (162, 1.3, 5.2, 10.6), (64, 2.3, 5.1, 11.4))
#: Table IV's matrices here: the two generated exactly as in Table III and the substitutes
TABLE4 = ("ch7-8-b3", "nug20", "nug15", "ch6-7-b3", "grid3d_40", "dfl001", "fit2p")


def read(path) -> list:
    """The rows of a sparse_qr_gpu.py CSV that have SuiteSparseQR's time (the last
    measurement of a matrix measured twice)."""
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            try:
                spqr, gpu = float(r["spqr_seconds"]), float(r["seconds"])
            except (KeyError, ValueError):
                continue
            if spqr > 0 and gpu > 0:
                out[r["matrix"]] = dict(r, spqr_seconds=spqr, seconds=gpu, intensity=float(r["intensity"]),
                                        flops=float(r["flops"]), speedup=spqr / gpu)
    if not out:
        raise ValueError(f"{path} has no row with both the GPU's and SuiteSparseQR's seconds "
                         "(write one with benchmarks/sparse_qr_gpu.py where SuiteSparseQR is installed)")
    return list(out.values())


def table5(rows) -> list:
    """Per intensity range: (lo, hi, matrices, min, median, max speedup)."""
    out = []
    for lo, hi in RANGES:
        s = [r["speedup"] for r in rows if lo <= r["intensity"] < hi]
        out.append((lo, hi, len(s), *(np.percentile(s, [0, 50, 100]) if s else (np.nan,) * 3)))
    return out


def format_table5(rows) -> str:
    lines = ["| intensity | matrices | speedup min / median / max | the paper (C2070 vs 24 cores, float64) |",
             "|---|---|---|---|"]
    for (lo, hi, k, a, med, b), (pk, pa, pm, pb) in zip(table5(rows), PAPER_TABLE5):
        rng = f"{lo}–{hi:g}" if np.isfinite(hi) else f"≥ {lo}"
        ours = f"{a:.2f} / {med:.2f} / {b:.2f}" if k else "none measured"
        lines.append(f"| {rng} | {k} | {ours} | {pk}: {pa} / {pm} / {pb} |")
    below = sum(r["intensity"] < RANGES[0][0] for r in rows)
    lines.append(f"\n{below} matrices below intensity {RANGES[0][0]} are left out, as in the paper "
                 f"(method=\"auto\" factors them on the host).")
    return "\n".join(lines)


def format_table4(rows) -> str:
    by = {r["matrix"]: r for r in rows}
    lines = ["| matrix | m × n | nnz | flops ×10⁹ (ours) | SuiteSparseQR s | GPU s | GPU GFLOP/s | intensity | speedup |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in TABLE4:
        r = by.get(name)
        if r is None:
            continue
        lines.append(f"| {name} | {r['m']} × {r['n']} | {r['nnz']} | {r['flops'] / 1e9:.1f} | {r['spqr_seconds']:.2f} | "
                     f"{r['seconds']:.2f} | {r['flops'] / r['seconds'] / 1e9:.1f} | {r['intensity']:.0f} | "
                     f"{r['speedup']:.2f} |")
    return "\n".join(lines)


def plot_fig15(rows, path) -> Path:
    """Fig. 15: speedup over SuiteSparseQR against intensity (log scale), the threshold at 10."""
    optional_import("matplotlib", "demo", "plotting Fig. 15")
    from ..teach.plotting import subplots

    fig, ax = subplots(figsize=(6, 4))
    x = [r["intensity"] for r in rows]
    y = [r["speedup"] for r in rows]
    ax.scatter(x, y, s=12)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.axvline(10, ls="--", color="gray")
    ax.axhline(1, ls=":", color="gray")
    ax.set_xlabel("arithmetic intensity (flops / bytes of the fronts' entries, Yeralan et al. §4)")
    ax.set_ylabel("SuiteSparseQR seconds / GPU seconds")
    ax.set_title("Fig. 15 here: sparse QR speedup against intensity", fontsize=9)
    return save_figure(fig, Path(path))
