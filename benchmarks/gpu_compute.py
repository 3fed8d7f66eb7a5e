"""method="compute" on a GPU machine, one run: the tiled product's kernel rate against
cuBLAS sgemm (torch, TF32 off) and the compute stage's FMA ceiling; then the public calls
end to end (numpy in, numpy out) for compute, blocked and the host / torch references:
cholesky m = 4096, qr 4096^2, LS-SVM on a synthetic N = 16,384 (32 features, rbf) and
on digits against scikit-learn's SVC.  --tiled N: also glgpgpu.cholesky(A, method="compute")
for an N x N SPD matrix beyond one storage buffer (tiles), end to end, with a probed
backward error.  Writes compute-<device>-<date>.csv into --out.
    python benchmarks/gpu_compute.py [--out DIR] [--quick] [--tiled N] [--only-tiled]"""
import argparse
import csv
import datetime
import os
import time

import numpy as np


def best(fn, repeat=3):
    return min(times(fn, repeat))


def times(fn, repeat):
    """Seconds of `repeat` calls of fn after one untimed call."""
    fn()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return ts


#: calls timed for each end-to-end row of the GPU methods and torch: best and median reported
E2E_REPEAT = 10


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "benchmarks/results"), help="folder for the CSV")
    ap.add_argument("--quick", action="store_true", help="small sizes (a CPU machine)")
    ap.add_argument("--tiled", type=int, default=0, help="also the tiled Cholesky of this order (e.g. 60000)")
    ap.add_argument("--only-tiled", action="store_true", help="skip everything but --tiled")
    args = ap.parse_args()
    import glgpgpu
    from glgpgpu.compute import blas

    ctx = glgpgpu.get_context()
    rows = []

    def row(what, method, size, seconds, **extra):
        r = dict(what=what, method=method, size=size, seconds=seconds, **extra)
        rows.append(r)
        print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()), flush=True)

    print(ctx.caps.renderer, ctx.caps.version, flush=True)
    rng = np.random.default_rng(0)
    if args.tiled:
        tiled_cholesky(args.tiled, rng, row)
    if args.only_tiled:
        return write(args, ctx, rows)
    g = 1024 if args.quick else 8192
    # -- the product's kernel alone --------------------------------------------------------
    A = rng.standard_normal((g, g)).astype(np.float32)
    a, c = blas.upload(ctx, A), blas.take(ctx, g, g)
    rows_probe = rng.choice(g, 64, replace=False)             # the answer probed on 64 rows, float64
    A64 = A.astype(np.float64)
    for lower, name in ((False, "gemm"), (True, "syrk")):
        def run():
            blas.gemm(ctx, c, a, a, m=g, n=g, k=g, lower=lower)
            ctx.finish()
        t = best(run)
        flops = (2 if not lower else 1) * g ** 3
        got = blas.download(ctx, c)[rows_probe].astype(np.float64)
        want = A64[rows_probe] @ A64.T
        keep = np.tril(np.ones((g, g), bool))[rows_probe] if lower else np.ones_like(want, bool)
        bound = g * 2.0 ** -24 * (np.abs(A64[rows_probe]) @ np.abs(A64).T)
        row(f"{name} kernel", "compute", g, t, tflop_s=flops / t / 1e12,
            error_of_bound=float((np.abs(got - want) / bound)[keep].max()))
    a.give()
    c.give()
    try:
        import torch
        if torch.cuda.is_available():
            torch.backends.cuda.matmul.allow_tf32 = False
            x = torch.from_numpy(A).cuda()
            t = best(lambda: (x @ x, torch.cuda.synchronize()))
            row("gemm kernel", "torch-cublas", g, t, tflop_s=2 * g ** 3 / t / 1e12)
    except ImportError:
        torch = None
    # -- Cholesky end to end ------------------------------------------------------------------
    import scipy.linalg.lapack as lapack

    m = 1024 if args.quick else 4096
    X = rng.standard_normal((m, m)).astype(np.float32)
    C = (X @ X.T / m + np.eye(m, dtype=np.float32)).astype(np.float32)
    for method in ("compute", "blocked"):
        ts = times(lambda: glgpgpu.cholesky(C, method=method), E2E_REPEAT)
        L = glgpgpu.cholesky(C, method=method).astype(np.float64)
        row("cholesky e2e", method, m, min(ts), median_seconds=float(np.median(ts)),
            rel_residual=float(np.abs(L @ L.T - C).max() / np.abs(C).max()))
    def chol_residual(L):
        L = np.tril(L).astype(np.float64)
        return float(np.abs(np.tril(L @ L.T - C)).max() / np.abs(C).max())
    row("cholesky e2e", "host spotrf", m, best(lambda: lapack.spotrf(C, lower=1)),
        rel_residual=chol_residual(lapack.spotrf(C, lower=1)[0]))
    if torch is not None and torch.cuda.is_available():
        run_torch = lambda: torch.linalg.cholesky(torch.from_numpy(C).cuda()).cpu().numpy()      # noqa: E731
        ts = times(run_torch, E2E_REPEAT)
        row("cholesky e2e", "torch", m, min(ts), median_seconds=float(np.median(ts)),
            rel_residual=chol_residual(run_torch()))
    # -- QR end to end -------------------------------------------------------------------------
    Q = rng.standard_normal((m, m)).astype(np.float32)

    def qr_error(F, tau):
        """||Q R - A||_F / ||A||_F of a geqrf-layout (F, tau), in float64 on the host."""
        F = np.asarray(F, np.float64)
        out, _, _ = lapack.dormqr("L", "N", F, np.asarray(tau, np.float64), np.triu(F), 64 * m)
        return float(np.linalg.norm(out - Q) / np.linalg.norm(Q))
    for method in ("compute", "blocked"):
        ts = times(lambda: glgpgpu.qr(Q, mode="raw", method=method), E2E_REPEAT if method == "compute" else 2)
        row("qr raw e2e", method, m, min(ts), median_seconds=float(np.median(ts)),
            rel_residual=qr_error(*glgpgpu.qr(Q, mode="raw", method=method)))
    row("qr raw e2e", "host sgeqrf", m, best(lambda: lapack.sgeqrf(Q), 2), rel_residual=qr_error(*lapack.sgeqrf(Q)[:2]))
    if torch is not None and torch.cuda.is_available():
        run_torch = lambda: [v.cpu().numpy() for v in torch.geqrf(torch.from_numpy(Q).cuda())]    # noqa: E731
        ts = times(run_torch, E2E_REPEAT)
        row("qr raw e2e", "torch geqrf", m, min(ts), median_seconds=float(np.median(ts)),
            rel_residual=qr_error(*run_torch()))
    # -- LS-SVM ------------------------------------------------------------------------------------
    N, d = (2048, 32) if args.quick else (16384, 32)
    Xs = rng.standard_normal((N, d))
    ys = (Xs[:, 0] + 0.5 * Xs[:, 1] ** 2 > 0.5).astype(int)
    for method in ("compute", "blocked"):
        try:
            t = best(lambda: glgpgpu.LSSVC(gamma=1 / d, C=10.0, method=method).fit(Xs, ys), 1)
            model = glgpgpu.LSSVC(gamma=1 / d, C=10.0, method=method).fit(Xs, ys)
            row("lssvc synthetic fit", method, N, t, train_accuracy=float(model.score(Xs, ys)))
        except Exception as exc:          # noqa: BLE001 -- a failed row is reported, the run goes on
            row("lssvc synthetic fit", method, N, float("nan"), error=str(exc)[:120])
    try:
        from sklearn import datasets
        from sklearn.model_selection import train_test_split
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import SVC

        Xd, yd = datasets.load_digits(return_X_y=True)
        Xtr, Xte, ytr, yte = train_test_split(StandardScaler().fit_transform(Xd), yd, test_size=0.25, random_state=0)
        for method in ("compute", "blocked"):
            t = best(lambda: glgpgpu.LSSVC(method=method).fit(Xtr, ytr), 2)
            acc = glgpgpu.LSSVC(method=method).fit(Xtr, ytr).score(Xte, yte)
            row("lssvc digits fit", method, len(Xtr), t, test_accuracy=float(acc))
        t = best(lambda: SVC().fit(Xtr, ytr), 2)
        row("lssvc digits fit", "sklearn SVC", len(Xtr), t, test_accuracy=float(SVC().fit(Xtr, ytr).score(Xte, yte)))
    except ImportError:
        pass
    write(args, ctx, rows)


def write(args, ctx, rows):
    from glgpgpu.bench.common import device_slug

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"compute-{device_slug(ctx)}-{datetime.date.today()}.csv")
    keys = sorted({k for r in rows for k in r}, key=lambda k: list(rows[0]).index(k) if k in rows[0] else 99)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, keys)
        w.writeheader()
        w.writerows(rows)
    print("wrote", path)


def tiled_cholesky(N, rng, row):
    """A = R + N I (R symmetric, entries in [-1, 1): SPD by diagonal dominance), factored
    by the compute method on tiles, numpy in and numpy out; backward error probed with a
    random x in float64, chunk by chunk (no N x N float64 temporary)."""
    import glgpgpu

    t = time.perf_counter()
    A = rng.random((N, N), dtype=np.float32)
    A *= 2
    A -= 1
    A[np.diag_indices(N)] += N
    print(f"tiled: A ({N} x {N}) made on the host in {time.perf_counter() - t:.1f} s", flush=True)
    t = time.perf_counter()
    L = glgpgpu.cholesky(A, method="compute")
    sec = time.perf_counter() - t
    x = rng.standard_normal(N)
    step = 4096
    lt = np.zeros(N)                              # L^T x
    for r0 in range(0, N, step):
        lt += L[r0:r0 + step].astype(np.float64).T @ x[r0:r0 + step]
    y = np.concatenate([L[r0:r0 + step].astype(np.float64) @ lt for r0 in range(0, N, step)])
    ax = np.zeros(N)                              # A x from A's lower triangle (A is symmetric)
    for r0 in range(0, N, step):
        r1 = min(N, r0 + step)
        block = A[r0:r1, :r1].astype(np.float64)
        ax[r0:r1] += np.tril(block, r0) @ x[:r1]
        ax[:r1] += np.tril(block, r0 - 1).T @ x[r0:r1]
    err = float(np.linalg.norm(y - ax) / np.linalg.norm(ax))
    row("tiled cholesky e2e", "compute", N, sec, backward_error=err)


if __name__ == "__main__":
    main()
