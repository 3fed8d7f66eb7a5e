"""The GPU correctness sweep: every public operation x every method x shapes that
straddle the internal limits at GPU scale, each through the public call (numpy in,
numpy out) against a float64 reference, within the float32 (or float64) bound of
tests/bounds.py.  One line per case; a CSV with a column saying whether the case is
within its bound; exit status 1 on any miss.  Run it on the GPU before and after every
change to a kernel or a solver (benchmarks/README.md); --quick is the CPU machine's form
(llvmpipe, small sizes: CI runs it), which also crosses the limits by making them small
(glgpgpu.limits) as the GPU form crosses them at their real sizes.

    python benchmarks/gpu_check.py [--quick] [--out DIR] [--only REGEX] [--list]

Columns: op, method, shape, case (variant / mode / form), error (the measured relative
error or residual, as named in `measure`), bound, ratio (error / bound: within when
<= 1), within, seconds (the call alone), note.  A case whose call raises is a miss,
unless the call refuses by design (named in `note`, within=refused)."""
from __future__ import annotations

import argparse
import csv
import datetime
import math
import os
import re
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from bounds import GLSL_DIV_SQRT, U32, U64, gamma, gamma_u, qr_bound  # noqa: E402

METHODS = ("paper", "blocked", "compute")


# -- float64 arithmetic for the references: torch on the GPU where it is (16384^3 in
#    float64 takes ~0.2 s there), numpy otherwise -------------------------------------

class Ref:
    def __init__(self):
        self.torch = None
        try:
            import torch
            if torch.cuda.is_available():
                self.torch = torch
        except ImportError:
            pass
        self.name = "torch-cuda float64" if self.torch else "numpy float64"

    def t(self, x):
        x = np.asarray(x, np.float64)
        return self.torch.from_numpy(np.ascontiguousarray(x)).cuda() if self.torch else x

    def tril(self, a):
        return self.torch.tril(a) if self.torch else np.tril(a)

    def abs(self, a):
        return a.abs() if self.torch else np.abs(a)

    def amax(self, a):
        return float(a.abs().max()) if self.torch else float(np.abs(a).max(initial=0.0))

    def fro(self, a):
        return float(self.torch.linalg.norm(a)) if self.torch else float(np.linalg.norm(a))

    def eye(self, n, k=None):
        return self.torch.eye(n, k or n, dtype=self.torch.float64, device="cuda") if self.torch else np.eye(n, k or n)

    def ratio(self, err, bound):
        """max(err / bound) elementwise, 0 / 0 counted as 0."""
        if self.torch:
            r = err.abs() / bound.clamp_min(1e-300)
            r[(err == 0)] = 0
            return float(r.max()) if r.numel() else 0.0
        r = np.where(err == 0, 0.0, np.abs(err) / np.maximum(bound, 1e-300))
        return float(r.max(initial=0.0))


R = None   # the Ref, made in main


# -- the checks: each returns (error, bound, note); within when error <= bound ------------

def check_elementwise(err, bound, scale):
    """(max |err| / scale, the bound in the same units): ratio = the worst element's
    err / bound, so the case is within when every element is."""
    ratio = R.ratio(err, bound)
    e = R.amax(err) / max(scale, 1e-300)
    return (e, e / ratio) if ratio > 0 else (0.0, 1.0)


def spd(m, rng, cond=1e3):
    """A dense SPD matrix, cheap at any order: X X^T / 64 (X with 64 columns) plus a shift
    4 / cond times its size, so its condition number is below about m cond / 64 --
    backward errors do not depend on it, and the forward checks compute theirs."""
    X = rng.standard_normal((m, 64)) / 8.0
    C = X @ X.T
    C[np.diag_indices(m)] += max(m / 64.0, 1.0) * 4.0 / cond
    return C


def cholesky_backward(L, C):
    """|L L^T - C| <= gamma_{m+9} |L||L^T| elementwise, lower triangle (Higham, Thm 10.3 with
    GLSL's sqrt and division: bounds.GLSL_DIV_SQRT)."""
    m = C.shape[0]
    Lt = R.t(L)
    Ct = R.t(np.asarray(C, np.float32))
    err = R.tril(Lt @ Lt.T - Ct)
    bound = gamma(m + GLSL_DIV_SQRT) * R.tril(R.abs(Lt) @ R.abs(Lt).T)
    assert not np.triu(L, 1).any(), "L has entries above the diagonal"
    return check_elementwise(err, bound, R.amax(Ct))


def solve_backward(T, X, B, k=1, u=U32, LLt=False):
    """|B - T X| <= gamma_{k (m + 9)} |T||X| elementwise (Higham, Thm 8.5 with GLSL's division;
    k = 2 for L L^T: LLt=True passes L, and |L||L^T| is formed on the reference's device)."""
    m = T.shape[0]
    Tt, Xt, Bt = R.t(T), R.t(X), R.t(B)
    if LLt:
        err = Bt - Tt @ (Tt.T @ Xt)
        bound = gamma_u(k * (m + GLSL_DIV_SQRT), u) * (R.abs(Tt) @ (R.abs(Tt).T @ R.abs(Xt))) + 1e-300
        return check_elementwise(err, bound, R.amax(Bt))
    err = Bt - Tt @ Xt
    bound = gamma_u(k * (m + GLSL_DIV_SQRT), u) * (R.abs(Tt) @ R.abs(Xt)) + 1e-300
    return check_elementwise(err, bound, R.amax(Bt))


def adat_backward(C, A, d2):
    """|C - A D^2 A^T| <= gamma_{n+2} |A| D^2 |A|^T elementwise (Higham, Thm 3.5)."""
    At, dt = R.t(np.asarray(A, np.float32)), R.t(np.asarray(d2, np.float32))
    ref = R.tril((At * dt) @ At.T)
    bound = gamma(A.shape[1] + 2) * R.tril((R.abs(At) * R.abs(dt)) @ R.abs(At).T)
    return check_elementwise(R.t(C) - ref, bound, R.amax(ref))


def qr_backward(A, Q, Rm, u=U32):
    """max(||Q R - A||_F / ||A||_F, ||Q^T Q - I||_F / sqrt(k)) <= qr_bound(m, n)."""
    m, n = A.shape
    At, Qt, Rt = R.t(A), R.t(Q), R.t(Rm)
    assert not np.tril(Rm, -1).any(), "R has entries below the diagonal"
    res = R.fro(Qt @ Rt - At) / max(R.fro(At), 1e-300)
    k = Q.shape[1]
    orth = R.fro(Qt.T @ Qt - R.eye(k)) / math.sqrt(k)
    return max(res, orth), qr_bound(m, n, u)


def r_backward(A, Rm, u=U32):
    """||R^T R - A^T A||_F / ||A||_F^2 <= 2 beta + beta^2 for R of A + dA = Q R."""
    m, n = A.shape
    At, Rt = R.t(A), R.t(Rm)
    b = qr_bound(m, n, u)
    return R.fro(Rt.T @ Rt - At.T @ At) / max(R.fro(At) ** 2, 1e-300), 2 * b + b * b


_REFERENCES = {}


def lstsq_forward(A, b, x, u=U64):
    """||x - x*|| / ||x*|| within the float64 least-squares perturbation bound of a
    backward-stable solution (Wedin; Higham, Thm 20.1): gamma_{mn}(kappa + kappa^2 ||r|| /
    (||A|| ||x||)), x* by numpy's float64 lstsq."""
    import scipy.linalg as sla
    import scipy.linalg.lapack as lapack
    m, n = A.shape
    key = (A.shape, float(A[0, 0]), float(b[0]))         # the same problem for every method: computed once
    if key not in _REFERENCES:
        want = sla.lstsq(A, b, lapack_driver="gelsy", check_finite=False)[0]
        Rr = sla.qr(A, mode="r", check_finite=False)[0][:n]
        kappa = 1.0 / lapack.dtrcon(Rr, norm="1")[0] * n      # kappa_2 <= n kappa_1 (an estimate, LAPACK's)
        s0 = np.linalg.norm(A, 2) if n <= 2000 else np.linalg.norm(A)   # ||A||_2 (<= ||A||_F)
        _REFERENCES[key] = want, kappa, s0
    want, kappa, s0 = _REFERENCES[key]
    r = np.linalg.norm(b - A @ want)
    eta = qr_bound(m, n, u) * 4
    bound = eta * (kappa + kappa ** 2 * r / (s0 * max(np.linalg.norm(want), 1e-300)))
    return np.linalg.norm(x - want) / max(np.linalg.norm(want), 1e-300), bound


# -- the cases ----------------------------------------------------------------------------

@dataclass
class Case:
    op: str
    method: str
    shape: str
    case: str
    run: object       # () -> (error, bound, note)
    limits: dict | None = None

    @property
    def name(self):
        return f"{self.op}/{self.method}/{self.shape}/{self.case}"


def sizes(quick):
    """The shapes: on the GPU across each limit at its real size (PANEL_ROWS 1024,
    GPU_UNPACK_BYTES at 2048, SLAB_FROM / staging ring / the 1-D grid's fold at 4096, tiles
    of 8192, one tile up to 16384); quick: small sizes, the limits made small instead."""
    if quick:
        return dict(sq=[1, 2, 3, 17, 64, 65, 127, 200], sq_paper=[1, 3, 65, 130],
                    qr=[(1, 1), (3, 2), (2, 3), (200, 200), (131, 250), (300, 120), (257, 64), (64, 257)],
                    qr_paper=[(3, 2), (130, 65), (65, 130)], adat=[(65, 130), (130, 65)],
                    tiled=[97], lstsq=[(300, 40)], lssvm=[300], sparse=[(10, 2)], lp=["afiro", "sc50b"],
                    linalg=[37, 130], kernel=[130])
    return dict(sq=[1, 3, 1023, 1025, 2047, 2049, 4095, 4097, 8193, 16383],
                sq_paper=[1, 3, 1025, 2049],
                qr=[(1, 1), (3, 2), (1023, 1023), (1025, 1025), (2048, 2048), (3000, 3000), (4096, 4096),
                    (4099, 4099), (16384, 1024), (1024, 16384), (16385, 257), (8191, 2047), (5003, 4999)],
                qr_paper=[(3, 2), (1025, 1025), (4099, 257), (257, 4099)],
                adat=[(1025, 4097), (4097, 1025), (8193, 3001), (301, 40000)],
                tiled=[16385], lstsq=[(20000, 1000), (4099, 2049)], lssvm=[4097],
                sparse=[(150, 2), (40, 3)],
                lp=["afiro", "sc50b", "adlittle", "blend", "e226", "bandm", "25fv47", "scsd8", "ship04s", "degen2"],
                linalg=[37, 300, 2049], kernel=[4097, 16385])


def build(quick):
    import glgpgpu
    from glgpgpu import linalg

    S = sizes(quick)
    rng = np.random.default_rng(20261127)
    cases = []

    def add(op, method, shape, case, fn, limits=None):
        cases.append(Case(op, method, shape, case, fn, limits))

    # adat: full (and packed for the fragment methods), n past the texture limit
    for method in METHODS:
        for m, n in S["adat"] if method != "paper" else S["adat"][:2]:
            for packed in ((False, True) if method != "compute" and m <= 4097 else (False,)):
                def f(m=m, n=n, method=method, packed=packed):
                    A = rng.standard_normal((m, n))
                    d2 = rng.random(n) + 0.1
                    return adat_backward(glgpgpu.adat(A, d2, packed=packed, method=method), A, d2)
                add("adat", method, f"{m}x{n}", "packed" if packed else "full", f)

    # cholesky: each variant and packed (paper), one texture and tiles (the sizes pass
    # MAX_ONE_TILE only in "tiled"); solve_triangular (both triangles, both transposes) and
    # cho_solve on each factor
    for method in METHODS:
        orders = S["sq_paper"] if method == "paper" else S["sq"]
        for m in orders:
            forms = [("outer", False)]
            if method == "paper":
                forms += [("outer", True), ("triad", False), ("inner", False)] if m <= 1025 else [("outer", True)]
            for variant, packed in forms:
                def f(m=m, method=method, variant=variant, packed=packed):
                    C = spd(m, rng)
                    L = glgpgpu.cholesky(C, packed=packed, variant=variant, method=method)
                    return cholesky_backward(L, C)
                add("cholesky", method, str(m), variant + (" packed" if packed else ""), f)

            def solves(m=m, method=method):
                C = spd(m, rng)
                L = np.linalg.cholesky(C).astype(np.float32)
                out = []
                for lower, trans in ((True, False), (True, True), (False, False), (False, True)):
                    T = L if lower else np.ascontiguousarray(L.T)
                    B = rng.standard_normal((m, 3)).astype(np.float32)
                    X = glgpgpu.solve_triangular(T, B, lower=lower, trans=trans, method=method)
                    out.append(solve_backward(T.T if trans else T, X, B))
                X = glgpgpu.cho_solve(L, B, method=method)
                out.append(solve_backward(L, X, B, k=2, LLt=True))
                worst = max(out, key=lambda eb: eb[0] / eb[1])
                return worst[0], worst[1], "worst of 4 solve_triangular forms and cho_solve"
            if m <= 8193:
                add("solve_triangular+cho_solve", method, str(m), "3 rhs", solves)

    for method in METHODS:
        for m in S["tiled"]:
            def f(m=m, method=method):
                C = spd(m, rng)
                L = glgpgpu.cholesky(C, method=method)
                e, b = cholesky_backward(L, C)
                B = rng.standard_normal((m, 2)).astype(np.float32)
                X = glgpgpu.cho_solve(L, B, method=method)
                e2, b2 = solve_backward(L, X, B, k=2, LLt=True)
                return (e, b, "cho_solve too") if e / b >= e2 / b2 else (e2, b2, "cho_solve (the worse)")
            lim = None
            if method == "paper" or quick:        # the paper's tiles take a pass a column: smaller tiles
                lim = {"layouts.tiles.MAX_ONE_TILE": 512 if not quick else 48,
                       "layouts.tiles.DEFAULT_TILE": 512 if not quick else 32}
            mm = m if method != "paper" or quick else 1100
            add("cholesky tiled", method, str(mm), "tiles" + (" (small)" if lim else ""),
                lambda f=f, mm=mm: f(mm), lim)

    # QR in every mode, apply_q, qr_batched
    for method in METHODS:
        for m, n in (S["qr_paper"] if method == "paper" else S["qr"]):
            def f(m=m, n=n, method=method):
                A = rng.standard_normal((m, n))
                Q, Rm = glgpgpu.qr(A, method=method)
                return qr_backward(A, Q, Rm)
            add("qr", method, f"{m}x{n}", "economic", f)
            if max(m, n) <= 5003:
                def fr(m=m, n=n, method=method):
                    A = rng.standard_normal((m, n))
                    return r_backward(A, glgpgpu.qr(A, mode="r", method=method))
                add("qr", method, f"{m}x{n}", "r", fr)

            def fq(m=m, n=n, method=method):
                A = rng.standard_normal((m, n))
                F, tau = glgpgpu.qr(A, mode="raw", method=method)
                k = min(m, n)
                QtA = glgpgpu.apply_q(F, tau, A, trans=True, method=method)
                e1 = R.fro(R.t(QtA[:k]) - R.t(np.triu(F[:k]))) / R.fro(R.t(A))
                e2 = R.fro(R.t(QtA[k:])) / R.fro(R.t(A)) if m > k else 0.0
                C = rng.standard_normal((m, 5))
                back = glgpgpu.apply_q(F, tau, glgpgpu.apply_q(F, tau, C, trans=True, method=method), method=method)
                e3 = R.fro(R.t(back) - R.t(C)) / R.fro(R.t(C))
                return max(e1, e2, e3 / 2), qr_bound(m, n), "Q^T A = [R; 0] and Q Q^T C = C"
            if max(m, n) <= 16385:
                add("apply_q", method, f"{m}x{n}", "raw", fq)
        if method != "paper" or True:
            def fb(method=method):
                shapes = [(300, 40), (41, 41), (7, 90), (1200, 65)] if not quick else [(30, 4), (9, 9), (7, 20)]
                mats = [rng.standard_normal(s) for s in shapes]
                out = glgpgpu.qr_batched(mats, method=method)
                worst = 0.0
                for A, (F, tau) in zip(mats, out):
                    m, n = A.shape
                    one = glgpgpu.qr(A, mode="raw", method=method)
                    if not (np.array_equal(one[0], F) and np.array_equal(one[1], tau)):
                        return float("inf"), 1.0, "not bit for bit qr(mode='raw')"
                    QtA = glgpgpu.apply_q(F, tau, A, trans=True, method=method)
                    k = min(m, n)
                    worst = max(worst, (np.linalg.norm(QtA[:k] - np.triu(F[:k])) / np.linalg.norm(A))
                                / qr_bound(m, n))
                return worst, 1.0, "ratio to qr_bound; each bit for bit qr(mode='raw')"
            add("qr_batched", method, "4 shapes", "raw", fb)

    # least squares (QR + float64 refinement), weighted least squares
    for method in METHODS:
        for m, n in S["lstsq"]:
            def f(m=m, n=n, method=method):
                r = np.random.default_rng(m * 7 + n)          # the same problem for every method
                A = r.standard_normal((m, n))
                b = A @ r.standard_normal(n) + 1e-3 * r.standard_normal(m)
                x, info = glgpgpu.lstsq(A, b, method=method)
                e, bd = lstsq_forward(A, b, x)
                return e, bd, f"status {info.status}"
            add("lstsq", method, f"{m}x{n}", "float64", f)
        for solver in ("normal", "qr"):
            m, n = S["lstsq"][0][1], S["lstsq"][0][0]
            def fw(m=m, n=n, method=method, solver=solver):
                r = np.random.default_rng(m * 11 + n)
                A = r.standard_normal((m, n))
                d2 = r.random(n) + 0.5
                b = r.standard_normal(n)
                x, info = glgpgpu.wls(A, d2, b, method=method, solver=solver)
                # wls: min || D (A^T x - b) ||
                Aw = (A * np.sqrt(d2)).T
                e, bd = lstsq_forward(Aw, np.sqrt(d2) * b, x)
                return e, max(bd, 1e-8), f"status {info.status} (tol 1e-8)"
            add("wls", method, f"{m}x{n}", solver, fw)

    # kernel matrices and the LS-SVM estimators
    for method in METHODS:
        for N in S["kernel"]:
            for kernel in ("rbf", "poly"):
                def f(N=N, method=method, kernel=kernel):
                    X = rng.standard_normal((N, 16))
                    X -= X.mean(axis=0)
                    g = 1.0 / 16
                    K = glgpgpu.kernel_matrix(X, kernel=kernel, gamma=g, degree=3, coef0=1.0, method=method)
                    # rows sampled at large N: every 8192-tile's edges and 200 at random
                    rows = np.unique(np.concatenate([rng.choice(N, min(N, 200), replace=False),
                                                     [r for e in range(0, N, 8192) for r in (e, e - 1) if 0 <= r < N],
                                                     [N - 1]]))
                    want, bound = kernel_reference_rows(X, rows, kernel, g, 3, 1.0)
                    err = (K[rows] - want) * (np.arange(N)[None, :] <= rows[:, None])
                    return check_elementwise(R.t(err), R.t(2 * bound), 1.0)
                add("kernel_matrix", method, f"{N}x16", kernel, f)
        for N in S["lssvm"]:
            def f(N=N, method=method):
                return lssvm_case(glgpgpu, rng, N, method)
            add("LSSVC+LSSVR", method, f"{N}x16", "rbf", f)

    # sparse QR and sparse least squares
    from glgpgpu.bench.matrices import grid
    for method in METHODS:
        for k, d in S["sparse"]:
            def f(k=k, d=d, method=method):
                import scipy.sparse.linalg as spla
                A = grid(k, d).tocsc()
                fac = glgpgpu.sparse_qr(A, method=method, tol=-1)
                AP = A[:, fac.perm[:fac.rank]]
                Rr = fac.R.tocsc()[:fac.rank, :fac.rank].astype(np.float64)
                e = spla.norm(Rr.T @ Rr - AP.T @ AP) / spla.norm(AP) ** 2
                b = qr_bound(*A.shape)
                return e, 2 * b + b * b, f"rank {fac.rank}"
            add("sparse_qr", method, f"grid({k},{d})", "R", f)

            def fl(k=k, d=d, method=method):
                A = grid(k, d).tocsc()
                b = rng.standard_normal(A.shape[0])
                x, info = glgpgpu.sparse_lstsq(A, b, method=method)
                r = b - A @ x
                import scipy.sparse.linalg as spla
                opt = np.linalg.norm(A.T @ r) / (spla.norm(A) * max(np.linalg.norm(r), 1e-300))
                return opt, 1e-11, f"status {info.status}: ||A^T r|| / (||A|| ||r||), atol 1e-12"
            add("sparse_lstsq", method, f"grid({k},{d})", "float64", fl)

    # linear programs against HiGHS
    for method in METHODS:
        for name in S["lp"]:
            def f(name=name, method=method):
                return lp_case(glgpgpu, name, method)
            add("linprog", method, name, "mixed, device=gpu", f)

    # glgpgpu.linalg, float32 and float64
    for method in METHODS:
        for n in S["linalg"]:
            for dt in ((np.float32, np.float64) if n <= 300 or method == "compute" else (np.float32,)):
                def f(n=n, dt=dt, method=method):
                    return linalg_case(linalg, rng, n, dt, method)
                add("linalg", method, str(n), np.dtype(dt).name, f)
    return cases


def kernel_reference_rows(X, rows, kernel, g, deg, c0):
    """kernel_reference's K and bound for the given rows of K only (all its columns)."""
    X = X.astype(np.float32).astype(np.float64)
    d = X.shape[1]
    G = X[rows] @ X.T
    E = gamma(d + 2) * (np.abs(X[rows]) @ np.abs(X).T)
    n_all = np.einsum("ij,ij->i", X, X)
    if kernel == "poly":
        b = g * G + c0
        return b ** deg, deg * np.abs(b) ** (deg - 1) * (g * E + U32 * np.abs(b)) + deg * U32 * np.abs(b) ** deg
    En = gamma(d + 2) * np.einsum("ij,ij->i", np.abs(X), np.abs(X))
    D = n_all[rows][:, None] + n_all[None, :] - 2 * G
    dD = En[rows][:, None] + En[None, :] + 2 * E + 3 * U32 * (n_all[rows][:, None] + n_all[None, :] + 2 * np.abs(G))
    K = np.exp(-g * np.maximum(D, 0))
    return K, K * (g * dD + 4 * U32 * (1 + g * np.maximum(D, 0)))


def lssvm_case(glgpgpu, rng, N, method):
    """LSSVC (two classes) and LSSVR on N points: decision values against the float64
    LS-SVM (the bordered system solved by LAPACK); the line is the LS-SVM issue's 1e-5
    relative."""
    from glgpgpu.solvers.estimators import LSSVC, LSSVR
    X = rng.standard_normal((N, 16))
    y = np.sign(X[:, 0] + 0.3 * X[:, 1] + 0.2 * rng.standard_normal(N))
    Xt = rng.standard_normal((min(N, 2000), 16))
    worst, notes = 0.0, []
    for est, target in ((LSSVC(C=1.0, gamma=1 / 16, method=method), y), (LSSVR(C=1.0, gamma=1 / 16, method=method),
                                                                           X[:, 0] ** 2 + np.sin(X[:, 1]))):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            est.fit(X, target)
        got = est.decision_function(Xt) if hasattr(est, "decision_function") else est.predict(Xt)
        want = lssvm_reference(X, target, Xt, 1.0, 1 / 16)
        if got.ndim > 1:
            got = got[:, -1]
        e = np.abs(got - want).max() / max(np.abs(want).max(), 1e-300)
        worst = max(worst, e)
        notes.append(f"{type(est).__name__} {e:.2g}" + (f" ({len(w)} warnings)" if w else ""))
    return worst, 1e-5, "; ".join(notes)


def lssvm_reference(X, y, Xt, C, g):
    from scipy.linalg import cho_factor, cho_solve
    from scipy.spatial.distance import cdist
    K = np.exp(-g * cdist(X, X, "sqeuclidean")) + np.eye(len(X)) / C
    f = cho_factor(K)
    eta, nu = cho_solve(f, np.ones(len(X))), cho_solve(f, y)
    b = nu.sum() / eta.sum()
    alpha = nu - b * eta
    return np.exp(-g * cdist(Xt, X, "sqeuclidean")) @ alpha + b


def lp_case(glgpgpu, name, method):
    """An LP from data/netlib by glgpgpu (device='gpu') and by HiGHS's IPM: the objectives
    within the LP's tolerance, 1e-8 relative."""
    import highspy
    path = ROOT / "data" / "netlib" / f"{name}.mps.gz"
    if not path.exists():
        path = ROOT / "tests" / "data" / "netlib" / f"{name}.mps.gz"
    res = glgpgpu.solve_mps(str(path), method=method, device="gpu")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(path))
    h.run()
    want = h.getInfo().objective_function_value
    e = abs(res.objective - want) / max(1.0, abs(want))
    if res.status != "optimal":
        e = float("inf")
    return e, 1e-8, f"{res.status} in {res.iterations} iterations, HiGHS {want:.10g}"


def linalg_case(linalg, rng, n, dt, method):
    """Every glgpgpu.linalg function on one n x n problem; the worst ratio to its bound:
    float32 in, float32 bounds; float64 in, float64 bounds (the README's contract: the
    input's dtype and its accuracy)."""
    u = U64 if dt == np.float64 else U32
    A = spd(n, rng).astype(dt)
    G = (rng.standard_normal((n, n)) + n ** 0.5 * np.eye(n)).astype(dt)
    b = rng.standard_normal(n).astype(dt)
    out = {}
    c, low = linalg.cho_factor(A, method=method)
    U = c.astype(np.float64)
    out["cho_factor"] = _ratio(*_chol_upper(U, A, u))
    x = linalg.cho_solve((c, low), b, method=method)
    out["cho_solve"] = _ratio(*_solve64(A, x, b, u))
    U2 = linalg.cholesky(A, method=method).astype(np.float64)
    out["cholesky"] = _ratio(*_chol_upper(U2, A, u))
    x = linalg.solve_triangular(np.triu(G), b, method=method)
    out["solve_triangular"] = _ratio(*_solve64(np.triu(G).astype(np.float64), x, b, u))
    Q, Rm = linalg.qr(G, mode="economic", method=method)
    out["qr"] = _ratio(*qr_backward(G.astype(np.float64), Q.astype(np.float64), Rm.astype(np.float64), u))
    cq, Rq = linalg.qr_multiply(G, np.eye(n, dtype=dt)[:, :3].T, mode="right", method=method)
    out["qr_multiply"] = _ratio(np.linalg.norm(cq.astype(np.float64) - Q[:3, :].astype(np.float64))
                                / np.sqrt(3), qr_bound(n, n, u))
    x = linalg.solve(G, b, method=method)
    out["solve"] = _ratio(*_solve64(G.astype(np.float64), x, b, u))
    x = linalg.solve(A, b, assume_a="pos", method=method)
    out["solve pos"] = _ratio(*_solve64(A.astype(np.float64), x, b, u))
    x = linalg.lstsq(G, b, method=method)[0]
    out["lstsq"] = _ratio(*_solve64(G.astype(np.float64), x, b, u))
    worst = max(out, key=out.get)
    return out[worst], 1.0, f"worst {worst}: " + ", ".join(f"{k} {v:.2g}" for k, v in out.items())


def _ratio(e, b):
    return e / b


def _chol_upper(U, A, u):
    """||U^T U - A||_max / (|U^T||U|)_max-style: elementwise ratio to gamma_{n+1}(u)."""
    n = A.shape[0]
    A64 = A.astype(np.float64)
    err = np.abs(U.T @ U - A64)
    bound = gamma_u(n + 1, u) * (np.abs(U).T @ np.abs(U))
    r = np.where(err == 0, 0, err / np.maximum(bound, 1e-300)).max()
    return r, 1.0


def _solve64(A, x, b, u):
    """||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) against gamma_{3n}(u)."""
    A = A.astype(np.float64)
    x, b = x.astype(np.float64), b.astype(np.float64)
    r = np.abs(b - A @ x).max()
    return r / (np.abs(A).sum(1).max() * np.abs(x).max() + np.abs(b).max()), gamma_u(3 * A.shape[0], u)


# -- running ------------------------------------------------------------------------------

def run_case(case):
    from glgpgpu import limits
    t0 = time.perf_counter()
    try:
        if case.limits:
            with limits.override(case.limits):
                out = case.run()
        else:
            out = case.run()
        err, bound, note = (out + ("",))[:3]
        ok = bool(err <= bound)
        status = "yes" if ok else "NO"
    except Exception as exc:            # a miss, named
        err, bound, ok, status = float("nan"), float("nan"), False, "NO"
        note = f"raised {type(exc).__name__}: {str(exc)[:300]}"
        if os.environ.get("GLGPGPU_CHECK_TRACE"):
            traceback.print_exc()
    dt = time.perf_counter() - t0
    ratio = err / bound if bound and bound == bound and bound > 0 else float("nan")
    return dict(op=case.op, method=case.method, shape=case.shape, case=case.case, error=err, bound=bound,
                ratio=ratio, within=status, seconds=round(dt, 3), note=note)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes with the limits made small (llvmpipe, CI)")
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "benchmarks" / "results")),
                    help="folder for gpu-check-<device>-<date>.csv")
    ap.add_argument("--only", default="", help="run the cases whose op/method/shape/case name matches this regex")
    ap.add_argument("--list", action="store_true", help="list the cases and stop")
    args = ap.parse_args(argv)
    import glgpgpu
    from glgpgpu import limits

    global R
    R = Ref()
    ctx = glgpgpu.get_context()
    cases = [c for c in build(args.quick) if re.search(args.only, c.name)]
    if args.quick:          # the limits small, so that these sizes cross them (tests/limits)
        small = {k: v for k, v in ((lim.name, lim.small) for lim in limits.LIMITS)
                 if k not in ("gl.context.TEXTURE_SIZE", "gl.context.STORAGE_BLOCK")}   # they refuse, by name
        for c in cases:
            c.limits = {**small, **(c.limits or {})}
    if args.list:
        for c in cases:
            print(c.name)
        return 0
    device = ctx.caps.renderer
    print(f"{device} | {ctx.caps.version} | references: {R.name} | {len(cases)} cases", flush=True)
    slug = re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")[:40]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"gpu-check-{slug}-{datetime.date.today().isoformat()}{'-quick' if args.quick else ''}.csv"
    fields = ["op", "method", "shape", "case", "error", "bound", "ratio", "within", "seconds", "note"]
    rows = []
    t0 = time.perf_counter()
    with open(path, "w", newline="") as fh:           # row by row: a run cut short keeps what it did
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for c in cases:
            r = run_case(c)
            rows.append(r)
            w.writerow(r)
            fh.flush()
            print(f"{r['within']:>3} {c.name:<60} err {r['error']:.3g} bound {r['bound']:.3g} "
                  f"ratio {r['ratio']:.3g} {r['seconds']:.2f}s {r['note']}", flush=True)
    misses = [r for r in rows if r["within"] != "yes"]
    ratios = [r["ratio"] for r in rows if r["ratio"] == r["ratio"]]
    print(f"{len(rows)} cases, {len(misses)} misses, largest error {max(ratios, default=0):.3g} of its bound, "
          f"{time.perf_counter() - t0:.0f} s; wrote {path}", flush=True)
    for r in misses:
        print(f"MISS {r['op']}/{r['method']}/{r['shape']}/{r['case']}: {r['note'] or r['ratio']}")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
