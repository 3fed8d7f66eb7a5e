"""glgpgpu.linalg with float64 input against scipy.linalg on the host, one run: each
call end to end (numpy in, numpy out), best of a few, with its answer's error beside
its time -- the user's call is the benchmark.  Writes linalg-float64-<device>-<date>.csv.

    python benchmarks/linalg_float64.py [--sizes 4096,8192] [--out DIR] [--repeat 3]

error: cholesky / cho_factor: max |L L^T - A| / max |A| (the triangle read); solves:
||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf); qr: ||Q R - A||_F / ||A||_F;
lstsq: ||x - x_scipy|| / ||x_scipy||."""
import argparse
import csv
import datetime
import os
import time

import numpy as np
import scipy
import scipy.linalg as sla


def best(fn, repeat):
    out = fn()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts), out


def solve_error(A, x, b):
    return float(np.abs(b - A @ x).max() / (np.abs(A).sum(1).max() * np.abs(x).max() + np.abs(b).max()))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--out", default=os.environ.get("OUT", "benchmarks/results"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import glgpgpu
    from glgpgpu import linalg
    from glgpgpu.bench.common import device_slug

    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, ctx.caps.version, "scipy", scipy.__version__, flush=True)
    rng = np.random.default_rng(0)
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        X = rng.standard_normal((n, n)) / np.sqrt(n)
        A = X @ X.T + np.eye(n)                       # SPD, kappa ~ 5
        A = (A + A.T) / 2
        G = rng.standard_normal((n, n)) + 2 * np.sqrt(n) * np.eye(n)      # kappa ~ 3
        H = rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n)          # eigenvalues near 0: kappa ~ 1e4 and more
        K = G.copy()
        K[:, 0] *= 1e-10
        b = rng.standard_normal(n)

        def chol_err(U):
            return float(np.abs(np.triu(U.T @ U - A)).max() / np.abs(A).max())
        cases = [
            ("cholesky", lambda lib: lib.cholesky(A), chol_err),
            ("cho_factor+cho_solve", lambda lib: lib.cho_solve(lib.cho_factor(A), b), lambda x: solve_error(A, x, b)),
            ("solve pos", lambda lib: lib.solve(A, b, assume_a="pos"), lambda x: solve_error(A, x, b)),
            ("solve", lambda lib: lib.solve(G, b), lambda x: solve_error(G, x, b)),
            ("solve, kappa large", lambda lib: lib.solve(H, b), lambda x: solve_error(H, x, b)),
            # a column scaled by 1e-10: the float32 QR's condition sends it to the float64 QR (the
            # general solve's worst case: both factorizations)
            ("solve, kappa 1e10", lambda lib: lib.solve(K, b), lambda x: solve_error(K, x, b)),
            ("qr economic", lambda lib: lib.qr(G, mode="economic"),
             lambda QR: float(np.linalg.norm(QR[0] @ QR[1] - G) / np.linalg.norm(G))),
            ("lstsq", lambda lib: lib.lstsq(G[:, : n // 2], b)[0], None),
        ]
        for name, call, err in cases:
            ts, want = best(lambda: call(sla), args.repeat)
            tg, got = best(lambda: call(linalg), args.repeat)
            e_s = err(want) if err else 0.0
            e_g = err(got) if err else float(np.linalg.norm(got - want) / np.linalg.norm(want))
            r = dict(call=name, n=n, glgpgpu_s=round(tg, 4), scipy_s=round(ts, 4), ratio=round(tg / ts, 3),
                     glgpgpu_error=e_g, scipy_error=e_s, device=ctx.caps.renderer, scipy=scipy.__version__,
                     date=datetime.date.today().isoformat())
            rows.append(r)
            print(f"{name:<22} n={n:<6} glgpgpu {tg:8.3f} s  scipy {ts:8.3f} s  ratio {tg / ts:6.2f}  "
                  f"error {e_g:.2g} (scipy {e_s:.2g})", flush=True)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"linalg-float64-{device_slug(ctx)}-{datetime.date.today()}.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("wrote", path)


if __name__ == "__main__":
    main()
