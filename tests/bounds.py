"""Float32 error model of the tests: every tolerance is a multiple of the unit
roundoff u = 2^-24 through Higham's gamma_n, and the SPD test matrices have a
chosen 2-norm condition number."""
import numpy as np

# float32 unit roundoff: every tolerance below is a multiple of it.
U32 = 2.0 ** -24


def gamma(n):
    """Higham's gamma_n = n u / (1 - n u) for float32."""
    return n * U32 / (1 - n * U32)


#: GLSL (4.60, section 4.7.1) asks of a float division 2.5 ULP and of sqrt what 1 / inversesqrt
#: gives (2 + 2.5 ULP), where IEEE rounds both within u = ULP / 2: up to 9 u.  A factorization's
#: gamma_{n+1} (one sqrt or division per entry beside n multiply-adds) becomes gamma_{n+9}
#: (an NVIDIA sqrt was seen 1.2 ULP off: the paper's triad Cholesky of a 1 x 1 matrix)
GLSL_DIV_SQRT = 9


# float64 unit roundoff (the compute method's float64 factor)
U64 = 2.0 ** -53


def gamma64(n):
    """Higham's gamma_n for float64."""
    return n * U64 / (1 - n * U64)


def spd(m, cond, rng):
    """A random symmetric positive definite matrix with 2-norm condition `cond`."""
    q, _ = np.linalg.qr(rng.standard_normal((m, m)))
    ev = np.logspace(0, -np.log10(cond), m) if m > 1 else np.ones(1)
    return (q * ev) @ q.T


# -- the bounds of the papers' operations (Higham's theorems), shared by the suites


def adat_reference(A, d2):
    """tril(A diag(d2) A^T) from the float32-rounded input, and the bound's scale |A| |d2| |A|^T."""
    A64 = A.astype(np.float32).astype(np.float64)
    d64 = d2.astype(np.float32).astype(np.float64)
    return np.tril((A64 * d64) @ A64.T), np.tril((np.abs(A64) * np.abs(d64)) @ np.abs(A64).T)


def check_adat(C, A, d2):
    """|C - A D^2 A^T| <= gamma_{n+2} |A| |D^2| |A|^T elementwise (Higham, Thm 3.5)."""
    ref, scale = adat_reference(A, d2)
    bound = gamma(A.shape[1] + 2) * scale
    err = np.abs(C.astype(np.float64) - ref)
    assert (err <= bound).all(), f"max err {err.max():.3g}, worst ratio {(err / np.maximum(bound, 1e-300)).max():.3g}"


def check_factor(L, C):
    """L L^T = C + dC, |dC| <= gamma_{m+9} |L||L^T| (Higham, Thm 10.3, with GLSL's sqrt and
    division: GLSL_DIV_SQRT), and the forward
    error within 4 m u kappa_2(C) of numpy's float64 factor (Sun 1991)."""
    m = C.shape[0]
    C32 = C.astype(np.float32).astype(np.float64)
    L64 = L.astype(np.float64)
    assert (np.triu(L, 1) == 0).all()
    resid = np.abs(np.tril(L64 @ L64.T - C32))
    bound = gamma(m + GLSL_DIV_SQRT) * np.tril(np.abs(L64) @ np.abs(L64).T)
    assert (resid <= bound).all(), f"backward error {(resid / np.maximum(bound, 1e-300)).max():.3g} x the bound"
    ref = np.linalg.cholesky(C32)
    kappa = np.linalg.cond(C32)
    fwd = np.linalg.norm(L64 - ref) / np.linalg.norm(ref)
    assert fwd <= 4 * m * U32 * kappa + 4 * U32, f"forward error {fwd:.3g}, kappa {kappa:.3g}"


def residual_ok(T, X, B):
    """|B - T X| <= gamma_{m+9} |T||X| (Higham, Thm 8.5, with GLSL's division: GLSL_DIV_SQRT);
    returns (ok, worst ratio)."""
    T = T.astype(np.float32).astype(np.float64)
    B = B.astype(np.float32).astype(np.float64)
    X = X.astype(np.float64)
    r = np.abs(B - T @ X)
    bound = gamma(T.shape[0] + GLSL_DIV_SQRT) * (np.abs(T) @ np.abs(X))
    return (r <= bound + 1e-300).all(), (r / np.maximum(bound, 1e-300)).max()


# -- normwise bounds for the GPU correctness sweep (benchmarks/gpu_check.py) and tests


#: lambda of Higham and Mary's probabilistic bounds (SIAM J. Sci. Comput. 41, 2019, Thm 2.4):
#: a constant n u becomes lambda sqrt(n) u, failing with probability at most
#: 2 n exp(-lambda^2 (1 - u)^2 / 2) -- under 1e-6 for n up to 10^8 at lambda = 8
LAMBDA = 8.0


def qr_bound(m, n, u=U32):
    """Householder QR's normwise backward error, ||A - Q R||_F <= beta ||A||_F and
    ||Q^T Q - I||_F <= beta sqrt(n): Higham's Thm 19.4 has gamma~_{mn}, which at GPU sizes
    passes m n u > 1; its probabilistic form lambda sqrt(m n) u (Higham and Mary 2019,
    section 4) is used, the deterministic one where it is smaller -- m n counting also each
    reflector's sqrt and division at GLSL's precision (GLSL_DIV_SQRT units each)."""
    k = min(int(m), int(n))
    mn = max(int(m) * int(n), 1) + 2 * GLSL_DIV_SQRT * k       # a sqrt and a division per reflector (GLSL's)
    return min(mn * u / max(1 - mn * u, 1e-300), LAMBDA * np.sqrt(mn) * u)


def gamma_u(n, u):
    """gamma_n for unit roundoff u."""
    return n * u / (1 - n * u)


def kernel_reference(X, kernel, g, deg, c0):
    """(K in float64 from X rounded to float32, the first-order float32 bound of |dK|):
    the Gram entry g = x_i.x_j sums d products, |dg| <= E = gamma_{d+2} (|X||X|^T)_ij
    (Higham, Thm 3.5).  poly: b = gamma g + coef0, |db| <= gamma E + u|b|, b^deg by deg - 1
    products: |dK| <= deg |b|^(deg-1) (gamma E + u|b|) + deg u |b|^deg.  rbf: D = n_i + n_j - 2 g,
    |dD| <= gamma_{d+2}(n_i + n_j + 2 (|X||X|^T)_ij) + 3u(n_i + n_j + 2|g|), exp adds a few ulps
    of its argument: |dK| <= K (gamma |dD| + 4u (1 + gamma D))."""
    X = X.astype(np.float32).astype(np.float64)
    d = X.shape[1]
    G = X @ X.T
    E = gamma(d + 2) * (np.abs(X) @ np.abs(X).T)
    n = np.diag(G)
    if kernel == "linear":
        return G, E
    if kernel == "poly":
        b = g * G + c0
        return b ** deg, deg * np.abs(b) ** (deg - 1) * (g * E + U32 * np.abs(b)) + deg * U32 * np.abs(b) ** deg
    D = n[:, None] + n[None, :] - 2 * G
    En = gamma(d + 2) * np.diag(np.abs(X) @ np.abs(X).T)
    dD = En[:, None] + En[None, :] + 2 * E + 3 * U32 * (n[:, None] + n[None, :] + 2 * np.abs(G))
    K = np.exp(-g * np.maximum(D, 0))
    return K, K * (g * dD + 4 * U32 * (1 + g * np.maximum(D, 0)))
