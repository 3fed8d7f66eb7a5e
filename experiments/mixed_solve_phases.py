"""Can linalg.solve's general case beat scipy's LU by refining the GPU's float32 QR in float64
(LAPACK dsgesv's scheme on a QR, and GMRES-based refinement, Carson & Higham 2018, where plain
steps stall) instead of the float64 QR it takes?  The prototype below (`solve_mixed`) against
linalg.solve and scipy, and where its time goes: A scaled and rounded to float32, the float32
QR (numpy in, numpy out), F put in LAPACK's column order (the GPU returns it by rows, and
LAPACK's wrappers would copy it in every call), R's condition estimate, a float64 residual and
a float32 correction -- for a well-conditioned A (kappa ~ 3), one with eigenvalues near 0
(kappa ~ 1e4 and more) and one the float32 R sends to the float64 QR (a column scaled by 1e-10).
The answer is in benchmarks/RESULTS.md ("The current run").

    python experiments/mixed_solve_phases.py [--sizes 4096,8192]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.linalg as sla
import scipy.linalg.lapack as lapack

import glgpgpu
from glgpgpu import api, linalg

EPS = np.finfo(np.float64).eps
MIXED_RCOND = 1e-9        # the float32 R's reciprocal condition estimate below which float64 decides
MIXED_STEPS = 30          # refinement steps, and GMRES iterations
MIXED_MOST_RHS = 8


def _pow2(A: np.ndarray):
    """(A scaled by a power of two to max |A| in [0.5, 1), the power): exact, so float32 holds
    as much of A's range as it can."""
    amax = float(np.abs(A).max(initial=0.0))
    e = int(np.frexp(amax)[1]) if amax > 0 and np.isfinite(amax) else 0
    return np.ldexp(A, -e), e


def _solve_mixed(A: np.ndarray, B: np.ndarray, method, ctx):
    """A X = B by the GPU's float32 QR and refinement in float64 against A itself, to
    ||b - A x||_inf <= ||x||_inf ||A||_inf eps sqrt(n) -- float64's backward error: A scaled by a
    power of two and rounded to float32, its QR on the GPU (numpy in, numpy out), then each
    column of B by LAPACK dsgesv's refinement (float64 residuals, corrections by the float32
    factor: sormqr / strtrs on the host) while each step gains a factor 4, and from where it does
    not, GMRES-based refinement (Carson & Higham 2018: GMRES on A in float64, preconditioned by
    the float32 factor applied in float64), which gets there for kappa u32 up to ~1.  None (the
    float64 QR decides) where float32 cannot hold A, R's condition estimate is below
    MIXED_RCOND, B has more than MIXED_MOST_RHS columns, or a column does not get there."""
    if B.shape[1] > MIXED_MOST_RHS:
        return None
    As, e = _pow2(A)
    with np.errstate(all="ignore"):
        A32 = As.astype(np.float32)
    if not np.isfinite(A32).all() or np.count_nonzero(A32) < np.count_nonzero(As):
        return None                                     # entries beyond float32's range
    try:
        F, tau = api.qr(A32, mode="raw", method="compute" if method == "auto" else method, ctx=ctx)
    except (np.linalg.LinAlgError, ValueError, FloatingPointError):
        return None
    del A32
    F = np.asfortranarray(F)                            # LAPACK's order: each call below copies nothing
    if not np.all(np.diagonal(F)) or float(lapack.strcon(F, norm="1", uplo="U")[0]) < MIXED_RCOND:
        return None
    limit = float(np.abs(As).sum(axis=1).max(initial=0.0)) * EPS * np.sqrt(A.shape[0])
    factor64 = []                                       # (F, tau) in float64: made when GMRES needs it

    def solve32(r):
        """R^-1 Q^T r in float32, r scaled into float32's range and back."""
        rs, k = _pow2(r)
        y = lapack.sormqr("L", "T", F, tau, rs.astype(np.float32)[:, None], 64)[0]
        return np.ldexp(lapack.strtrs(F, y, lower=0)[0][:, 0].astype(np.float64), k)

    def solve64(r):
        """The same factor's R^-1 Q^T r with the arithmetic in float64 (GMRES's preconditioner)."""
        if not factor64:
            factor64.append((np.asfortranarray(F, dtype=np.float64), tau.astype(np.float64)))
        F64, tau64 = factor64[0]
        y = lapack.dormqr("L", "T", F64, tau64, r[:, None], 64)[0]
        return lapack.dtrtrs(F64, y, lower=0)[0][:, 0]

    X = np.empty_like(B)
    with np.errstate(all="ignore"):
        for j in range(B.shape[1]):
            b = np.ldexp(B[:, j], -e)
            x, done = _refined(As, b, solve32, limit)
            if not done:
                x = _gmres_ir(As, b, solve64, limit, x)
            if x is None:
                return None
            X[:, j] = x
    return X


def _refined(A, b, solve32, limit):
    """(x, whether ||b - A x||_inf <= ||x||_inf limit): x = solve32(b), then x += solve32(b - A x)
    with the residuals in float64 while each step gains a factor 4 (dsgesv's iteration)."""
    x = solve32(b)
    before = np.inf
    for _ in range(MIXED_STEPS):
        if not np.isfinite(x).all():
            return np.zeros_like(b), False
        r = b - A @ x
        worst = float(np.abs(r).max(initial=0.0))
        if worst <= float(np.abs(x).max(initial=0.0)) * limit:
            return x, True
        if not worst < 0.25 * before:
            break
        before = worst
        x = x + solve32(r)
    return x, False


def _gmres_ir(A, b, precondition, limit, x0):
    """x with ||b - A x||_inf <= ||x||_inf limit, by GMRES on M A d = M (b - A x0) (M: the float32
    factor's solve in float64), the Arnoldi basis by modified Gram-Schmidt twice, the true
    residual checked at each iteration; None after MIXED_STEPS iterations, a breakdown or a
    non-finite x."""
    z = precondition(b - A @ x0)
    beta = float(np.linalg.norm(z))
    if not np.isfinite(beta):
        return None
    if beta == 0.0:
        return x0
    V = [z / beta]
    H = np.zeros((MIXED_STEPS + 1, MIXED_STEPS))
    for j in range(MIXED_STEPS):
        w = precondition(A @ V[j])
        for _ in range(2):
            for i in range(j + 1):
                h = float(w @ V[i])
                H[i, j] += h
                w -= h * V[i]
        H[j + 1, j] = float(np.linalg.norm(w))
        rhs = np.zeros(j + 2)
        rhs[0] = beta
        y = np.linalg.lstsq(H[:j + 2, :j + 1], rhs, rcond=None)[0]
        x = x0 + np.column_stack(V) @ y
        if not np.isfinite(x).all():
            return None
        if np.abs(b - A @ x).max(initial=0.0) <= np.abs(x).max(initial=0.0) * limit:
            return x
        if not H[j + 1, j] > 0.0:
            return None
        V.append(w / H[j + 1, j])
    return None


def solve_mixed(A, b, method="auto", ctx=None):
    """The prototype's solve: the float32 route, or linalg.solve (the float64 QR) where it declines."""
    X = _solve_mixed(A, b[:, None], method, ctx)
    return linalg.solve(A, b) if X is None else X[:, 0]


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4096,8192")
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    for n in (int(v) for v in a.sizes.split(",")):
        rng = np.random.default_rng(n)
        G = rng.standard_normal((n, n)) + 2 * np.sqrt(n) * np.eye(n)
        H = rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n)
        K = G.copy()
        K[:, 0] *= 1e-10
        b = rng.standard_normal(n)
        solve_mixed(G[:256, :256], b[:256])                         # kernels built
        for name, A in (("kappa ~3", G), ("kappa large", H), ("kappa 1e10", K)):
            ts, _ = timed(lambda: sla.solve(A, b))
            As, e = _pow2(A)
            t_round, A32 = timed(lambda: As.astype(np.float32))
            method = "compute"
            t_qr, (F, tau) = timed(lambda: api.qr(A32, mode="raw", method=method, ctx=ctx))
            t_f, F = timed(lambda: np.asfortranarray(F))
            t_con, rc = timed(lambda: float(lapack.strcon(F, norm="1", uplo="U")[0]))
            t_res, R = timed(lambda: b[:, None] - As @ np.zeros((n, 1)))
            t_cor, _ = timed(lambda: lapack.strtrs(F, lapack.sormqr("L", "T", F, tau, R.astype(np.float32),
                                                                     64)[0], lower=0)[0])
            t_all, x = timed(lambda: solve_mixed(A, b))
            t64, _ = timed(lambda: linalg.solve(A, b))
            err = np.linalg.norm(A @ x - b) / (np.linalg.norm(A) * np.linalg.norm(x))
            print(f"n={n} {name:<12} mixed {t_all:6.3f} s (linalg.solve's float64 QR {t64:6.3f}, scipy {ts:6.3f}) | "
                  f"round {t_round * 1e3:5.0f} ms, qr[{method}] {t_qr * 1e3:6.0f} ms, F's order {t_f * 1e3:4.0f} ms, "
                  f"strcon {t_con * 1e3:4.0f} ms (rcond {rc:.1e}), residual {t_res * 1e3:4.0f} ms, "
                  f"correction {t_cor * 1e3:4.0f} ms | backward error {err:.1e}", flush=True)


if __name__ == "__main__":
    main()
