"""Where the LP's float64 host factor beats the GPU's: each NETLIB problem's time under
device="cpu64" beside its time on the GPU (one or more `glgpgpu lp --netlib --device gpu`
CSVs of the same run), against the float64 factor's flop count that device="auto"
decides by (glgpgpu/solvers/lp/mixed/device.py):

    python benchmarks/lp_host_crossover.py NETLIB_DIR CPU64.csv GPU.csv [GPU.csv ...] [--out DIR]

Writes lp-host-crossover-<date>.csv and .png: host seconds / GPU seconds per problem
against the count, with HOST_FLOPS drawn."""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import argparse
import csv
import os
import time
from pathlib import Path

from glgpgpu.bench.common import write_csv
from glgpgpu.solvers.lp.mixed import bounded, device
from glgpgpu.solvers.lp.problem import from_mps


def _times(path):
    with open(path) as f:
        return {r["problem"]: r for r in csv.DictReader(f)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("netlib", type=Path)
    ap.add_argument("cpu64", type=Path)
    ap.add_argument("gpu", type=Path, nargs="+")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "benchmarks/results")))
    a = ap.parse_args()
    host = _times(a.cpu64)
    gpus = {}
    for g in a.gpu:                                 # each CSV's method names its columns
        t = _times(g)
        gpus[next(iter(t.values()))["method"]] = t
    rows = []
    for name, h in sorted(host.items(), key=lambda kv: int(kv[1]["rows"] or 0)):
        path = a.netlib / f"{name}.mps.gz"
        p = bounded.scale(bounded.presolve(bounded.from_general(from_mps(str(path)))))
        choice = device.choose(p.A)
        row = {"problem": name, "rows": p.A.shape[0], "factor_flops": choice.flops, "auto": choice.device,
               "cpu64_s": float(h["seconds"]), "highs_s": float(h["highs_s"])}
        for method, g in gpus.items():
            if name in g:
                row[f"{method}_s"] = float(g[name]["seconds"])
                row[f"cpu64_over_{method}"] = row["cpu64_s"] / row[f"{method}_s"]
        rows.append(row)
        print(f"{name:10s} {row['rows']:5d} flops {choice.flops:9.3g} -> {choice.device:5s} cpu64 {row['cpu64_s']:6.2f} s "
              + " ".join(f"{m} {row.get(f'{m}_s', float('nan')):6.2f} s" for m in gpus))
    stamp = time.strftime("%Y-%m-%d")
    write_csv(rows, a.out / f"lp-host-crossover-{stamp}.csv")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for method, marker in zip(gpus, "os^"):
        pts = [(r["factor_flops"], r[f"cpu64_over_{method}"]) for r in rows if f"cpu64_over_{method}" in r]
        ax.scatter(*zip(*pts), marker=marker, label=f"host float64 / {method} (GPU)", alpha=0.7)
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.axvline(device.HOST_FLOPS, color="k", ls="--", lw=0.8, label=f"HOST_FLOPS = {device.HOST_FLOPS:.0e}")
    ax.set(xscale="log", yscale="log", xlabel="float64 factor's flops (qdldl's count; m^3/3 for a dense M)",
           ylabel="seconds on the host / on the GPU", title="NETLIB: where the host's factor is the quicker")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out / f"lp-host-crossover-{stamp}.png", dpi=120)
    print("wrote", a.out / f"lp-host-crossover-{stamp}.csv")


if __name__ == "__main__":
    main()
