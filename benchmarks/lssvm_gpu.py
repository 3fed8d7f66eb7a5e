"""LS-SVM training end to end from numpy (rbf, d features) beside a short torch script
(float32 kernel matrix, Cholesky, two solves, transfers included) and scikit-learn's SVC,
one run (each size fitted twice: first_fit_s with the kernels its path builds, fit_s
without); every row with its answer's error: the largest relative difference of the
decision values on held-out points from a float64 LS-SVM (torch float64 on the GPU where
N fits, else numpy), and whether the fit converged or warned.
Writes lssvm-gpu-<device>-<date>.csv and a plot of the fit's seconds against N beside the
torch script's, scikit-learn's SVC and the LS-SVM issue's lines (.png beside it; --plot CSV
draws it again from a CSV, no GPU).

    python benchmarks/lssvm_gpu.py [--sizes 4096,16384] [--d 32] [--svc-most 4096] [--out DIR]
    python benchmarks/lssvm_gpu.py --plot CSV
"""
import argparse
import csv
import datetime
import os
import time
import warnings

import numpy as np


def data(N, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N + 1000, d))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.standard_normal(len(X)) > 0.5).astype(int)
    return X[:N], y[:N], X[N:], y[N:]


def torch_fit(X, y, gamma, C, dtype):
    """The bordered LS-SVM solved through H = K + I/C (Schur complement), decision function."""
    import torch
    dev = "cuda"
    Xt = torch.as_tensor(X, dtype=dtype, device=dev)
    Y = torch.as_tensor(np.column_stack([np.ones(len(y)), np.where(y == 1, 1.0, -1.0)]), dtype=dtype, device=dev)
    H = torch.exp(-gamma * torch.cdist(Xt, Xt).square_())
    H.diagonal().add_(1.0 / C)
    L = torch.linalg.cholesky(H)
    Z = torch.cholesky_solve(Y, L)
    eta, nu = Z[:, 0], Z[:, 1]
    b = nu.sum() / eta.sum()
    alpha = nu - b * eta

    def decide(T):
        Tt = torch.as_tensor(T, dtype=dtype, device=dev)
        return (torch.exp(-gamma * torch.cdist(Tt, Xt).square_()) @ alpha + b).double().cpu().numpy()
    return decide


#: the LS-SVM issue's lines: N -> seconds, one H100, fit end to end from numpy
TARGETS = {16384: 0.15, 32768: 0.6, 60000: 3.0, 100000: 12.0}


def plot(csv_path: str) -> str:
    """The fits' seconds against N from a CSV of this script (log-log), the torch script's and
    SVC's where the CSV has them, and TARGETS; the .png beside the CSV."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = list(csv.DictReader(open(csv_path)))
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for key, label, style in (("fit_s", "LSSVC(method=\"compute\").fit", "o-"),
                              ("torch_fp32_s", "torch float32 script (matrix, Cholesky, solves)", "s--"),
                              ("sklearn_svc_s", "scikit-learn SVC (host)", "^:")):
        pts = [(int(r["N"]), float(r[key])) for r in rows if r.get(key)]
        if pts:
            ax.plot(*zip(*pts), style, label=label)
    ax.plot(list(TARGETS), list(TARGETS.values()), "k_", ms=14, mew=2, label="the issue's lines")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (rbf, 32 features, C = 10)")
    ax.set_ylabel("seconds, numpy in and out")
    ax.grid(True, alpha=0.3, which="both")
    ax.legend(fontsize=8)
    ax.set_title(os.path.basename(csv_path), fontsize=8)           # the device and date are in its name
    out = os.path.splitext(csv_path)[0] + ".png"
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plot", metavar="CSV", help="only draw the plot of an earlier run's CSV")
    ap.add_argument("--sizes", default="4096,8192,16384,32768")
    ap.add_argument("--d", type=int, default=32)
    ap.add_argument("--C", type=float, default=10.0)
    ap.add_argument("--method", default="compute")
    ap.add_argument("--svc-most", type=int, default=4096)
    ap.add_argument("--reference-most", type=int, default=32768, help="largest N with a float64 reference")
    ap.add_argument("--torch-most", type=int, default=65536,
                    help="largest N the torch script runs at (its N x N float32 matrix and factor: 2 x 40 GB at 100,000)")
    ap.add_argument("--dask-gpus", type=int, default=0,
                    help="also fit with LSSVC(client=) on a LocalGLCluster of this many GPUs (tiles of --tile)")
    ap.add_argument("--tile", type=int, default=8192)
    ap.add_argument("--stream", action="store_true",
                    help="write the Dask task stream of each --dask-gpus fit (distributed_cholesky.py's columns)")
    ap.add_argument("--out", default="benchmarks/results")
    args = ap.parse_args()
    if args.plot:
        print("wrote", plot(args.plot))
        return
    import glgpgpu
    from glgpgpu.bench import device_slug
    ctx = glgpgpu.get_context()
    try:
        import torch
        have_torch = torch.cuda.is_available()
    except ImportError:
        have_torch = False
    rows, stream = [], []
    X, y, T, _ = data(256, args.d)
    glgpgpu.LSSVC(gamma=1.0 / args.d, method=args.method).fit(X, y)          # compile the kernels first
    for N in (int(v) for v in args.sizes.split(",")):
        X, y, T, yt = data(N, args.d)
        gamma = 1.0 / args.d
        # the first fit at a size builds the kernels its path needs (the driver's shader cache
        # keeps them for later processes); the second is the fit's own time
        t = time.perf_counter()
        glgpgpu.LSSVC(gamma=gamma, C=args.C, method=args.method).fit(X, y)
        first_s = time.perf_counter() - t
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = time.perf_counter()
            model = glgpgpu.LSSVC(gamma=gamma, C=args.C, method=args.method).fit(X, y)
            fit_s = time.perf_counter() - t
        t = time.perf_counter()
        F = model.decision_function(T)
        predict_s = time.perf_counter() - t
        row = dict(N=N, d=args.d, C=args.C, method=args.method, fit_s=round(fit_s, 4), first_fit_s=round(first_s, 4),
                   predict_1000_s=round(predict_s, 4),
                   converged=model.info_["converged"], warned=any("converge" in str(w.message) for w in caught),
                   refinement_steps=len(model.info_.get("refinement", [])),
                   pcg_iterations=model.info_.get("pcg_iterations", 0), accuracy=float(np.mean((F >= 0) == (yt == 1))),
                   times=";".join(f"{k}={v:.3f}" for k, v in model.info_["times"].items()))
        if have_torch and N <= args.torch_most:
            decide = torch_fit(X, y, gamma, args.C, torch.float32)       # warm
            torch.cuda.synchronize()
            t = time.perf_counter()
            decide = torch_fit(X, y, gamma, args.C, torch.float32)
            Ft32 = decide(T)
            torch.cuda.synchronize()
            row["torch_fp32_s"] = round(time.perf_counter() - t, 4)
            if N <= args.reference_most:
                ref = torch_fit(X, y, gamma, args.C, torch.float64)(T)
                scale = np.abs(ref).max()
                row["decision_rel_err"] = float(np.abs(F - ref).max() / scale)
                row["torch_fp32_decision_rel_err"] = float(np.abs(Ft32 - ref).max() / scale)
                row["predictions_equal"] = bool(np.all((F >= 0) == (ref >= 0)))
                del ref
            torch.cuda.empty_cache()
        if N <= args.svc_most:
            from sklearn.svm import SVC
            t = time.perf_counter()
            svc = SVC(gamma=gamma, C=args.C).fit(X, y)
            row["sklearn_svc_s"] = round(time.perf_counter() - t, 4)
            row["sklearn_svc_accuracy"] = float(svc.score(T, yt))
        if args.dask_gpus:
            from glgpgpu.distributed import LocalGLCluster
            found = [dev[0] for dev in glgpgpu.gl.devices()]
            with LocalGLCluster(devices=found[:args.dask_gpus], n_workers=args.dask_gpus) as cluster, \
                    cluster.get_client() as client:
                glgpgpu.LSSVC(gamma=gamma, C=args.C, client=client, tile=256).fit(X[:1024], y[:1024])   # compile
                from distributed import get_task_stream
                from distributed_cholesky import stream_rows      # this folder's: the same columns
                t = time.perf_counter()
                with get_task_stream(client) as ts:
                    dmodel = glgpgpu.LSSVC(gamma=gamma, C=args.C, method=args.method, client=client,
                                           tile=args.tile).fit(X, y)
                row["dask_fit_s"] = round(time.perf_counter() - t, 4)
                if args.stream:
                    stream += stream_rows(ts.data, N, args.dask_gpus, time.time() - (time.perf_counter() - t))
                row["dask_gpus"] = args.dask_gpus
                Fd = dmodel.decision_function(T)
                row["dask_decision_vs_one_gpu"] = float(np.abs(Fd - F).max() / np.abs(F).max())
                row["dask_accuracy"] = float(np.mean((Fd >= 0) == (yt == 1)))
                row["dask_converged"] = dmodel.info_["converged"]
                row["dask_times"] = ";".join(f"{k}={v:.3f}" for k, v in dmodel.info_["times"].items())
        row["ratio_to_torch"] = round(row["fit_s"] / row["torch_fp32_s"], 2) if "torch_fp32_s" in row else ""
        rows.append(row)
        print(row, flush=True)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"lssvm-gpu-{device_slug(ctx)}-{datetime.date.today()}.csv")
    keys = sorted({k for r in rows for k in r}, key=lambda k: list(rows[0]).index(k) if k in rows[0] else 99)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow(dict(r, device=ctx.caps.renderer) if "device" in keys else r)
    if stream:                 # experiments/distributed_stream.py reads it
        with open(path.replace(".csv", "-stream.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(stream[0]))
            w.writeheader()
            w.writerows(stream)
    from glgpgpu.bench.common import write_provenance
    print("wrote", path, "and", write_provenance(path), "and", plot(path))


if __name__ == "__main__":
    main()
