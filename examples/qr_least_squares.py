"""Least squares without squaring the condition number: Householder QR by drawing.

A polynomial fit in the monomial basis is badly conditioned (kappa ~ 1e5 here).
The normal equations square that: kappa(A^T A) ~ 1e10 is beyond float32, whose
Cholesky on the GPU then fails or gives corrections that never converge.  QR
works on A itself: the GPU's float32 factor gives x0 to about kappa u32, and
Bjorck's refinement in float64 takes it to float64 accuracy in a few steps.

    python examples/qr_least_squares.py [degree]

Every column step of the QR is four draws (paper/qr.py): the dots of column k
with every later column (a chunked reduction, two draws), the reflector's scalars
(one texel) and the reflection of the trailing columns (one rectangle).
"""
import sys
import warnings

import numpy as np

import glgpgpu


def main(degree: int = 7) -> int:
    rng = np.random.default_rng(7)
    t = np.linspace(0.0, 2.0, 400)
    A = np.vander(t, degree + 1, increasing=True)            # columns 1, t, t^2, ...
    coef = rng.standard_normal(degree + 1)
    b = A @ coef + 1e-3 * rng.standard_normal(t.size)
    ref = np.linalg.lstsq(A, b, rcond=None)[0]
    print(f"polynomial fit, degree {degree}: A is {A.shape[0]} x {A.shape[1]}, kappa(A) = {np.linalg.cond(A):.2e}, "
          f"kappa(A^T A) = {np.linalg.cond(A) ** 2:.2e}")

    x, info = glgpgpu.lstsq(A, b)
    print(f"QR:     x0 (float32 GPU) off by {np.linalg.norm(info.x0 - ref) / np.linalg.norm(ref):.2e}, "
          f"refined in {info.iterations} steps to {np.linalg.norm(x - ref) / np.linalg.norm(ref):.2e} ({info.status})")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        xn, ninfo = glgpgpu.wls(A.T, np.ones(t.size), b)      # the 2008 paper's Algorithm 1: normal equations
    err = np.linalg.norm(xn - ref) / np.linalg.norm(ref) if np.isfinite(xn).all() else float("nan")
    print(f"normal: {ninfo.status} after {ninfo.iterations} steps, error {err:.2e}")
    return 0 if info.converged and np.linalg.norm(x - ref) <= 1e-8 * np.linalg.norm(ref) else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 7))
