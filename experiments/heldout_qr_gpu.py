"""Held-out shapes (none of them in gpu_check.py's list) through the public QR calls of every
method, on whatever GPU this runs: ||Q R - A||_F / ||A||_F and ||Q^T Q - I||_F / sqrt(k) against
tests/bounds.qr_bound, float32 and (glgpgpu.linalg) float64.  Answers "is the compute QR right
at sizes nobody tuned on?"

    python experiments/heldout_qr_gpu.py [--quick]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from bounds import U32, U64, qr_bound  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    import glgpgpu
    from glgpgpu import linalg
    try:
        import torch
        dev = torch.cuda.is_available()
    except ImportError:
        dev = False

    def errors(A, Q, R):
        if dev:
            At, Qt, Rt = (torch.from_numpy(np.asarray(x, np.float64)).cuda() for x in (A, Q, R))
            res = float(torch.linalg.norm(Qt @ Rt - At) / torch.linalg.norm(At))
            orth = float(torch.linalg.norm(Qt.T @ Qt - torch.eye(Qt.shape[1], dtype=torch.float64, device="cuda")))
        else:
            A, Q, R = (np.asarray(x, np.float64) for x in (A, Q, R))
            res = np.linalg.norm(Q @ R - A) / np.linalg.norm(A)
            orth = np.linalg.norm(Q.T @ Q - np.eye(Q.shape[1]))
        return res, orth / np.sqrt(Q.shape[1])

    print(glgpgpu.get_context().caps.renderer, flush=True)
    shapes = [(333, 211), (190, 777)] if a.quick else [(5000, 5000), (7777, 3001), (2500, 9000), (12289, 1500),
                                                         (6143, 6143), (1500, 12289)]
    rng = np.random.default_rng(99)
    misses = 0
    def check(label, A, call, u) -> bool:
        m, n = A.shape
        t = time.perf_counter()
        Q, R = call(A)
        sec = time.perf_counter() - t
        res, orth = errors(A, Q, R)
        ok = max(res, orth) <= qr_bound(m, n, u)
        print(f"{'yes' if ok else 'NO':>3} {label:<8} {m} x {n}: ||QR-A||/||A|| {res:.2e}, orthogonality "
              f"{orth:.2e}, bound {qr_bound(m, n, u):.2e}, {sec:.2f} s", flush=True)
        return ok

    for m, n in shapes:
        A = rng.standard_normal((m, n))
        for method in ("compute", "blocked") + (("paper",) if m * n <= 4e6 else ()):
            misses += not check(method, A, lambda X, method=method: glgpgpu.qr(X, method=method), U32)
        misses += not check("float64", A, lambda X: linalg.qr(X, mode="economic"), U64)
    print(f"{misses} misses")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
