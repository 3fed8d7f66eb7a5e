"""LS-SVM training on the rasterized Cholesky (the PLSSVM thesis,
chapters 2 and 5).

The LS-SVM dual is the bordered system  [0 1^T; 1 H] [b; alpha] = [0; y],
H = K + I/C.  We solve it through the Schur complement (the bordered matrix is
indefinite, H is SPD): H eta = 1, H nu = y, b = 1^T nu / 1^T eta,
alpha = nu - b eta -- one Cholesky of H for every right-hand side, so a
one-vs-all multi-class problem factors H once.  H is formed (kernel_texture with
1/C on the diagonal) and factored (Algorithm 5) on the GPU in float32; each solve
is refined to float64 on the host (Algorithm 1) with H in float64.  The thesis's
reduction to N-1 unknowns (q, QA_cost) gives the same solution; the Schur form
keeps the matrix the papers' kernels factor: symmetric positive definite.
The comparator, PLSSVM's own solver, is conjugate gradients on the GPU (cg.py).
The scikit-learn estimators LSSVC (one-vs-all classification) and LSSVR (regression)
around `train` are in estimators.py.
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla

from ..dispatch import KERNELS as KERNEL_CODES, choose, float64_kernels, implementation
from ..errors import GLUnavailableError, NotPositiveDefiniteError
from ..gl import Stopwatch, resolve
from ..kernel_functions import kernel64
from ..vectors import Vectors
from .cg import cg

try:
    from sklearn.exceptions import ConvergenceWarning
except ImportError:                                      # the lean install
    class ConvergenceWarning(UserWarning):
        """scikit-learn's: an iterative solve stopped before its tolerance."""

KERNELS = tuple(KERNEL_CODES)


#: test points x training points from which the decision values are made on the GPU
GPU_DECISION_FROM = 1 << 20


def decision_values(T, X, alpha, b, *, kernel, gamma, degree, coef0, ctx=None) -> np.ndarray:
    """K(T, X) alpha + b in float64, (M, k): on the GPU in float64 (kernel_product64.comp, K
    never stored) where the driver has it and M N is large; else on the host, a block of
    test points at a time (never M x N at once)."""
    M, N = T.shape[0], X.shape[0]
    if M * N >= GPU_DECISION_FROM:
        try:
            ctx = resolve(ctx)
            f64 = float64_kernels(ctx)
        except GLUnavailableError:
            f64 = None
        if f64 is not None:
            products = f64.kernel_products(X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, ctx=ctx)
            try:
                return products(alpha, rows=T) + b
            finally:
                products.release()
    rows = max(1, HostKernelProducts.BLOCK_BYTES // (8 * max(N, 1)))
    parts = [kernel64(T[i:i + rows], X, kernel, gamma, degree, coef0) @ alpha for i in range(0, M, rows)]
    return (np.concatenate(parts) if parts else np.zeros((0, alpha.shape[1]))) + b


class HostKernelProducts:
    """K Z in float64 on the host: K kept whole where it takes at most CACHE_BYTES, else made
    again a block of rows at a time (BLOCK_BYTES each), never N x N at once."""

    CACHE_BYTES = 1 << 30
    BLOCK_BYTES = 1 << 27

    def __init__(self, X, *, kernel, gamma, degree, coef0):
        self.X, self.args = np.asarray(X, np.float64), (kernel, gamma, degree, coef0)
        N = self.N = self.X.shape[0]
        self.K = kernel64(self.X, self.X, *self.args) if 8 * N * N <= self.CACHE_BYTES else None

    def __call__(self, Z):
        if self.K is not None:
            return self.K @ Z
        N = self.X.shape[0]
        rows = max(1, self.BLOCK_BYTES // (8 * N))
        return np.concatenate([kernel64(self.X[i:i + rows], self.X, *self.args) @ Z for i in range(0, N, rows)])

    def release(self):
        self.K = None


def kernel_products(X, *, kernel, gamma, degree, coef0, ctx):
    """The float64 products K Z the refinement needs: on the GPU where the driver has
    compute shaders with float64 (kernel_product64.comp), else on the host."""
    f64 = float64_kernels(ctx)
    if f64 is not None:
        return f64.kernel_products(X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, ctx=ctx)
    return HostKernelProducts(X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0)


def train(X, Y, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0, C=1.0, jitter=0.0, packed=False,
          method="auto", solver="cholesky", ctx=None, tol=1e-12, max_refine=30, cg_tol=1e-3,
          cg_max_iter=None, track=False, client=None, tile=None):
    """(alpha (N, k), b (k,), info) for the k target columns of Y (N, k).

    solver="cholesky": H + jitter I = L L^T on the GPU (impl.KernelFactor of the
    chosen method) in float32; each solve refined to float64 against H itself, whose
    products K Z are made in float64 from X without storing K (kernel_products), so
    the jitter that keeps float32 pivots positive (the thesis's parameter) does not
    bias the result.  Where refinement stalls (H's condition near 1 / float32's
    epsilon), preconditioned CG with the float32 factor as preconditioner carries on
    (info["pcg_iterations"]); where float32 cannot factor H but float64 can, the
    factor is made in float64 (FallbackFactor, with a warning).  A solve that does
    not reach `tol` warns (ConvergenceWarning, naming C, the condition estimate and the
    remedies).  solver="cg": PLSSVM's conjugate gradients on the GPU, float32, no
    refinement, stopping at ||r|| <= cg_tol ||b||; its true float64 residual is
    checked and a miss warns; track=True records the true float64 residual and the
    error against a float64 solve at every iteration (the drift the thesis asks about)."""
    ctx = resolve(ctx)
    N = X.shape[0]
    X32 = np.ascontiguousarray(X, np.float32)
    rhs = np.column_stack([np.ones(N), Y])                    # eta and every nu at once
    # each column at a power of two near 1: targets of 1e-30 are solved as well as ones
    col = np.exp2(np.round(np.log2(np.maximum(np.abs(rhs).max(axis=0), np.finfo(np.float64).tiny))))
    rhs = rhs / col
    watch = Stopwatch(ctx)
    info = {"solver": solver}
    products = kernel_products(X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, ctx=ctx)
    H = _Operator(products, 1.0 / C)
    try:
        with ctx.pool.scope():
            if solver == "cg":
                Z = _train_cg(X, X32, rhs, H, kernel, gamma, degree, coef0, C, packed, ctx, cg_tol, cg_max_iter,
                              track, info)
            else:
                Z = _train_cholesky(X, X32, rhs, H, kernel, gamma, degree, coef0, C, jitter, packed, method, ctx,
                                    watch, tol, max_refine, info, client, tile)
    finally:
        products.release()
    info["times"] = watch.as_dict()
    Z = Z * col
    eta, nu = Z[:, :1], Z[:, 1:]
    b = (nu.sum(0)) / eta.sum()
    alpha = nu - eta * b[None, :]
    return alpha, b, info


class _Operator:
    """H = K + I/C applied in float64 (K Z from `products`), and ||H||_inf estimated."""

    def __init__(self, products, diag):
        self.products, self.diag = products, diag
        self._norm = None

    def __call__(self, Z):
        if self._norm is None and np.ndim(Z) == 2:      # |K 1| rides along with the first product
            KZ = self.products(np.column_stack([Z, np.ones(Z.shape[0])]))
            self._norm = float(np.abs(KZ[:, -1]).max()) + self.diag
            return KZ[:, :-1] + self.diag * Z
        return self.products(Z) + self.diag * Z

    @property
    def norm(self) -> float:
        if self._norm is None:        # |K 1| row sums: ||K||_inf for a non-negative kernel (rbf), a bound below else
            self._norm = float(np.abs(self.products(np.ones((self.products.N, 1)))).max()) + self.diag
        return self._norm


#: a refinement step that cuts the residual by less than this is a stall: PCG takes over
STALL = 0.5
#: where the backward error reaches this, the solve is as good as float64 makes it
FLOOR = 1e-13


def _backward(H: _Operator, R, Z, rhs) -> np.ndarray:
    """Per column: max |R| / (||H|| max |Z| + max |rhs|) -- the normwise backward error."""
    return np.abs(R).max(0) / (H.norm * np.abs(Z).max(0) + np.abs(rhs).max(0))


def _done(H, R, Z, rhs, tol) -> bool:
    rel = np.abs(R).max(0) / np.abs(rhs).max(0)
    return bool(np.all((rel <= tol) | (_backward(H, R, Z, rhs) <= FLOOR)))


def _train_cholesky(X, X32, rhs, H, kernel, gamma, degree, coef0, C, jitter, packed, method, ctx, watch, tol,
                    max_refine, info, client=None, tile=None):
    if client is not None:          # the float32 factor's tiles made and kept on a Dask cluster's GPUs
        from ..distributed.kernel import DistributedKernelFactor
        with watch("factor"):
            fac = DistributedKernelFactor(X, client=client, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                                          diag=1.0 / C + jitter, tile=tile, method=method, watch=watch)
    else:
        impl = implementation(choose(method, ctx, packed=packed))
        fac = impl.kernel_factor(X32, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                                diag=1.0 / C + jitter, packed=packed, ctx=ctx, watch=watch)
    try:
        try:
            NotPositiveDefiniteError.check(fac.pivots, X.shape[0])
        except NotPositiveDefiniteError as exc:
            fac.release()
            fac = FallbackFactor(X, exc, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, C=C)
        Z = fac.solve(rhs)
        history = []
        for _ in range(max_refine):                   # Algorithm 1 on every column
            with watch("residual"):                   # H Z in float64 (kernel_products)
                R = rhs - H(Z)
            history.append(float((np.abs(R).max(0) / np.abs(rhs).max(0)).max()))
            if _done(H, R, Z, rhs, tol) or (len(history) > 1 and history[-1] > STALL * history[-2]):
                break
            Z = Z + fac.solve(R)
        converged = _done(H, R, Z, rhs, tol)
        if not converged:                              # refinement stalled: PCG, the factor preconditioning
            Z, R, steps = _pcg(H, fac, rhs, Z, tol, max_iter=max(50, 4 * max_refine))
            info["pcg_iterations"] = steps
            history.append(float((np.abs(R).max(0) / np.abs(rhs).max(0)).max()))
            converged = _done(H, R, Z, rhs, tol)
        cond = _pivot_condition(fac.pivots)
    finally:
        fac.release()
    info.update(refinement=history, converged=converged, condition_estimate=cond)
    if not converged:
        _warn_unconverged(f"the refinement and preconditioned CG stopped at a relative residual of "
                          f"{history[-1]:.2g} (tol {tol:g})", C, cond)
    return Z


def _pivot_condition(pivots) -> float:
    """(max / min pivot)^2: a lower bound on H's condition number from its factor's diagonal."""
    d = np.abs(np.asarray(pivots, np.float64))
    return float((d.max() / d.min()) ** 2) if d.size and d.min() > 0 else np.inf


def _pcg(H, fac, rhs, Z, tol, max_iter):
    """CG on H Z = rhs from Z, every column at once (its own step lengths), preconditioned
    by the float32 factor's solves; (Z, residual, iterations)."""
    R = rhs - H(Z)
    P = fac.solve(R)
    rz = (R * P).sum(0)
    steps = 0
    for steps in range(1, max_iter + 1):
        Q = H(P)
        pq = (P * Q).sum(0)
        a = np.where(pq > 0, rz / np.where(pq > 0, pq, 1.0), 0.0)
        Z = Z + a * P
        R = R - a * Q
        if steps % 10 == 0:                           # the recurrence drifts: the true residual now and then
            R = rhs - H(Z)
        if _done(H, R, Z, rhs, tol):
            R = rhs - H(Z)
            if _done(H, R, Z, rhs, tol):
                break
        W = fac.solve(R)
        rz_new = (R * W).sum(0)
        P = W + np.where(rz != 0, rz_new / np.where(rz != 0, rz, 1.0), 0.0) * P
        rz = rz_new
    return Z, rhs - H(Z), steps


def _warn_unconverged(what: str, C: float, cond: float) -> None:
    warnings.warn(f"LS-SVM training did not converge: {what}; C = {C:g}, H = K + I/C has a condition number of "
                  f"about {cond:.2g}.  Lower C, add jitter, standardise X, or try solver='cholesky' with a larger "
                  f"max_refine; the model may be inaccurate.", ConvergenceWarning, stacklevel=6)


class FallbackFactor:
    """H's Cholesky factor in float64 on the host (LAPACK), where the float32 factor's pivot
    failed but H is positive definite in float64 (a poly kernel on unscaled data); refused,
    naming the remedies, where H in float64 would not fit in the host's memory."""

    def __init__(self, X, exc, *, kernel, gamma, degree, coef0, C):
        from ..errors import HostMemoryError
        from ..gl import memory

        N = X.shape[0]
        try:                            # H in float64, its factor and a temporary
            memory.require_host(3 * 8 * N * N, "H = K + I/C in float64")
        except HostMemoryError as err:
            raise _remedy(exc, C, f"the float64 fallback does not fit: {err}") from None
        H = kernel64(X, X, kernel, gamma, degree, coef0) + np.eye(N) / C
        try:
            self.c = sla.cho_factor(H, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            raise _remedy(exc, C, "H is not positive definite in float64 either") from None
        warnings.warn(f"the float32 factor of H = K + I/C failed at pivot {exc.pivot}; H was factored in float64 on "
                      "the host instead (slower; standardise X or raise jitter to stay on the GPU)", UserWarning,
                      stacklevel=5)
        self.pivots = np.diagonal(self.c[0]).copy()

    def solve(self, R):
        return sla.cho_solve(self.c, R, check_finite=False)

    def release(self):
        self.c = None


def _remedy(exc, C, why) -> NotPositiveDefiniteError:
    err = NotPositiveDefiniteError(exc.pivot, getattr(exc, "m", 0) or exc.pivot + 1)
    err.args = (f"{exc.args[0] if exc.args else exc}; {why}.  Standardise X (e.g. sklearn's StandardScaler), lower "
                f"C (now {C:g}) or add jitter (e.g. jitter=1e-6 * the kernel's scale)",)
    return err


def _train_cg(X, X32, rhs, H, kernel, gamma, degree, coef0, C, packed, ctx, tol, max_iter, track, info):
    V = Vectors(ctx)
    # PLSSVM's CG as the thesis ran it: the paper's kernel matrix texture and vectors
    h_tex = implementation("paper").kernels.kernel_texture(X32, kernel=kernel, gamma=gamma, degree=degree,
                                                           coef0=coef0, packed=packed, diag=1.0 / C, ctx=ctx)
    H64 = kernel64(X, X, kernel, gamma, degree, coef0) + np.eye(X.shape[0]) / C if track else None
    try:
        cols, infos = [], []
        for c in range(rhs.shape[1]):
            ref = np.linalg.solve(H64, rhs[:, c]) if track else None
            x, ci = cg(V, h_tex, rhs[:, c], packed=packed, tol=tol, max_iter=max_iter, S64=H64, reference=ref)
            cols.append(x)
            infos.append(ci)
    finally:
        ctx.pool.give(h_tex)
    Z = np.column_stack(cols)
    true = float((np.linalg.norm(rhs - H(Z), axis=0) / np.linalg.norm(rhs, axis=0)).max())
    info.update(cg=infos, converged=all(ci.converged for ci in infos) and true <= 10 * tol,
                iterations=[ci.iterations for ci in infos], true_residual=true)
    if not info["converged"]:
        _warn_unconverged(f"conjugate gradients (float32) stopped at a true relative residual of {true:.2g} "
                          f"(cg_tol {tol:g}, {max(info['iterations'])} iterations)", C,
                          H.norm / (1.0 / C) if C > 0 else np.inf)
    return Z
