"""The public operations: numpy in, numpy out.

Each function validates its input once (validate.py), chooses the paper's or
the blocked implementation (dispatch.py) and calls the operation of the same
name there.  Nothing else happens here: the algorithms live in paper/ and
blocked/, which have the same operation signatures.
"""
from __future__ import annotations

import numpy as np

from .dispatch import CHOLESKY_VARIANTS as VARIANTS, METHODS, choose, float64_kernels, implementation
from .gl import Context, memory, resolve
from .layouts.scaling import exponent, scaled, unscaled
from . import validate as check


#: HostMemoryError before any work where a call's host arrays will not fit (gl/memory.py)
require_host = memory.require_host


def _options(packed, method, ctx):
    check.flag(packed, "packed")
    check.choice(method, "method", METHODS)
    return resolve(check.context(ctx))


def _adat_inputs(A, d2, magnitude=None):
    A = check.array(A, "A", 2, magnitude=magnitude)
    return A, check.column_weights(d2, A.shape[1], magnitude)


def adat(A, d2, *, packed: bool = False, method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """C = A diag(d2) A^T on the GPU: float32 (m, m), lower triangle filled, upper zero.

    A: (m, n); d2: (n,), the diagonal of D^2.  packed=True runs the rectangular
    packed format (Fig. 4) and unpacks the result.  method="paper" is
    Algorithm 3 as published (one column of A per pass pair); "blocked" the
    register-blocked kernel; "auto" the fastest the GPU supports.
    """
    shape = np.shape(A)
    if len(shape) == 2:             # the float32 m x m result, its scaled copy, the finiteness pass's mask
        memory.require_host(5 * shape[0] ** 2 + 4 * shape[0] * shape[1], f"A diag(d2) A^T of a {shape} A")
    top = []                                # max |A|, max |d2| from their finiteness passes: a bound on C
    A, d2 = _adat_inputs(A, d2, top)
    ctx = _options(packed, method, ctx)
    impl = implementation(choose(method, ctx, packed=packed, packed_ok=True))
    # data far from 1 in size: exact powers of two first, so no product under- or overflows
    ea, ed = exponent(top[0]), exponent(top[1])
    with ctx.pool.scope():          # a failure midway leaves no texture behind
        C = impl.adat(scaled(A, ea), scaled(d2, ed), packed=packed, ctx=ctx)
    C = unscaled(C, 2 * ea + ed)
    if not (ea or ed) and check.sums_of_products_bounded(top[0], top[1], A.shape[1]):
        return C                            # provably finite: no pass over the m x m result
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
    shape = np.shape(C)
    if len(shape) == 2:     # C's float32 copy and lower triangle, the factor, its unscaled copy, the mask
        memory.require_host(13 * shape[0] * shape[-1], f"the Cholesky factorization of a {shape} matrix")
    top = []
    C = check.square(C, "C", magnitude=top)
    check.data_in_lower(C, "C", "glgpgpu.cholesky (numpy's convention)",
                        "pass the symmetric matrix (or its lower triangle), e.g. C + np.triu(C, 1).T")
    ctx = _options(packed, method, ctx)
    impl = implementation(choose(method, ctx, packed=packed, variant=variant))
    k = _equilibration(C)
    if k is not None:                  # D C D with D = 2^k on the diagonal: L = D^-1 L', exact
        Cs = np.ldexp(np.ldexp(np.tril(C), k[:, None]), k[None, :]).astype(np.float32)
        with ctx.pool.scope():
            L = impl.cholesky(Cs, packed=packed, variant=variant, ctx=ctx)
        return np.ldexp(L, -k[:, None]).astype(np.float32)
    e = exponent(top[0] if top else 0.0, even=True)      # C 4^-k: L 2^-k, exact
    if e:                                                  # the triangle read decides, not the other one
        e = exponent(float(np.abs(np.tril(C)).max()), even=True)
    with ctx.pool.scope():
        L = impl.cholesky(scaled(C, e), packed=packed, variant=variant, ctx=ctx)
    # no pass over L for inf or NaN: an entry of row i that is not finite makes pivot i
    # (c_ii less the squares of row i) -inf or NaN, which the methods' pivot check refuses;
    # the scalings back keep |l_ij| <= sqrt(c_ii) in range
    return unscaled(L, e // 2)


#: a diagonal whose entries span more than this ratio is equilibrated before the float32 factor
EQUILIBRATE_RANGE = 2.0 ** 40


def _equilibration(C: np.ndarray):
    """The powers k (D = diag(2^k)) that bring C's diagonal near 1 -- D C D's entries then lie
    within [-1, 1] where C is SPD (|c_ij| <= sqrt(c_ii c_jj)) -- where the diagonal spans more
    than EQUILIBRATE_RANGE (one common power of two would flush its smallest entries in
    float32, refusing a matrix that is SPD: diag(1e-30, 1, 1e30)); None otherwise."""
    d = np.diagonal(C).astype(np.float64)
    pos = d[d > 0]
    if pos.size < 2 or pos.max() <= EQUILIBRATE_RANGE * pos.min():
        return None
    return -np.round(0.5 * np.log2(np.where(d > 0, d, 1.0))).astype(np.int64)


def _solve(L_lower: np.ndarray, B, steps, packed: bool, ctx, method: str, lmax: float = 0.0):
    m = L_lower.shape[0]
    top = []
    B2, was_1d = check.rhs(B, m, magnitude=top)
    ctx = _options(packed, method, ctx)
    impl = implementation(choose(method, ctx, packed=packed))
    check.nonsingular_triangle(L_lower, "L")           # after the finiteness checks, if both fail
    el, eb = exponent(lmax), exponent(top[0] if top else 0.0)   # exact powers of two, undone below
    if el:                                                  # the triangle read decides, not the other one
        el = exponent(float(np.abs(np.tril(L_lower)).max()))
    with ctx.pool.scope():
        X = impl.solve(scaled(L_lower, el), scaled(B2, eb), steps, packed=packed, ctx=ctx)
    X = unscaled(X, eb - el * len(steps))
    check.finite_result(X, "the solution")
    return X[:, 0] if was_1d else X


def solve_triangular(L, B, *, lower: bool = True, trans: bool = False, packed: bool = False,
                     method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """Solve op(T) X = B on the GPU for triangular T, like scipy.linalg.solve_triangular.

    lower=True reads the lower triangle of L, lower=False the upper; trans=True
    solves with the transpose.  B is (m,) or (m, nrhs); returns float32 of B's shape.
    """
    ltop = []
    T = check.square(L, "L", magnitude=ltop)
    # the solves read only the lower triangle of what they get: T itself, or the
    # view T.T for an upper T -- no m x m np.tril copy
    Ls = T if check.flag(lower, "lower") else T.T
    check.data_in_lower(T, "L", f"solve_triangular(lower={lower})",
                        "pass lower=False for an upper triangular matrix (scipy's default)" if lower else
                        "pass lower=True for a lower triangular matrix", lower=lower)
    check.flag(trans, "trans")
    # Stored as a lower triangle Ls: which direction does op(T) need?
    backward = (trans if lower else not trans)
    return _solve(Ls, B, [backward], packed, ctx, method, ltop[0] if ltop else 0.0)


def cho_solve(L, B, *, packed: bool = False, method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """Solve (L L^T) X = B given the Cholesky factor L, by forward then backward
    substitution on the GPU (method: "paper", "blocked", "compute" or "auto", as cholesky)."""
    ltop = []
    Ls = check.square(L, "L", magnitude=ltop)
    check.data_in_lower(Ls, "L", "cho_solve (L L^T with L lower, as glgpgpu.cholesky returns)",
                        "for scipy's upper factor U (U^T U) pass U.T, or use glgpgpu.linalg.cho_solve((U, False), B)")
    return _solve(Ls, B, [False, True], packed, ctx, method, ltop[0] if ltop else 0.0)   # its lower triangle is read


def kernel_matrix(X, *, kernel: str = "rbf", gamma: float | None = None, degree: int = 3, coef0: float = 0.0,
                  packed: bool = False, method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """K(i, j) = k(x_i, x_j) for the rows x_i of X (N x d), lower triangle (float32,
    upper part zero), by rasterization: the Gram matrix by Algorithm 3, then one pass
    of the kernel function over the same triangle(s).  kernel: "linear" x.y,
    "poly" (gamma x.y + coef0)^degree, "rbf" exp(-gamma |x - y|^2); gamma defaults
    to 1 / d, as scikit-learn's "auto".  method="blocked": the register-blocked
    Gram matrix with the kernel function as an epilogue in the same pass."""
    X, kernel, gamma, degree, coef0, exact = check.kernel_inputs(X, kernel, gamma, degree, coef0)
    if exact is not None:
        return exact
    ctx = _options(packed, method, ctx)
    impl = implementation(choose(method, ctx, packed=packed, packed_ok=True))
    with ctx.pool.scope():
        K = impl.kernel_matrix(X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed, ctx=ctx)
    return check.finite_result(K, "the kernel matrix")


QR_MODES = ("economic", "r", "raw", "full")


def _qr_impl(method, ctx):
    check.choice(method, "method", METHODS)
    ctx = resolve(check.context(ctx))
    return ctx, implementation(choose(method, ctx))


def qr(A, *, mode: str = "economic", method: str = "auto", ctx: Context | None = None):
    """Householder QR of A (m, n) on the GPU, float32, any shape.

    mode="economic": (Q (m, k), R (k, n)) with k = min(m, n), A = Q R;
    "full": (Q (m, m), R (m, n)); "r": R (k, n) only (numpy's mode="r");
    "raw": (F, tau), LAPACK geqrf's layout as scipy.linalg.qr(mode="raw")'s
    first item: R on and above the diagonal of F (m, n), the reflectors' v below
    it (v(k) = 1 implied), Q = H_0 ... H_{k-1}, H_j = I - tau_j v_j v_j^T.
    R's diagonal may be negative (LAPACK's sign convention); a zero on it marks
    a rank-deficient A.  method="paper": one column per step, four draws
    (paper/qr.py); "blocked": Yeralan et al.'s tile algorithm; "auto": the fastest.
    """
    top = []
    A = check.array(A, "A", 2, magnitude=top)
    mode = check.choice(mode, "mode", QR_MODES)
    ctx, impl = _qr_impl(method, ctx)
    m, n = A.shape
    with ctx.pool.scope():
        F, tau = impl.qr_raw(A, ctx=ctx, amax=float(np.float32(top[0])))     # max |A| once A is float32
        check.finite_result(F, "the QR factorization")
        if mode == "raw":
            return F, tau
        k = min(m, n)
        R = np.triu(F if mode == "full" else F[:k])
        if mode == "r":
            return R
        eye = np.eye(m, m if mode == "full" else k, dtype=np.float32)
        Q = impl.apply_q(F, tau, eye, ctx=ctx)
    return Q, R


def apply_q(F, tau, C, *, trans: bool = False, method: str = "auto", ctx: Context | None = None) -> np.ndarray:
    """Q C (or Q^T C with trans=True) for Q held as qr(..., mode="raw")'s (F, tau),
    on the GPU without forming Q.  C: (m,) or (m, p); returns float32 of C's shape."""
    F = check.array(F, "F", 2)
    tau = check.array(tau, "tau", 1)
    m, n = F.shape
    if tau.shape[0] > min(m, n):
        raise ValueError(f"tau has {tau.shape[0]} entries but F ({m} x {n}) holds at most {min(m, n)} reflectors")
    C2, was_1d = check.rhs(C, m, "C")
    check.flag(trans, "trans")
    ctx, impl = _qr_impl(method, ctx)
    with ctx.pool.scope():
        X = impl.apply_q(F, tau, C2, trans=trans, ctx=ctx)
    check.finite_result(X, "Q C")
    return X[:, 0] if was_1d else X


def qr_batched(mats, *, method: str = "auto", ctx: Context | None = None) -> list:
    """[(F, tau), ...]: many matrices of any shapes factored by the same draws, side
    by side in one texture atlas (many fronts per launch, as Yeralan et al. (2015) do; blocked: the
    bucket scheduler's launches of every front merged).  Each result equals
    qr(A_i, mode="raw", method=method) bit for bit."""
    if not isinstance(mats, (list, tuple)) or not mats:
        raise ValueError("qr_batched needs a non-empty list of 2-D arrays")
    mats = [check.array(a, f"mats[{i}]", 2) for i, a in enumerate(mats)]
    ctx, impl = _qr_impl(method, ctx)
    with ctx.pool.scope():
        out = impl.qr_batched(mats, ctx=ctx)
    for i, (F, _) in enumerate(out):
        check.finite_result(F, f"the QR factorization of mats[{i}]")
    return out


# -- float64: the factorizations glgpgpu.linalg runs for float64 input ------------------------

def _float64(ctx, what: str):
    """(ctx, the float64 kernels or None): None where the driver has no compute shaders,
    after a warning that names where the factorization runs instead (the host's LAPACK)."""
    ctx = resolve(check.context(ctx))
    ops = float64_kernels(ctx)
    if ops is None:
        import warnings
        warnings.warn(f"{what} in float64 needs OpenGL 4.3 compute shaders (double precision kernels); "
                      f"{ctx.caps.renderer} offers {ctx.caps.version}: computed by the host's LAPACK instead",
                      RuntimeWarning, stacklevel=3)
    return ctx, ops


def cholesky64(C, *, lower: bool = True, ctx: Context | None = None) -> np.ndarray:
    """The float64 Cholesky factor of C on the GPU (the Cholesky kernels in double): lower
    L with L L^T = C from C's lower triangle, or (lower=False) upper U with U^T U = C from
    its upper triangle; the other part zero.  C must be finite where it is read (the caller
    checks).  numpy.linalg.LinAlgError (NotPositiveDefiniteError) naming the first failed pivot."""
    C = np.asarray(C, np.float64)
    if C.ndim != 2 or C.shape[0] != C.shape[1]:
        raise ValueError(f"C must be a square matrix, got shape {C.shape}")
    ctx, ops = _float64(ctx, "the Cholesky factorization")
    if ops is None:
        import scipy.linalg
        return scipy.linalg.cholesky(C, lower=lower, check_finite=False)
    return ops.cholesky(C, lower=lower, amax=check.finite_magnitude(C), ctx=ctx)


def gram_cholesky64(A, d, *, ctx: Context | None = None) -> np.ndarray:
    """Lower L with L L^T = A diag(d) A^T in float64, A (m, k) and d (k,) float64: the
    product and its factor on the GPU in double (the m x m matrix never crosses the bus),
    or by the host's BLAS and LAPACK where the driver has no compute shaders.  The caller
    scales A so that the product neither over- nor underflows.  numpy.linalg.LinAlgError
    (NotPositiveDefiniteError) where a pivot fails."""
    A = np.asarray(A, np.float64)
    d = np.asarray(d, np.float64)
    if A.ndim != 2 or d.shape != (A.shape[1],):
        raise ValueError(f"A must be 2-D and d hold one weight a column, got shapes {A.shape} and {d.shape}")
    ctx, ops = _float64(ctx, "the Cholesky factorization of A D A^T")
    if ops is None:
        import scipy.linalg
        return scipy.linalg.cholesky((A * d) @ A.T, lower=True, check_finite=False)
    return ops.gram_cholesky(A, d, ctx=ctx)


def qr_raw64(A, *, rhs=None, trans: bool = False, ctx: Context | None = None):
    """(F, tau) of A (m, n) in LAPACK geqrf's layout, float64: the Householder QR kernels
    in double on the GPU (numpy float64 in and out).  rhs (m, p): also Q rhs (Q^T rhs with
    trans=True), applied while the reflectors are on the GPU -- (F, tau, op(Q) rhs)."""
    A = np.asarray(A, np.float64)
    if A.ndim != 2:
        raise ValueError(f"A must be a 2-D array, got shape {A.shape}")
    ctx, ops = _float64(ctx, "the QR factorization")
    if ops is None:
        import scipy.linalg
        (F, tau), _ = scipy.linalg.qr(A, mode="raw", check_finite=False)
        F = np.ascontiguousarray(F)
        return (F, tau) if rhs is None else (F, tau, apply_q64(F, tau, rhs, trans=trans, ctx=ctx))
    return ops.qr_raw(A, rhs=rhs, trans=trans, ctx=ctx)


def apply_q64(F, tau, C, *, trans: bool = False, ctx: Context | None = None) -> np.ndarray:
    """Q C or Q^T C (float64, C (m, p)) for qr_raw64's (F, tau), on the GPU."""
    F, tau = np.asarray(F, np.float64), np.asarray(tau, np.float64)
    C = np.asarray(C, np.float64)
    ctx, ops = _float64(ctx, "applying Q")
    if ops is None:
        import scipy.linalg.lapack as lapack
        out, _, info = lapack.dormqr("L", "T" if trans else "N", F, tau, C, max(1, C.shape[1]) * 64)
        return out
    return ops.apply_q(F, tau, C, trans=trans, ctx=ctx)
