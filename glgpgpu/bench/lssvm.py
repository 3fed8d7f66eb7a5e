"""The PLSSVM thesis's experiments (chapters 7) on this device.

fig78     Fig. 7.8's analogue: its random test matrices -- L with diagonal in
          [0.5, 2] and lower part in [-1, 1], A = L L^T -- factored in float32 on the
          GPU with several jitter values added to the diagonal; the Frobenius error
          ||L_gpu - L||_F / ||L||_F against N, NaN (the curve stops) where a pivot fails;
          beside it the float64 host Cholesky's error on the same A (the matrix's own
          conditioning, the test the thesis proposes).
progress  the analogue of its 01-07 progress table: Cholesky time against N for
          our variants (inner, outer, triad, outer packed, blocked), end to end.
dataset   Cholesky vs CG inside the LS-SVM on a dataset that ships with
          scikit-learn (digits, breast_cancer): training time, accuracy, CG's
          iterations and drift (true float64 vs recursive residual), beside
          sklearn.svm.SVC.
"""
from __future__ import annotations

import datetime as _dt
import time
import warnings

import numpy as np

from ..api import cholesky
from ..errors import NotPositiveDefiniteError
from ..gl import resolve
from ..solvers.estimators import LSSVC
from .common import legend, save_figure

#: the thesis's numbers quoted beside ours (single precision, A30, N = 60000)
THESIS = {"cholesky_first_s": 5600.0, "cholesky_blocked_s": 25.0, "mnist_cholesky_s": 42.0,
          "mnist_cholesky_acc": 1.00, "mnist_cg_s": 2.4, "mnist_cg_acc": 0.11}


def thesis_matrix(N: int, rng):
    """(L, A = L L^T) as the thesis generates them, float64."""
    L = np.tril(rng.uniform(-1.0, 1.0, (N, N)), -1)
    L[np.arange(N), np.arange(N)] = rng.uniform(0.5, 2.0, N)
    return L, L @ L.T


def conditioned_matrix(N: int, rng, cond: float = 1e3):
    """(L, A): A = Q diag(logspace(0, -log10 cond)) Q^T, L its float64 Cholesky factor --
    the well-conditioned control the thesis proposes (section 7.4)."""
    Q, _ = np.linalg.qr(rng.standard_normal((N, N)))
    A = (Q * np.logspace(0, -np.log10(cond), N)) @ Q.T
    A = (A + A.T) / 2
    return np.linalg.cholesky(A), A


FAMILIES = {"thesis": thesis_matrix, "conditioned": conditioned_matrix}


def fig78(sizes, jitters=(0.0, 1e-3, 1e-2, 1e-1), *, method: str = "auto", seed: int = 3, ctx=None,
          families=("thesis", "conditioned")) -> list:
    ctx = resolve(ctx)
    rng = np.random.default_rng(seed)
    rows = []
    for family, N in [(f, N) for f in families for N in sizes]:
        L, A = FAMILIES[family](N, rng)
        A32 = A.astype(np.float32)
        try:     # the same matrix in float64 on the host: how much of the error is the matrix's own
            e64 = float(np.linalg.norm(np.linalg.cholesky(A) - L) / np.linalg.norm(L))
        except np.linalg.LinAlgError:
            e64 = float("nan")
        for jit in jitters:
            t0 = time.perf_counter()
            try:
                Lg = cholesky(A32 + np.float32(jit) * np.eye(N, dtype=np.float32), method=method, ctx=ctx)
                err = float(np.linalg.norm(Lg - L) / np.linalg.norm(L))
                abs_err = float(np.linalg.norm(Lg - L))
                status = "ok"
            except (NotPositiveDefiniteError, ValueError) as exc:
                err = abs_err = float("nan")
                status = f"failed: {str(exc)[:60]}"
            rows.append({"experiment": "fig7.8", "device": ctx.caps.renderer, "date": _dt.date.today().isoformat(),
                         "matrix": family, "N": N, "jitter": jit, "method": method, "rel_frobenius_error": err,
                         "frobenius_error": abs_err, "float64_rel_error": e64, "seconds": time.perf_counter() - t0,
                         "status": status})
    return rows


VARIANTS = [("paper", "inner", False), ("paper", "outer", False), ("paper", "triad", False),
            ("paper", "outer", True), ("blocked", "outer", False)]


def progress(sizes, *, repeat: int = 1, ctx=None, variants=VARIANTS) -> list:
    ctx = resolve(ctx)
    rng = np.random.default_rng(7)
    rows = []
    for N in sizes:
        Q = rng.standard_normal((N, N)).astype(np.float32)
        C = (Q @ Q.T / N + np.eye(N, dtype=np.float32)).astype(np.float32)
        for method, variant, packed in variants:
            cholesky(C[:8, :8], method=method, variant=variant, packed=packed, ctx=ctx)    # compile
            best = np.inf
            for _ in range(repeat):
                t0 = time.perf_counter()
                cholesky(C, method=method, variant=variant, packed=packed, ctx=ctx)
                best = min(best, time.perf_counter() - t0)
            rows.append({"experiment": "progress", "device": ctx.caps.renderer,
                         "date": _dt.date.today().isoformat(), "N": N,
                         "variant": f"{method}/{variant}{'/packed' if packed else ''}", "seconds": best,
                         "gflops": N ** 3 / 3 / best / 1e9})
    return rows


def load_dataset(name: str):
    from sklearn import datasets
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    loaders = {"digits": datasets.load_digits, "breast_cancer": datasets.load_breast_cancer}
    if name not in loaders:
        raise ValueError(f"dataset must be one of {sorted(loaders)} (they ship with scikit-learn), not {name!r}")
    X, y = loaders[name](return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xte), ytr, yte


def dataset(name: str = "digits", *, C: float = 10.0, cg_tol: float = 1e-3, ctx=None) -> tuple:
    """Rows (one per solver) and the CG drift history of the first right-hand side."""
    from sklearn.svm import SVC

    ctx = resolve(ctx)
    Xtr, Xte, ytr, yte = load_dataset(name)
    gamma = 1.0 / (Xtr.shape[1] * Xtr.var())
    base = {"dataset": name, "device": ctx.caps.renderer, "date": _dt.date.today().isoformat(),
            "n_train": len(ytr), "n_test": len(yte), "features": Xtr.shape[1], "C": C, "gamma": gamma}
    rows, drift = [], []
    LSSVC(gamma=gamma, C=C).fit(Xtr[:20], ytr[:20] % 2)                # compile the kernels
    for label, kw in (("cholesky/blocked", dict(method="blocked")), ("cholesky/paper", dict(method="paper")),
                      ("cg (tol %g)" % cg_tol, dict(solver="cg", cg_tol=cg_tol)),
                      ("cg (tol 1e-6)", dict(solver="cg", cg_tol=1e-6))):
        model = LSSVC(gamma=gamma, C=C, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            model.fit(Xtr, ytr)
            sec = time.perf_counter() - t0
        row = dict(base, solver=label, train_s=sec, train_acc=model.score(Xtr, ytr),
                   test_acc=model.score(Xte, yte), converged=model.info_["converged"])
        if "cg" in model.info_:
            it = model.info_["iterations"]
            row.update(cg_iterations_max=max(it), cg_iterations_mean=float(np.mean(it)))
        else:
            row.update(refinement_steps=len(model.info_["refinement"]))
        rows.append(row)
    # CG's drift, measured: one right-hand side tracked to a tight tolerance
    model = LSSVC(gamma=gamma, C=C, solver="cg", cg_tol=1e-7, cg_max_iter=400)
    Y1 = np.where(ytr == ytr[0], 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(Xtr, Y1, track=True)
    ci = model.info_["cg"][1]
    drift = [{"iteration": k + 1, "recursive_residual": r, "true_residual": t, "error": e}
             for k, (r, t, e) in enumerate(zip(ci.residuals, ci.true_residuals, ci.errors))]
    t0 = time.perf_counter()
    svc = SVC(kernel="rbf", gamma=gamma, C=C).fit(Xtr, ytr)
    rows.append(dict(base, solver="sklearn SVC (host)", train_s=time.perf_counter() - t0,
                     train_acc=svc.score(Xtr, ytr), test_acc=svc.score(Xte, yte), converged=True))
    return rows, drift


def _lines(series: dict, path, *, xlabel, ylabel, title, log2x=True):
    """One log-scale line plot: series = {label: [(x, y), ...]}."""
    from ..teach.plotting import subplots

    fig, ax = subplots(figsize=(6.4, 4.4))
    positive = [y for pts in series.values() for _, y in pts if y is not None and np.isfinite(y) and y > 0]
    floor = min(positive) / 10 if positive else 1e-16
    exact = []
    for label, pts in series.items():
        shown = [(x, np.nan if y == 0 else y) for x, y in pts]
        line, = ax.plot(*zip(*shown), "o-" if len(pts) < 40 else "-", label=label)
        # an error of exactly 0 has no place on a log axis: drawn on the floor, marked, not "missing"
        zeros = [(x, floor) for x, y in pts if y == 0]
        if zeros:
            ax.plot(*zip(*zeros), "v", color=line.get_color(), markersize=7)
            exact.append(label)
    if exact:
        ax.annotate(f"v: error exactly 0 ({', '.join(exact)})", (0.01, 0.01), xycoords="axes fraction",
                    fontsize=7, va="bottom")
    if log2x:
        ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=.3)
    legend(ax)
    return save_figure(fig, path)


def plot_fig78(rows, path):
    series = {}
    for fam in dict.fromkeys(r.get("matrix", "thesis") for r in rows):
        sel = [r for r in rows if r.get("matrix", "thesis") == fam]
        for j in sorted({r["jitter"] for r in sel}):
            series[f"{fam}, jitter {j:g}"] = [(r["N"], r["rel_frobenius_error"]) for r in sel if r["jitter"] == j]
        series[f"{fam}, float64 host"] = [(r["N"], r["float64_rel_error"]) for r in sel if r["jitter"] == 0.0]
    return _lines(series, path, xlabel="N", ylabel="||L_gpu - L||_F / ||L||_F (missing: a pivot failed; v: 0)",
                  title="Fig. 7.8 analogue: float32 Cholesky of the thesis's L L^T")


def plot_progress(rows, path):
    series = {v: [(r["N"], r["seconds"]) for r in rows if r["variant"] == v]
              for v in dict.fromkeys(r["variant"] for r in rows)}
    return _lines(series, path, xlabel="N", ylabel="seconds, end to end",
                  title="Cholesky variants (the thesis's 01-07 progress, our kernels)")


def plot_drift(drift, path):
    series = {label: [(d["iteration"], d[key]) for d in drift]
              for key, label in (("recursive_residual", "recursive residual (float32, GPU)"),
                                 ("true_residual", "true residual ||b - Hx|| (float64)"),
                                 ("error", "error vs float64 solve"))}
    return _lines(series, path, xlabel="CG iteration", ylabel="relative size", log2x=False,
                  title="CG's drift on the GPU (LS-SVM, one right-hand side)")
