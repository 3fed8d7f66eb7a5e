"""Float32 error model of the tests: every tolerance is a multiple of the unit
roundoff u = 2^-24 through Higham's gamma_n, and the SPD test matrices have a
chosen 2-norm condition number."""
import numpy as np

# float32 unit roundoff: every tolerance below is a multiple of it.
U32 = 2.0 ** -24


def gamma(n):
    """Higham's gamma_n = n u / (1 - n u) for float32."""
    return n * U32 / (1 - n * U32)


def spd(m, cond, rng):
    """A random symmetric positive definite matrix with 2-norm condition `cond`."""
    q, _ = np.linalg.qr(rng.standard_normal((m, m)))
    ev = np.logspace(0, -np.log10(cond), m) if m > 1 else np.ones(1)
    return (q * ev) @ q.T
