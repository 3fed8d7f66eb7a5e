"""Many fronts by the same draws (issue 16, item 3; seed 004's Fig. 5): the public
glgpgpu.qr_batched against the same matrices one glgpgpu.qr(mode="raw") call each,
both methods, end to end (numpy in, numpy out), best of `repeat`; and the host's
sgeqrf over the same list.  Fronts of random shapes, as a multifrontal
factorization's leaves might be.

    python benchmarks/qr_batched.py [count] [max_rows] [repeat]
"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import sys
import time

import numpy as np
from scipy.linalg import lapack

import glgpgpu


def best(fn, repeat):
    out = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def main(count=64, max_rows=512, repeat=3):
    count, max_rows, repeat = int(count), int(max_rows), int(repeat)
    ctx = glgpgpu.get_context()
    rng = np.random.default_rng(11)
    shapes = [(int(rng.integers(16, max_rows)), int(rng.integers(8, max_rows // 2))) for _ in range(count)]
    mats = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    flops = sum(2 * max(m, n) * min(m, n) ** 2 - 2 * min(m, n) ** 3 / 3 for m, n in shapes)
    print(f"{ctx.caps.renderer}: {count} fronts up to {max_rows} rows, {flops / 1e9:.3f} GFLOP canonical", flush=True)
    host = best(lambda: [lapack.sgeqrf(A) for A in mats], repeat)
    print(f"host sgeqrf one by one: {host * 1e3:.1f} ms", flush=True)
    for method in ("blocked", "paper"):
        out = glgpgpu.qr_batched(mats, method=method)
        glgpgpu.qr(mats[0], mode="raw", method=method)
        together = best(lambda: glgpgpu.qr_batched(mats, method=method), repeat)
        alone = best(lambda: [glgpgpu.qr(A, mode="raw", method=method) for A in mats], repeat)
        print(f"{method}: batched {together * 1e3:.1f} ms ({flops / together / 1e9:.1f} GFLOP/s), "
              f"one by one {alone * 1e3:.1f} ms: {alone / together:.1f}x; worst ||Q R - A||/||A|| "
              f"{max(_qr_error(A, F, tau) for A, (F, tau) in zip(mats, out)):.2e}", flush=True)


def _qr_error(A, F, tau):
    """||Q R - A||_F / ||A||_F of one front's (F, tau), float64 on the host (the answer beside the time)."""
    F64 = np.asarray(F, np.float64)
    QR, _, _ = lapack.dormqr("L", "N", F64, np.asarray(tau, np.float64), np.triu(F64), 64 * max(1, F64.shape[1]))
    return float(np.linalg.norm(QR - A) / np.linalg.norm(A))


if __name__ == "__main__":
    main(*sys.argv[1:])
