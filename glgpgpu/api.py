"""The public operations: numpy in, numpy out.

Each function validates its input once (validate.py), chooses the paper's or
the blocked implementation (dispatch.py) and calls the operation of the same
name there.  Nothing else happens here: the algorithms live in paper/ and
blocked/, which have the same operation signatures.
"""
from __future__ import annotations

import numpy as np

from .dispatch import METHODS, choose, implementation
from .gl import Context, resolve
from .layouts.transfer import lower_of
from .paper.cholesky import VARIANTS
from . import validate as check


def _options(packed, method, ctx):
    check.flag(packed, "packed")
    check.choice(method, "method", METHODS)
    return resolve(check.context(ctx))


def _adat_inputs(A, d2):
    A = check.array(A, "A", 2)
    d2 = check.array(d2, "d2", (1, 2))
    if d2.ndim != 1:        # (1, n) or (n, 1) too: exact shapes, no silent ravel
        raise ValueError(f"d2 must be a vector (the diagonal of D^2, one entry per column of A), got shape {d2.shape}")
    if d2.shape[0] != A.shape[1]:
        raise ValueError(f"d2 has length {d2.shape[0]} but A has {A.shape[1]} columns (A is m x n, d2 has n entries)")
    return A, d2


def adat(A, d2, *, packed: bool = False, method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """C = A diag(d2) A^T on the GPU: float32 (m, m), lower triangle filled, upper zero.

    A: (m, n); d2: (n,), the diagonal of D^2.  packed=True runs the rectangular
    packed format (Fig. 4) and unpacks the result.  method="paper" is
    Algorithm 3 as published (one column of A per pass pair); "blocked" the
    register-blocked kernel; "auto" the fastest the GPU supports.
    """
    A, d2 = _adat_inputs(A, d2)
    ctx = _options(packed, method, ctx)
    impl = implementation(choose(method, ctx, packed=packed, packed_ok=True))
    with ctx.kernels.pool.scope():          # a failure midway leaves no texture behind
        C = impl.adat(A, d2, packed=packed, ctx=ctx)
    return check.finite_result(C, "A diag(d2) A^T")


def cholesky(C, *, packed: bool = False, variant: str = "outer", method: str = "auto",
             ctx: Context | None = None) -> np.ndarray:
    """Cholesky factor of a symmetric positive definite matrix, computed on the GPU.

    Like numpy.linalg.cholesky: reads the lower triangle of C and returns the
    float32 lower-triangular L (upper part zero) with L L^T = C.
    packed: run in the rectangular packed format (Figs. 6, 7).
    variant: "outer" (Algorithm 5), "triad" (outer product with index triads),
    "inner" (2006 paper, Algorithm 1).
    method: "paper" (the above), "blocked" (panels of 16 columns, one pass each,
    and register-blocked trailing updates), "auto" (blocked where the GPU
    supports it and neither packed nor another variant is asked for).
    Raises numpy.linalg.LinAlgError (NotPositiveDefiniteError) naming the first
    pivot that failed; ValueError for non-square or non-finite input.
    """
    check.choice(variant, "variant", VARIANTS)
    C = check.square(C, "C")
    ctx = _options(packed, method, ctx)
    impl = implementation(choose(method, ctx, packed=packed, variant=variant))
    with ctx.kernels.pool.scope():
        L = impl.cholesky(C, packed=packed, variant=variant, ctx=ctx)
    return check.finite_result(L, "the Cholesky factor")


def _solve(L_lower: np.ndarray, B, steps, packed: bool, ctx, method: str):
    m = L_lower.shape[0]
    B2, was_1d = check.rhs(B, m)
    ctx = _options(packed, method, ctx)
    check.nonsingular_triangle(L_lower, "L")
    impl = implementation(choose(method, ctx, packed=packed))
    with ctx.kernels.pool.scope():
        X = impl.solve(L_lower, B2, steps, packed=packed, ctx=ctx)
    check.finite_result(X, "the solution")
    return X[:, 0] if was_1d else X


def solve_triangular(L, B, *, lower: bool = True, trans: bool = False, packed: bool = False,
                     method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """Solve op(T) X = B on the GPU for triangular T, like scipy.linalg.solve_triangular.

    lower=True reads the lower triangle of L, lower=False the upper; trans=True
    solves with the transpose.  B is (m,) or (m, nrhs); returns float32 of B's shape.
    """
    T = check.square(L, "L")
    Ls = lower_of(T, check.flag(lower, "lower"))
    check.flag(trans, "trans")
    # Stored as a lower triangle Ls: which direction does op(T) need?
    backward = (trans if lower else not trans)
    return _solve(Ls, B, [backward], packed, ctx, method)


def cho_solve(L, B, *, packed: bool = False, method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """Solve (L L^T) X = B given the Cholesky factor L, by forward then backward
    substitution on the GPU (method: "paper", "blocked" or "auto", as cholesky)."""
    Ls = check.square(L, "L")
    return _solve(np.tril(Ls), B, [False, True], packed, ctx, method)


def kernel_matrix(X, *, kernel: str = "rbf", gamma: float | None = None, degree: int = 3, coef0: float = 0.0,
                  packed: bool = False, method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """K(i, j) = k(x_i, x_j) for the rows x_i of X (N x d), lower triangle (float32,
    upper part zero), by rasterization: the Gram matrix by Algorithm 3, then one pass
    of the kernel function over the same triangle(s).  kernel: "linear" x.y,
    "poly" (gamma x.y + coef0)^degree, "rbf" exp(-gamma |x - y|^2); gamma defaults
    to 1 / d, as scikit-learn's "auto".  Only the paper's kernels so far (method
    "paper" or "auto"); the blocked epilogue is issue 15's next step."""
    X = check.array(X, "X", 2)
    kernel = check.choice(kernel, "kernel", ("linear", "poly", "rbf"))
    gamma = 1.0 / X.shape[1] if gamma is None else check.real(gamma, "gamma", 0.0, np.inf)
    degree = check.integer(degree, "degree", 1, 64)
    coef0 = check.real(coef0, "coef0", -np.inf, np.inf)
    ctx = _options(packed, method, ctx)
    if method == "blocked":
        raise ValueError("kernel_matrix has no blocked implementation yet; use method='paper'")
    from .paper import kernel_matrix as paper_kernel_matrix

    with ctx.kernels.pool.scope():
        K = paper_kernel_matrix(X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed, ctx=ctx)
    return check.finite_result(K, "the kernel matrix")
