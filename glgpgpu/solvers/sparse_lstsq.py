"""The user's calls for sparse matrices: `sparse_qr` (R, the column order, the rank,
Q^T b) and `sparse_lstsq` (min ||b - A x|| to float64 accuracy).

sparse_lstsq factors [A b] in float32 by the multifrontal QR (sparse_qr.py), takes
x0 = R^-1 (Q^T b), then refines in float64 by LSMR on A P R^-1 (R, the float32
factor, as a right preconditioner: A P R^-1 is nearly orthogonal, so a few
iterations reach float64's accuracy) -- never forming A^T A.  Columns whose |R_kk|
falls at or below the tolerance (Heath's rule) are declared dependent: they are
dropped, the rest re-factored, and x is the basic solution (zero on them).
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import lsmr

from ..dispatch import METHODS, choose, implementation
from ..gl import resolve
from .. import validate as check
from ..parallel import blas_threads
from .sparse_fronts import HostQR
from .sparse_qr import INTENSITY_THRESHOLD, SparseQRFactor, default_tol, factorize_rank, preconditioned

SPARSE_METHODS = (*METHODS, "host")


def _sparse(A, name="A") -> sp.csc_matrix:
    """A as CSC float64: any scipy.sparse matrix or array; a dense 2-D array is
    accepted (converted).  Non-finite entries, empty shapes, complex values refused."""
    if sp.issparse(A):
        if A.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got {A.ndim}-D")
        if np.dtype(A.dtype).kind == "c":             # any format: lil and dok hold their values elsewhere
            raise ValueError(f"{name} is complex; sparse QR here is real (float32 on the GPU)")
        if np.dtype(A.dtype).kind not in "biuf":
            raise ValueError(f"{name} must hold real numbers, got dtype {A.dtype}")
        M = sp.csc_matrix(A, dtype=np.float64)
    else:
        M = sp.csc_matrix(check.array(A, name, 2, dtype=np.float64, any_range=True))
    M.sum_duplicates()
    if not np.all(np.isfinite(M.data)):
        bad = int(np.count_nonzero(~np.isfinite(M.data)))
        raise ValueError(f"{name} has {bad} non-finite entries (NaN or inf); sparse QR needs finite values")
    m, n = M.shape
    if m == 0 or n == 0:
        raise ValueError(f"{name} is {m} x {n}: it needs at least one row and one column")
    return M


def _pow2(A: sp.csc_matrix) -> int:
    """The power of two e with max |A| 2^-e in [0.5, 1) where A's size is far from 1 (0 else):
    the float32 factorization then neither under- nor overflows, and scaling by 2^-e is exact."""
    amax = float(np.abs(A.data).max(initial=0.0))
    return int(np.frexp(amax)[1]) if amax > 0 and not 2.0 ** -30 <= amax <= 2.0 ** 30 else 0


def sparse_qr(A, b=None, *, ordering="colamd", tol=None, method: str = "auto", memory_budget=None,
              keep_h: bool = False, ctx=None) -> SparseQRFactor:
    """Multifrontal QR of a sparse A (m x n) on the GPU: A[:, E] = Q R, float32.

    Returns a SparseQRFactor: `R` (rank x n, CSC, upper trapezoidal: the dependent
    columns last, as SuiteSparseQR's; `R11` its triangle), `E` (the column order), `rank` and
    `dead` (columns with |R_kk| <= tol, Heath's rule; default tol =
    20 (m + n) eps32 max_j ||A_j||; tol < 0 keeps every column, as the paper's GPU
    path), `qtb` ((Q^T b)[:rank] when b (m,) or (m, k) is given: b is factored as the
    last columns of [A b], as SuiteSparseQR does) and `info` (ordering, fronts,
    rounds, flops, intensity, the path taken, phase times).
    ordering: "colamd" (default), "natural" or a permutation.  method: "auto"
    (the host's LAPACK below Fig. 15's intensity threshold of 10, the GPU above),
    "blocked", "paper", "compute" or "host".  memory_budget: bytes the fronts of one
    stage may take on the GPU (section 3.4); R does not depend on it.
    keep_h: keep Q as the fronts' Householder reflectors (read back to the host; the
    fronts then go by the host assembly): `fac.qt(y)`, `fac.q(z)` with
    A[:, E[:rank]] = Q [R; 0] -- the paper's GPU path keeps no Q.
    """
    A = _sparse(A)
    m, n = A.shape
    keep_h = check.flag(keep_h, "keep_h")
    if keep_h and b is not None:
        raise ValueError("keep_h with b: factor A alone with keep_h=True and take fac.qt(b)")
    B = None
    if b is not None:
        B = check.array(b, "b", (1, 2), dtype=np.float64)
        if B.shape[0] != m:
            raise ValueError(f"b has {B.shape[0]} rows but A has {m}")
        B = B.reshape(m, -1)
    e = _pow2(A)                            # A 2^-e is factored: R scales back by 2^e, Q^T b does not change
    A = A * 2.0 ** -e if e else A
    tol, memory_budget, engine = _options(A, tol if tol is None or tol < 0 else tol * 2.0 ** -e, memory_budget,
                                          method, ctx)
    fac = factorize_rank(A, B, ordering=ordering, tol=tol, engine=engine, memory_budget=memory_budget,
                         keep_h=keep_h)
    if e:
        top = float(np.abs(fac.R.data).max(initial=0.0)) * 2.0 ** e
        low = float(np.abs(fac.R.data[fac.R.data != 0]).min(initial=np.inf)) * 2.0 ** e
        if top > np.finfo(np.float32).max or (np.isfinite(low) and low < np.finfo(np.float32).tiny):
            raise ValueError(f"R's entries (up to {top:.3g}, down to {low:.3g}) lie outside float32's range, in "
                             "which sparse_qr returns R: scale A by a power of two first (R scales with it), or "
                             "use sparse_lstsq, whose solution is float64")
        fac.R = (fac.R.astype(np.float64) * 2.0 ** e).astype(np.float32).tocsc()
        fac.info["scaled_by"] = 2.0 ** -e
    if b is not None and np.ndim(b) == 1:
        fac.qtb = fac.qtb[:, 0]
    return fac


def _options(A, tol, memory_budget, method, ctx):
    """(tol, memory_budget, engine): the checked options, and engine(analysis) ->
    (implementation, ctx, path), decided on the first analysis: "auto" sends an
    intensity below Fig. 15's threshold to the host (Yeralan et al. 2015, section 4)."""
    tol = default_tol(A) if tol is None else check.real(tol, "tol", -np.inf, np.inf)
    if memory_budget is not None:
        memory_budget = check.integer(memory_budget, "memory_budget", lo=1)
    method = check.choice(method, "method", SPARSE_METHODS)
    chosen = []

    def engine(an):
        if not chosen:
            if method == "host":
                chosen.append((HostQR(), None, "host (method='host')"))
            elif method == "auto" and an.intensity < INTENSITY_THRESHOLD:
                chosen.append((HostQR(), None, f"host (auto: intensity {an.intensity:.3g} < "
                                               f"{INTENSITY_THRESHOLD:g}, Fig. 15)"))
            else:
                c = resolve(check.context(ctx))
                name = choose(method, c)
                chosen.append((implementation(name), c, f"GPU, {name}" + (" (auto)" if method == "auto" else "")))
        return chosen[0]
    return tol, memory_budget, engine


@dataclass
class SparseLstsqInfo:
    status: str = "iteration limit"          # converged | iteration limit
    rank: int = 0
    dead: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))   # columns of A set to zero
    iterations: int = 0                     # LSMR iterations in float64
    optimality: float = np.inf              # ||A^T r|| / (||A||_F ||r||)
    floor: float = 0.0                      # what float64 can certify: u64 (1 + ||A||_F ||x|| / ||r||)
    refactorizations: int = 0
    factor: SparseQRFactor | None = None
    times: dict = field(default_factory=dict)

    @property
    def converged(self) -> bool:
        return self.status == "converged"


def _optimality(A, r) -> float:
    """||A^T r|| / (||A||_F ||r||); 0 when r = 0 or A = 0 (every x is then optimal)."""
    scale = np.linalg.norm(r) * sp.linalg.norm(A)
    return 0.0 if scale == 0 else float(np.linalg.norm(A.T @ r) / scale)


def sparse_lstsq(A, b, *, atol: float = 1e-12, tol=None, max_iter: int = 100, ordering="colamd",
                 method: str = "auto", memory_budget=None, solution: str = "basic", ctx=None):
    """min_x ||b - A x||_2 for a sparse A (m x n: tall, square, wide or rank deficient), float64.

    Factors [A b] by sparse_qr (float32, GPU or host per `method`), then LSMR in
    float64 preconditioned by R until ||A^T r|| <= atol ||A||_F ||r|| (or r = 0), or
    below what float64 can certify when x is large (info.floor: u64 (1 + ||A|| ||x|| /
    ||r||), the rounding of r itself).
    solution="basic" (default): columns found dependent (|R_kk| <= tol, and pivots a
    wide or rank-deficient front has no row for) are dropped and x is the basic
    solution, zero there (as SuiteSparseQR's default).  "minimum-norm": the x of least
    norm among the minimisers, by LSMR on A itself from x = 0 (scipy's lsmr converges to
    it), started from nothing the float32 factor knows; it warns where it does not settle.
    b: (m,), (m, 1) -- x (n,), as lsqr and lsmr take it -- or (m, k): x (n, k), one
    factorization for all columns.  Returns (x, SparseLstsqInfo) (info of the last column).
    """
    A = _sparse(A)
    m, n = A.shape
    if np.iscomplexobj(b.data if sp.issparse(b) else np.asarray(b)):
        raise ValueError("b is complex; the sparse QR here is real (float32 on the GPU): solve the real and "
                         "imaginary parts separately (A real), or use scipy.sparse.linalg.lsmr")
    B = np.asarray(b, dtype=np.float64) if not sp.issparse(b) else b.toarray().astype(np.float64)
    if B.ndim == 0 and m == 1:
        B = B.reshape(1)
    B = check.array(B, "b", (1, 2), dtype=np.float64, any_range=True)
    if B.shape[0] != m:
        raise ValueError(f"b has {B.shape[0]} entries but A has {m} rows")
    cols_out = B.ndim == 2 and B.shape[1] != 1
    B = B.reshape(m, -1)
    atol = check.real(atol, "atol", 0.0, 1.0, open_lo=False)
    max_iter = check.integer(max_iter, "max_iter", lo=1)
    solution = check.choice(solution, "solution", ("basic", "minimum-norm"))
    if solution == "minimum-norm":
        return _minimum_norm(A, B, atol, max_iter, cols_out)
    # A 2^-ea x' = b 2^-eb with x = x' 2^(eb - ea): exact, and float32 holds both
    ea, eb = _pow2(A), _pow2(sp.csc_matrix(B))
    A, B = (A * 2.0 ** -ea if ea else A), (B * 2.0 ** -eb if eb else B)
    tol, memory_budget, engine = _options(A, tol if tol is None or tol < 0 else tol * 2.0 ** -ea, memory_budget,
                                          method, ctx)
    info = SparseLstsqInfo()
    t0 = time.perf_counter()
    fac = factorize_rank(A, B, ordering=ordering, tol=tol, engine=engine, memory_budget=memory_budget)
    info.factor = fac
    info.refactorizations = fac.info["passes"] - 1
    info.times["factor"] = time.perf_counter() - t0
    cols = fac.perm[:fac.rank]                  # A's independent columns, in R's order
    X = np.zeros((n, B.shape[1]))
    info.rank, info.dead = fac.rank, fac.dead
    if cols.size == 0:
        info.status, info.optimality = "converged", max(_optimality(A, B[:, j]) for j in range(B.shape[1]))
        return (X if cols_out else X[:, 0]), info
    t1 = time.perf_counter()
    AP = A[:, cols].tocsc()
    op, solve = preconditioned(AP, fac.R11)
    statuses = []
    # LSMR's vector operations on one BLAS thread: a long dot product on several, right after
    # the factor's LAPACK calls, waited milliseconds for the pool (benchmarks/RESULTS.md, round 35)
    with blas_threads(1):
        for j in range(B.shape[1]):
            b, z = B[:, j], solve(fac.qtb[:, j])
            info.status = "iteration limit"
            for _ in range(4):
                y, _istop, itn = lsmr(op, b - AP @ z, atol=atol * 0.1, btol=atol * 0.1, maxiter=max_iter)[:3]
                info.iterations += int(itn)
                z = z + solve(y)
                r = b - AP @ z
                info.optimality = _optimality(AP, r)
                if info.optimality <= atol or np.linalg.norm(r) <= atol * np.linalg.norm(b):
                    info.status = "converged"
                    break
            if not info.converged:
                # r = b - A x itself carries rounding of u64 ||A|| ||x||: below that the
                # optimality cannot be certified (an ill-conditioned basis with a large x)
                nr = np.linalg.norm(b - AP @ z)
                info.floor = float(np.finfo(float).eps * (1 + sp.linalg.norm(AP) * np.linalg.norm(z) / max(nr, 1e-300)))
                if info.optimality <= info.floor:
                    info.status = "converged"
            statuses.append(info.status)
            X[cols, j] = z
    info.status = "converged" if all(st == "converged" for st in statuses) else "iteration limit"
    info.times["refine"] = time.perf_counter() - t1
    if ea or eb:                 # the optimality ratio is scale-free: the scaled problem's stands
        with np.errstate(over="ignore"):
            X = np.ldexp(X, eb - ea)
        if not np.isfinite(X).all():
            raise OverflowError(f"the least-squares solution's entries pass float64's range (the scaled "
                                f"solution times 2^{eb - ea}): scale A up or b down")
    if not info.converged:
        warnings.warn(f"sparse_lstsq: ||A^T r|| / (||A|| ||r||) = {info.optimality:.3g} after {info.iterations} "
                      f"LSMR iterations, above atol={atol:g}", RuntimeWarning, stacklevel=2)
    return (X if cols_out else X[:, 0]), info


def _minimum_norm(A: sp.csc_matrix, B: np.ndarray, atol: float, max_iter: int, cols_out: bool):
    """The least-norm minimiser of each column by scipy's LSMR on A from x = 0 (its iterates
    stay in the row space of A, so it converges to that one), float64."""
    m, n = A.shape
    info = SparseLstsqInfo()
    X = np.zeros((n, B.shape[1]))
    t0 = time.perf_counter()
    done = True
    for j in range(B.shape[1]):
        x, istop, itn = lsmr(A, B[:, j], atol=atol * 0.1, btol=atol * 0.1, maxiter=max(max_iter, 20 * min(m, n)))[:3]
        X[:, j] = x
        info.iterations += int(itn)
        info.optimality = _optimality(A, B[:, j] - A @ x)
        done = done and (istop in (1, 2, 4, 5) or info.optimality <= atol)
    info.status = "converged" if done else "iteration limit"
    info.rank = -1                               # not decided: no factorization
    info.times["lsmr"] = time.perf_counter() - t0
    if not done:
        warnings.warn(f"sparse_lstsq(solution='minimum-norm'): LSMR did not settle in {info.iterations} "
                      f"iterations (||A^T r|| / (||A|| ||r||) = {info.optimality:.3g})", RuntimeWarning, stacklevel=3)
    return (X if cols_out else X[:, 0]), info
