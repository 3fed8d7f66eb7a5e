"""Fit a model to noisy time-series data by weighted least squares on the GPU
(Jung & O'Leary 2008, section 1: the application that motivates the method).

n samples b_k at times t_k, each with its own uncertainty sigma_k; a model
u(t) = sum_j x_j phi_j(t) of m basis functions (Chebyshev polynomials plus a few
sines).  With A_jk = phi_j(t_k) and D = diag(1 / sigma_k), the weighted fit
solves A D^2 A^T x = A D^2 b: the GPU forms A D^2 A^T by triangular
rasterization, factors it, and mixed-precision refinement recovers a float64 x.
The result is compared with numpy.linalg.lstsq on the weighted problem, and
plotted (data with error bars, fit, residuals).

Run:  python examples/data_fitting.py [out.png]
"""
import sys
from pathlib import Path

import numpy as np

import glgpgpu


def basis(t, n_poly=4, freqs=(1.3, 2.1, 3.7, 5.3, 7.1, 9.7)):
    s = (t - t.min()) / (t.max() - t.min()) * 2 - 1          # map to [-1, 1] for Chebyshev
    rows = [np.polynomial.chebyshev.chebval(s, np.eye(n_poly)[j]) for j in range(n_poly)]
    for f in freqs:
        rows += [np.sin(f * t), np.cos(f * t)]
    return np.array(rows)                                       # m x n


def main(out="demo_out/data_fitting.png") -> int:
    rng = np.random.default_rng(7)
    n = 4000
    t = np.sort(rng.uniform(0, 20, n))
    truth = 0.8 * np.sin(1.3 * t) + 0.3 * np.cos(3.7 * t) + 0.05 * (t - 10) + 0.002 * (t - 10) ** 2
    sigma = rng.uniform(0.05, 0.6, n)                          # per-sample uncertainty
    b = truth + sigma * rng.standard_normal(n)

    A = basis(t)
    d2 = 1.0 / sigma ** 2
    x, info = glgpgpu.wls(A, d2, b)
    print(f"GPU: {glgpgpu.get_context().caps.renderer}")
    print(f"m = {A.shape[0]} basis functions, n = {n} samples: {info.status} after "
          f"{info.iterations} refinement steps, ||r||/||x|| = {info.residuals[-1]:.2e}")

    # Reference: the weighted problem min || D (A^T x - b) || by numpy's lstsq (QR/SVD, float64)
    w = 1.0 / sigma
    x_ref, *_ = np.linalg.lstsq(A.T * w[:, None], b * w, rcond=None)
    rel = np.linalg.norm(x - x_ref) / np.linalg.norm(x_ref)
    rel0 = np.linalg.norm(info.x0 - x_ref) / np.linalg.norm(x_ref)
    print(f"relative difference from numpy.linalg.lstsq: x0 (float32 GPU) {rel0:.2e}, refined {rel:.2e}")
    fit = A.T @ x
    chi2 = np.sum(((b - fit) / sigma) ** 2) / (n - A.shape[0])
    print(f"reduced chi^2 = {chi2:.3f} (about 1 for a model that fits within the error bars)")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, axr) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    sel = slice(None, None, 20)
    ax.errorbar(t[sel], b[sel], yerr=sigma[sel], fmt=".", ms=3, color="0.5", elinewidth=.6, label="data (every 20th, ±σ)")
    ax.plot(t, truth, color="tab:green", lw=2.5, alpha=0.6, label="truth", zorder=3)
    ax.plot(t, fit, color="tab:red", lw=1, ls="--", label=f"GPU weighted fit (m={A.shape[0]})", zorder=4)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(f"Weighted least squares on the GPU: {info.iterations} refinement steps, "
                 f"|x - lstsq| / |x| = {rel:.1e}", fontsize=9)
    axr.plot(t, (b - fit) / sigma, ".", ms=1.5, color="tab:blue")
    axr.axhline(0, color="k", lw=.6)
    axr.set_ylabel("(b - fit) / σ")
    axr.set_xlabel("t")
    fig.tight_layout()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0 if info.converged and rel < 1e-8 else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
