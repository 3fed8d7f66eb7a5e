"""Float32 error model of the tests: every tolerance is a multiple of the unit
roundoff u = 2^-24 through Higham's gamma_n, and the SPD test matrices have a
chosen 2-norm condition number."""
import numpy as np

# float32 unit roundoff: every tolerance below is a multiple of it.
U32 = 2.0 ** -24


def gamma(n):
    """Higham's gamma_n = n u / (1 - n u) for float32."""
    return n * U32 / (1 - n * U32)


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
    """L L^T = C + dC, |dC| <= gamma_{m+1} |L||L^T| (Higham, Thm 10.3), and the forward
    error within 4 m u kappa_2(C) of numpy's float64 factor (Sun 1991)."""
    m = C.shape[0]
    C32 = C.astype(np.float32).astype(np.float64)
    L64 = L.astype(np.float64)
    assert (np.triu(L, 1) == 0).all()
    resid = np.abs(np.tril(L64 @ L64.T - C32))
    bound = gamma(m + 1) * np.tril(np.abs(L64) @ np.abs(L64).T)
    assert (resid <= bound).all(), f"backward error {(resid / np.maximum(bound, 1e-300)).max():.3g} x the bound"
    ref = np.linalg.cholesky(C32)
    kappa = np.linalg.cond(C32)
    fwd = np.linalg.norm(L64 - ref) / np.linalg.norm(ref)
    assert fwd <= 4 * m * U32 * kappa + 4 * U32, f"forward error {fwd:.3g}, kappa {kappa:.3g}"


def residual_ok(T, X, B):
    """|B - T X| <= gamma_{m+1} |T||X| (Higham, Thm 8.5); returns (ok, worst ratio)."""
    T = T.astype(np.float32).astype(np.float64)
    B = B.astype(np.float32).astype(np.float64)
    X = X.astype(np.float64)
    r = np.abs(B - T @ X)
    bound = gamma(T.shape[0] + 1) * (np.abs(T) @ np.abs(X))
    return (r <= bound + 1e-300).all(), (r / np.maximum(bound, 1e-300)).max()
