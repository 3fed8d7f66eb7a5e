"""Mixed-precision solves of the interior-point normal equations

    M dy = r,   M = A D A^T + delta I      (float64 on the host)

The heavy part stays on the GPU in float32: M formed by rasterization and
factored there (the NormalSystem operation of paper/ or blocked/, chosen by
method=), with pivots below a floor *regularized*, not dropped.  Each solve then
reaches float64 accuracy on the host, as the 2008 paper's Algorithm 1 does for
least squares: iterative refinement with the float32 factor, and where that
stalls (kappa(M) u_32 >= 1 near the optimum), conjugate gradients on M with the
float32 factor as preconditioner.  Matrix-vector products with M use A, D in
float64 and never form M.  If neither reaches the accuracy asked (rare), a
float64 factorization of M on the host finishes the solve, and is counted
(sparse where M is: `HostFactor`).  Where the system factors M in float64 on the GPU itself (the
compute method's `float64_factor`) and that factor takes M, every solve is by it from the
first iteration (`float64_throughout`: about the float32 path's cost on the H100, and pilot87
then ends 1.7e-9 off where the float32 iterates stalled 1.8e-8 off).

Bordering (`factor(..., border=F, d_border=)`): columns F whose Newton step the
proximal term throttles (their true D_j = x_j/z_j is far above the regularized
1/(z_j/x_j + rho) that M carries; greenbea's nearly antiparallel column pairs
must grow to x ~ 1e10) get the excess E = D_true - D back through the bordered
system -- the dense-column technique -- while M itself stays as it was:

    [ M      A_F   ] [ dy ]   [ rb + A D rhat ]      dx = D (A^T dy - rhat),
    [ A_F^T  -E^-1 ] [ v  ] = [ rhat_F        ]      dx_F += v

solved by its |F| x |F| Schur complement through A_F = Q R (`newton`).

device="cpu64" / "cpu32" factor on the host instead: the same algorithm with a
reference preconditioner -- cpu64 the float64 HostFactor (sparse where M is: the
host's own LP solver, what device="auto" picks for small factors, and the yardstick the
GPU's times are measured against), cpu32 a dense float32 LAPACK factor that rounds as
the GPU's does (for tests).  cpu64 forms M's triangle on a pattern made once and keeps
qdldl's ordering (normal_pattern.NormalPattern, host_factor.SparseLDL; long columns as a
border), scaled by M's own diagonal (the factor the last resort would make: none is made again),
and corrects a Newton step once where A dx misses r_b (`newton`).  Where cpu64's factor is
the multifrontal one (dfl001-sized), every solve is one by M's own float64 factor instead, from the
first iteration, as the exact mode's (`float64_throughout`).

Where the preconditioner's substitutions run (`substitution`, in stats): the GPU
factors, and its float32 L is read back once per factorization; the solves of a
refinement or PCG step -- two triangular solves, O(m^2) and memory-bound -- then run
on the host in float32 ("host"), a millisecond each where a substitution by drawing
waits for m/16 dependent passes and a read-back (benchmarks/RESULTS.md).  "gpu"
keeps them on the GPU (the system's solve); a system without `lower()` does so too.
"""
from __future__ import annotations

import time
import warnings
from contextlib import nullcontext

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ....errors import GLResourceError, ShaderCompileError
from ....parallel import fortran_copy
from ....symbolic import colamd_available
from ...sparse_cholesky import CholeskyAnalysis, qdldl_module
from .host_factor import (LDL_FLOPS, MULTIFRONTAL_FLOPS, SPARSE_SHARE, HostFactor, SparseLDL, _regularized_cholesky,
                          shifted)
from .normal_pattern import NormalPattern
from .rows import rows


_UNSET = object()
#: the GPU's float64 factor (where the system has one: method="compute") is taken for M of
#: at least this order (four tiles) whose factor takes at least GPU_FLOAT64_FLOPS (the analysis's
#: count; device.GPU_FLOAT64_HOST_FLOPS's line, in that count) -- every factorization from the
#: first (`float64_throughout`); below, the float32 factor with its refinement
GPU_FLOAT64_ROWS = 256
GPU_FLOAT64_FLOPS = 8e6
#: from this order on, the symbolic analysis (COLAMD, its flop count) decides the float64 factor's
#: kind before any is made; below, qdldl's on the pattern first (its own count can still turn it)
ANALYSIS_ROWS = 1000
SOLVE_TOL_BORDER = 1e-13      # the border's columns M^-1 Q: solved once per factorization, tightly
BORDER_CORRECTIONS = 2       # primal corrections of a bordered Newton step
FLOAT64_FLOOR = 1e-14        # device="cpu64"'s qdldl factor: its first shift relative to M's unit diagonal
                             # (its pivots are checked against the shift: SparseLDL), and HostFactor's of
                             # M with delta
FLOAT64_CG = 8               # PCG steps after refinement with cpu64's float64 factor stalls (HostFactor's or
                             # the pattern's): that factor is M's own (delta included), so what is left is
                             # rounding, which more steps do not remove (60 cost fit2p 2,214 steps, same answer)
PRIMAL_SLACK = 0.01          # an unbordered step is corrected once when A dx misses rb by more than this share


def _plus_shift(M, shift: float):
    """M + shift I, M scipy.sparse or a dense array (a new one either way)."""
    if sp.issparse(M):
        return M + shift * sp.eye(M.shape[0], format="csc")
    W = M.copy()
    W[np.diag_indices(M.shape[0])] += shift
    return W


class MixedNormal:
    #: where the preconditioner's substitutions run after a GPU factorization: "host" or "gpu"
    SUBSTITUTION = "host"

    def __init__(self, A: np.ndarray, *, impl=None, packed=False, variant="outer", ctx=None, watch=None,
                 device="gpu", pattern=None, counted: float = float("nan"), ldl=None):
        """pattern: a NormalPattern of A already made (device="auto" made one to decide);
        counted: qdldl's flop count of A A^T's factor, where device="auto" had one; ldl: a
        SparseLDL on that pattern (device="auto"'s, its ordering made or taken from the presolve)."""
        self.A = rows(A)
        self.At = rows(self.A.T)
        self.A2 = rows(self.A.multiply(self.A))       # diag(A D A^T) = A^2 d, every factorization
        self.m, self.n = A.shape
        self.device, self.watch = device, watch
        self.system = None
        if device == "gpu":
            # the system keeps A and takes the rows' scaling in factor() (points where they
            # pay; the compute method's dense A scaled on the GPU); else S A is uploaded per factor
            self.system = impl.normal_system(self.A.astype(np.float32), packed=packed, variant=variant,
                                            ctx=ctx, watch=watch)
        self.scales_rows = bool(getattr(self.system, "takes_row_scale", False))
        self.low_part = hasattr(self.system, "keep_low_part")
        if self.low_part:                               # S A rounded once on the GPU, as on the host
            A32 = self.A.astype(np.float32)
            self.system.keep_low_part((self.A - A32.astype(np.float64)).astype(np.float32))
        self.substitution = ("host" if self.SUBSTITUTION == "host" and hasattr(self.system, "lower") else "gpu") \
            if device == "gpu" else "host"
        self._L = self._F = None
        self._overflowed = False
        self.d = None
        self.delta = 0.0
        self.border = np.zeros(0, int)
        self.stats = {"assembly": getattr(self.system, "assembly_name", "dense"), "substitution": self.substitution,
                      "factorizations": 0, "solves": 0, "refinement_steps": 0, "pcg_iterations": 0,
                      "host_fallbacks": 0, "max_rel_residual": 0.0, "bordered_columns": 0,  # (refined solves')
                      "border_skipped": 0, "host_factor_multifrontal": 0, "host_factor_sparse": 0,
                      "host_factor_dense": 0, "gpu_factor_float64": 0, "refused_steps": 0,
                      "float64_from_iteration": 0, "float64_after_stall": 0, "float64_throughout": False, "primal_corrections": 0,
                      "gpu_sums": False}
        self._host_factor = None
        self.exact = False                  # set by the iteration: every solve by the float64 factor,
                                            # and no float32 factor made any more
        self._symbolic = _UNSET             # the CholeskyAnalysis of A D A^T, made when first needed
        self._A64 = self._As32 = None       # the dense assembly's A (float64) and its work array
        self._no_gpu_float64 = False        # set when the driver could not build the float64 kernels
        self._dense_M = False               # A D A^T found dense: formed dense from then on (_normal_matrix)
        self._long = None                   # its long columns dense, the others sparse
        self._pattern = _UNSET              # NormalPattern: the float64 factors are qdldl's on it (None: not)
        self._made_pattern = pattern
        self._counted = counted
        self._ldl = {} if ldl is None or ldl.pattern is not pattern else {"pre": ldl}
                                            # SparseLDL by use ("pre": cpu64's per-iteration factor, "host")
        self._gpu_pattern = _UNSET          # (NormalPattern, EntryPlaces): the GPU's float64 factor's M
        self._diagonal_sums = None          # the pattern's W at M's diagonal (the GPU sums M: its scaling)

    # -- factor --------------------------------------------------------------------------
    def factor(self, d: np.ndarray, delta: float, floor_rel: float = 1e-10, border=None, d_border=None) -> None:
        """Factor A diag(d) A^T in float32, symmetrically scaled to a unit diagonal:
        M~ = S A D A^T S with S = diag(M)^-1/2, so that float32 rounding and the
        pivot floor (pivots below floor_rel become floor_rel: regularized, not
        dropped) are relative to each row's own size.  Cholesky commutes with the
        scaling; A's rows are scaled on the host and A uploaded again.  Columns in
        `border` have the true D `d_border` (> d there): `newton` adds the excess."""
        self.border = np.asarray(border if border is not None else [], int)
        if self.border.size:
            self.excess = np.maximum(np.asarray(d_border, float) - d[self.border], 1e-300)
            self.stats["bordered_columns"] = max(self.stats["bordered_columns"], int(self.border.size))
        self.d, self.delta = d, delta
        self._drop_float64_factor()
        self.stats["factorizations"] += 1
        self.dmax = float(d.max()) if d.size and d.max() > 0 else 1.0
        ds = d / self.dmax
        diag = np.asarray(self.A2 @ ds).ravel()
        if self.device == "cpu64" and self._sparse_pattern() is not None:
            # the qdldl factor of M scaled by M's own diagonal (delta's part included): the one
            # _host would make, so none is made again (`_F_whole`); scaled by A D A^T's alone, rows
            # that delta dominates got the shift out of proportion and solves missed their tol
            diag = diag + delta / self.dmax
        self.s = 1.0 / np.sqrt(np.where(diag > 1e-300, diag, 1.0))
        self._L = None                      # the factor the host's substitutions use, if any
        self._overflowed = False            # the GPU's float32 factor is not finite
        self._F = None                      # device="cpu64": the float64 host factor instead
        if self.exact:
            pass                            # every solve goes to the float64 factor (solve, _host)
        elif self.device == "gpu":
            d32 = np.where(ds < 1e-37, 0.0, ds).astype(np.float32)
            try:
                if self.scales_rows:
                    scale = self.s if self.low_part else self.s.astype(np.float32)
                    self.system.factor(d32, pivot_floor=floor_rel, regularize=True, row_scale=scale)
                else:
                    with self.watch("transfer") if self.watch is not None else nullcontext():
                        self.system.update_matrix(self._scaled_dense())
                    self.system.factor(d32, pivot_floor=floor_rel, regularize=True)
            except np.linalg.LinAlgError:
                # a pivot float32 cannot hold (overflow: the tiled factor names it, a staircase
                # LP of 15,000 rows under compute): as an overflowed L -- the float64 factor's solves
                self._overflowed = True
            if self.substitution == "host" and not self._overflowed:
                L = self.system.lower()
                if np.isfinite(L).all():
                    # column-major for LAPACK: solving through L's transpose (row-oriented) instead
                    # rounds differently and cost cycle 32 iterations (experiments/lp_host_substitution.py)
                    self._L = fortran_copy(L)
                else:                       # float32 overflowed: no substitution with it is finite,
                    self._overflowed = True     # here or on the GPU -- the float64 factor's solves
        elif self.device == "cpu64" and self._sparse_pattern() is not None:
            P = self._pattern                       # S (A D A^T) S's triangle on the pattern
            # with delta (in the scaled units): the factor of the very M the solves are for
            self._F = self._pattern_factor("pre", P.scale(P.data(ds, delta / self.dmax), self.s), FLOAT64_FLOOR)
        else:
            if self._dense_M:                       # S (A D A^T) S, dense (_normal_matrix)
                M = self._normal_matrix(ds, 0.0)
                M *= self.s[:, None]
                M *= self.s[None, :]
            else:
                As = self.A.multiply(self.s[:, None]).tocsr()
                M = As.multiply(ds[None, :]).tocsr() @ As.T.tocsr()
                self._dense_M = M.nnz > SPARSE_SHARE * self.m * self.m
            if self.device == "cpu64":              # float64: sparse where M is (HostFactor)
                # with delta (S^2 delta / dmax in these units), as the pattern's factor: the factor of
                # the very M the solves are for (without it dfl001 took 6,729 PCG iterations)
                if delta > 0:
                    if sp.issparse(M):
                        M = (M + sp.diags(self.s ** 2 * (delta / self.dmax))).tocsc()
                    else:
                        M[np.diag_indices(self.m)] += self.s ** 2 * (delta / self.dmax)
                self._F = self._float64_factor(M, FLOAT64_FLOOR)
            else:                                    # float32, dense: what the GPU's factor rounds like
                self._L = _regularized_cholesky((M.toarray() if sp.issparse(M) else M).astype(np.float32), floor_rel)
        if self.border.size:
            self._border_factor()

    #: rows of the dense scaled A formed at a time (a float64 block of this many rows)
    ROW_BLOCK = 256

    def _scaled_dense(self) -> np.ndarray:
        """S A as float32 for the dense assembly, into one work array: A kept dense in
        float64 (made once), each block of rows scaled in float64 and rounded once --
        the same numbers as scaling the sparse A, without its per-iteration sparse
        products and conversions (fit2p: seconds a solve)."""
        if self._A64 is None:
            self._A64 = self.A.toarray()
            self._As32 = np.empty(self._A64.shape, np.float32)
        for r0 in range(0, self.m, self.ROW_BLOCK):
            r1 = min(self.m, r0 + self.ROW_BLOCK)
            self._As32[r0:r1] = self._A64[r0:r1] * self.s[r0:r1, None]
        return self._As32

    def _border_factor(self):
        """A_F = Q R (thin QR) and G = Q^T M^-1 Q: the Schur complement of the
        bordered system is R^T (G + R^-T E^-1 R^-1) R.  Working through R keeps the
        near-dependence of A_F's columns (greenbea's pairs are antiparallel to 1e-5)
        explicit in R instead of cancelling inside A_F^T M^-1 A_F."""
        Q, R = np.linalg.qr(self.A[:, self.border].toarray())
        try:
            if not np.all(np.abs(np.diag(R)) > 0):
                raise np.linalg.LinAlgError("dependent border columns")
            # M^-1 Q is often far from SOLVE_TOL_BORDER late in the solve (M nearly
            # singular along Q); skipping the border then was tried and loses greenbea.
            # Its error goes to the primal side, which newton's corrections take out.
            MQ = np.column_stack([self.solve(Q[:, k], tol=SOLVE_TOL_BORDER) for k in range(Q.shape[1])])
            Rinv = sla.solve_triangular(R, np.eye(R.shape[0]), check_finite=False)
            # Q^T (M^-1 Q) as computed, not symmetrized: then A_F^T dy = r2 holds to
            # rounding however inexact M^-1 Q is (symmetrized, greenbea's dual residual
            # stalled at 6e-10 on the bordered columns, whose x ~ 1e10 made the gap 3e-8)
            K = Q.T @ MQ + (Rinv.T / self.excess) @ Rinv
            if not np.all(np.isfinite(K)):
                raise np.linalg.LinAlgError("the border's Schur complement is not finite")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", sla.LinAlgWarning)     # a zero pivot: refused below
                lu = sla.lu_factor(K, check_finite=False)
            if not np.all(np.diag(lu[0]) != 0):
                raise np.linalg.LinAlgError("the border's Schur complement is singular")
            self._Q, self._R, self._MQ, self._K = Q, R, MQ, lu
        except (np.linalg.LinAlgError, ValueError):
            # dependent columns or a singular Schur complement: this step goes without
            # the border -- M is the unbordered matrix, so nothing else changes
            self.border = np.zeros(0, int)
            self.stats["border_skipped"] += 1

    def newton(self, rb: np.ndarray, rhat: np.ndarray, D: np.ndarray, tol: float):
        """dy, dx of the reduced Newton system  -D^-1 dx + A^T dy = rhat,  A dx = rb,
        D being the last factor()'s d (the border's excess added: see the module)."""
        r = rb + self.A @ (D * rhat)
        F = self.border
        if not F.size:
            dy = self.solve(r, tol=tol)
            dx = D * (self.At @ dy - rhat)
            # each solve is accurate relative to r, which carries A D rhat (huge late, D ~ 1/mu):
            # A dx = rb can then be off by more than rb itself, and the primal residual stalls
            # (ganges at 5e-9); one solve with the small residual restores it
            # (device="cpu64" only: with the float32 factor's solves it doubled the PCG work on the
            # H100 -- cycle 2.6 -> 4.4 s -- and changed few iteration counts, some for the worse;
            # nor where its solves are the multifrontal factor's, once each: dfl001 255 -> 147 solves)
            correct = self.device == "cpu64" and not self.stats["float64_throughout"]
            e = rb - self.A @ dx - self.delta * dy if correct else None
            if e is not None and np.linalg.norm(e) > PRIMAL_SLACK * np.linalg.norm(rb):
                c = self.solve(e, tol=tol)
                dy = dy + c
                dx = dx + D * (self.At @ c)
                self.stats["primal_corrections"] += 1
            return dy, dx
        dy, v = self._bordered(r, rhat[F], tol)
        dx = D * (self.At @ dy - rhat)
        dx[F] += v
        # r carries A D rhat, ~1e10 x ||rb|| on greenbea, and each solve is relative to
        # it: corrections by the same bordered system with the small residual
        # rb - A dx restore A dx = rb and keep the border's rows exact
        for _ in range(BORDER_CORRECTIONS):
            e = rb - self.A @ dx - self.delta * dy
            c, vc = self._bordered(e, np.zeros(F.size), tol)
            dy = dy + c
            dx = dx + D * (self.At @ c)
            dx[F] += vc
        return dy, dx

    def _bordered(self, r1, r2, tol):
        """[M A_F; A_F^T -E^-1] [dy; v] = [r1; r2], through u = R v:
        (G + R^-T E^-1 R^-1) u = Q^T M^-1 r1 - R^-T r2,  dy = M^-1 r1 - (M^-1 Q) u."""
        Q, R = self._Q, self._R
        g = self.solve(r1, tol=tol)
        e = Q.T @ g - sla.solve_triangular(R, r2, trans="T", check_finite=False)
        u = sla.lu_solve(self._K, e, check_finite=False)
        return g - self._MQ @ u, sla.solve_triangular(R, u, check_finite=False)

    # -- operator and preconditioner ------------------------------------------------------
    def matvec(self, v: np.ndarray) -> np.ndarray:
        return self.A @ (self.d * (self.At @ v)) + self.delta * v

    def precond(self, r: np.ndarray) -> np.ndarray:
        """(float32 factor of M~)^-1 applied to M's residual: S M~^-1 S r / dmax."""
        rs = self.s * r
        big = float(np.abs(rs).max(initial=0))
        if big == 0 or not np.isfinite(big):
            return np.zeros_like(r) if big == 0 else np.full_like(r, np.nan)
        rs = rs / big                               # float32 sees numbers near 1: no overflow
        if self._L is not None:                     # the host's: the GPU's L read back, or a host factor
            t0 = time.perf_counter()
            L = self._L
            y = sla.solve_triangular(L, rs.astype(L.dtype), lower=True, check_finite=False)
            out = big * sla.solve_triangular(L, y, lower=True, trans=1, check_finite=False).astype(np.float64)
            self._time("substitute", t0)
        elif self._F is not None:
            out = big * self._F.solve(rs)
        elif self._overflowed:
            return np.full_like(r, np.nan)          # solve() goes to the float64 factor
        else:
            out = big * self.system.solve(rs, "substitute")       # GPU part, inside "refine"
        return self.s * out / self.dmax

    # -- solve ---------------------------------------------------------------------------
    @property
    def needed_float64(self) -> bool:
        """Whether this factorization's solves needed the float64 factor."""
        return self._host_factor is not None

    def solve(self, rhs: np.ndarray, tol: float = 1e-10, max_refine: int = 4, max_cg: int = 60) -> np.ndarray:
        """dy with ||rhs - M dy|| <= tol ||rhs|| (float64), or the best reached."""
        t0 = time.perf_counter()
        self.stats["solves"] += 1
        nr = np.linalg.norm(rhs)
        if nr == 0:
            return np.zeros_like(rhs)
        if self.exact:                           # the float64 factor's solve, unmeasured: nothing decides by it
            x, _ = self._host(rhs, nr, measured=False)
            self._time("refine", t0)
            return x
        if self._host_factor is not None:
            # this factorization already needed the float64 factor: refinement and PCG with
            # the float32 one did not reach the accuracy, and would not for this solve either
            x, res = self._host(rhs, nr)
            if res <= tol:                       # as accurate as asked: else the usual path, then the better
                self.stats["max_rel_residual"] = max(self.stats["max_rel_residual"], res)
                self._time("refine", t0)
                return x
        x = self.precond(rhs)
        if not np.all(np.isfinite(x)):           # float32 overflow in the substitutions
            x, res = self._host(rhs, nr)
            self.stats["max_rel_residual"] = max(self.stats["max_rel_residual"], res)
            self._time("refine", t0)
            return x
        r = rhs - self.matvec(x)
        res = np.linalg.norm(r) / nr
        # Algorithm 1: refine while each step gains at least a factor 4
        for _ in range(max_refine):
            if res <= tol:
                break
            x_new = x + self.precond(r)
            r_new = rhs - self.matvec(x_new)
            res_new = np.linalg.norm(r_new) / nr
            self.stats["refinement_steps"] += 1
            if not res_new < res:                # also NaN: keep what we have
                break
            x, r, res, improved = x_new, r_new, res_new, res_new < 0.25 * res
            if not improved:
                break
        if res > tol:
            x, res = self._pcg(rhs, x, r, nr, tol, FLOAT64_CG if self._F is not None else max_cg)
        if not res <= max(tol, 1e-8) and not self._F_whole:    # (_F_whole: it is that factor already)
            x2, res2 = self._host(rhs, nr)
            if res2 < res:
                x, res = x2, res2
        self.stats["max_rel_residual"] = max(self.stats["max_rel_residual"], res)
        self._time("refine", t0)
        return x

    def _pcg(self, rhs, x, r, nr, tol, max_cg):
        """Preconditioned conjugate gradients on M from x (r = rhs - M x)."""
        z = self.precond(r)
        if not np.all(np.isfinite(z)):
            return x, np.linalg.norm(r) / nr
        p = z.copy()
        rz = r @ z
        best_x, best = x, np.linalg.norm(r) / nr
        for _ in range(max_cg):
            q = self.matvec(p)
            pq = p @ q
            self.stats["pcg_iterations"] += 1
            if not pq > 0 or not np.isfinite(pq):
                break
            alpha = rz / pq
            x = x + alpha * p
            r = r - alpha * q
            res = np.linalg.norm(r) / nr
            if res < best:
                best_x, best = x, res
            if res <= tol:
                break
            z = self.precond(r)
            if not np.all(np.isfinite(z)):
                break
            rz_new = r @ z
            if not np.isfinite(rz_new) or rz == 0:
                break
            p = z + (rz_new / rz) * p
            rz = rz_new
        # the recurrence drifts from the true residual: recompute it
        true = np.linalg.norm(rhs - self.matvec(best_x)) / nr
        return best_x, true

    def _host(self, rhs, nr, measured: bool = True):
        """float64 factorization of M (the host's, or the GPU's where it has one): the
        last resort, counted.  Its solve is not refined with it: refining towards the
        solve's tol cost pilot (the compute method, all on the GPU) its optimum, numerical
        trouble at 52 iterations where it ends optimal at 58 without.  (x, its relative
        residual), or (x, nan) unmeasured (two products with A less a solve)."""
        self.stats["host_fallbacks"] += 1
        if self._host_factor is None and self.device == "gpu":
            self._host_factor = self._gpu_pattern_factor()
        if self._host_factor is None and self._sparse_pattern() is not None:
            P = self._pattern
            data = P.data(self.d, self.delta)
            s = np.sqrt(np.maximum(np.asarray(self.A2 @ self.d).ravel() + self.delta, 1e-300))   # M's diagonal
            self._host_factor = (self._pattern_factor("host", P.scale(data, 1.0 / s), 1e-14), s)
        if self._host_factor is None:
            M = self._normal_matrix(self.d, self.delta) if self._dense_M else None
            if M is None:
                M = (self.A.multiply(self.d[None, :]).tocsr() @ self.At).tocsc()
                if self.delta:
                    M = M + self.delta * sp.eye(self.m, format="csc")
                self._dense_M = M.nnz > SPARSE_SHARE * self.m * self.m
            s = np.sqrt(np.maximum(M.diagonal(), 1e-300))
            inv = 1.0 / s
            # S^-1 M S^-1 in place, rows then columns: the numbers of the two products
            # with diag(1/s), without them
            if sp.issparse(M):
                M.data *= inv[M.indices]
                M.data *= np.repeat(inv, np.diff(M.indptr))
            else:
                M *= inv[:, None]
                M *= inv[None, :]
            self._host_factor = (self._float64_factor(M, 1e-14), s)
        F, s = self._host_factor
        x = F.solve(rhs / s) / s
        return x, (np.linalg.norm(rhs - self.matvec(x)) / nr if measured else float("nan"))

    #: a column with more entries than this goes into the dense product of _normal_matrix
    DENSE_COLUMN = 32

    def _normal_matrix(self, d: np.ndarray, delta: float) -> np.ndarray:
        """A diag(d) A^T + delta I as a dense float64 array, for an M known to be dense (fit2p:
        13,500 singleton columns and 25 nearly full ones).  The long columns' part is one
        BLAS product, the rest a sparse one added in; scipy's sparse product of a dense M
        (and its conversions) cost fit2p ~0.6 s a factorization."""
        if self._long is None:
            A = self.A.tocsc()
            long = np.diff(A.indptr) > self.DENSE_COLUMN
            self._long = (np.flatnonzero(long), A[:, long].toarray(), A[:, ~long].tocsr(), np.flatnonzero(~long))
        cols, Ad, As, rest = self._long
        M = (Ad * d[cols]) @ Ad.T
        Ms = (As.multiply(d[rest][None, :]).tocsr() @ As.T.tocsr()).tocoo()
        M[Ms.row, Ms.col] += Ms.data               # a product's entries: each (row, col) once
        M[np.diag_indices(self.m)] += delta
        return M

    def _float64_factor(self, M, floor: float):
        """The float64 factor of M (A D A^T's pattern), counted by kind in stats: the
        GPU's (`float64_factor`) where the system has one and it pays (GPU_FLOAT64_ROWS),
        else HostFactor.  The symbolic analysis is made once per problem (needs COLAMD;
        none where it is missing or M is too dense to be worth it)."""
        if self._gpu_float64_pays(sp.issparse(M) and M.nnz <= SPARSE_SHARE * self.m * self.m):
            gpu = self._gpu_float64()
            F = self._on_gpu(lambda shift: gpu(_plus_shift(M, shift)), float(M.diagonal().max(initial=0)), floor)
            if F is not None:
                return F
        F = HostFactor(M, floor, self._symbolic)
        self.stats["host_factor_" + F.kind] += 1
        return F

    def _gpu_float64_pays(self, sparse: bool) -> bool:
        """Whether M's float64 factor is the GPU's: the system has one, M has GPU_FLOAT64_ROWS
        rows or more, and the analysis (made here once per problem) counts GPU_FLOAT64_FLOPS or
        more, or there is none (M dense, no COLAMD)."""
        self._analysis(sparse)
        return self._gpu_float64() is not None and self.m >= GPU_FLOAT64_ROWS and (
            self._symbolic is None or self._symbolic.flops >= GPU_FLOAT64_FLOPS)

    def _on_gpu(self, factor, top: float, floor: float):
        """factor(shift), shifted as HostFactor's are, counted; None where M is not positive
        definite at any shift tried, over the buffer limit, or the driver has no float64 kernels."""
        try:
            F = shifted(factor, top, floor)
        except (np.linalg.LinAlgError, ValueError):
            return None
        except ShaderCompileError as exc:          # a driver without float64 kernels: the host's
            warnings.warn(f"the GPU's float64 factor is unavailable, the host factors instead: {exc}",
                          RuntimeWarning, stacklevel=3)
            self._no_gpu_float64 = True
            if self.stats["float64_throughout"]:        # its reason is gone: the float32 factor again
                self.exact = self.stats["float64_throughout"] = False
            return None
        self.stats["gpu_factor_float64"] += 1
        return F

    def _gpu_pattern_factor(self):
        """(the GPU's float64 factor, M's diagonal^1/2) with M formed on a NormalPattern of A
        made once (no border: M itself) and scattered into the factor through places uploaded
        once, permuted by the analysis where there is one.  The values are one sum a
        factorization, where a sparse product, its triangle and conversions cost maros-r7 1.1 s
        on the H100's host (benchmarks/RESULTS.md).  None where there is no such pattern or
        factor (then M is formed as a sparse product)."""
        if self._gpu_pattern is _UNSET:
            self._gpu_pattern = None
            made = self._made_pattern          # device="auto"'s, where it has no border: M's own
            if made is not None and made.long.size:
                made = None
            if not self._dense_M and self._gpu_float64() is not None and (
                    made is not None or NormalPattern.usable(self.A, border=False)):
                P = made or NormalPattern(self.A, border=False)
                if self._gpu_float64_pays(P.full_nnz <= SPARSE_SHARE * self.m * self.m):
                    # the pattern's upper triangle by columns is M's lower one by rows: (col, row);
                    # in the analysis's order (COLAMD) where there is one, whose zero tiles the
                    # factor skips (dfl001: 18% of a dense factor's tile updates)
                    # with the pairs' products (W) kept there too where they fit: the GPU sums M's
                    # entries from d, and only d travels (normal_entries.comp)
                    for sums in (P.sums, None):
                        try:
                            self._gpu_pattern = (P, self.system.float64_places(P.col_of, P.row_of, self._symbolic,
                                                                               sums=sums))
                            break
                        except (ValueError, GLResourceError, MemoryError):
                            pass            # past int32, or no room on the GPU: without W, or the sparse product's way
        if self._gpu_pattern is None or self._gpu_float64() is None:
            return None
        P, places = self._gpu_pattern
        gpu = self._gpu_float64()
        if places.sums:
            self.stats["gpu_sums"] = True       # M's entries summed on the GPU (normal_entries.comp)
            # M's diagonal as the GPU forms it: the same sums (W's diagonal rows), delta after
            if self._diagonal_sums is None:
                self._diagonal_sums = P.sums[P.diagonal_at]
            diag = self._diagonal_sums @ self.d
            diag += self.delta
        else:
            data = P.data(self.d, self.delta)
            diag = data[P.diagonal_at]
        s = np.sqrt(np.maximum(diag, 1e-300))                     # M's diagonal, as formed
        inv = 1.0 / s
        if places.sums:
            top = float((diag * inv * inv).max(initial=0))        # the scaled diagonal, as the GPU rounds it

            def factor(shift):
                return gpu(None, places, sums=(self.d, inv, self.delta, shift))
        else:
            P.scale(data, inv)
            top = float(data[P.diagonal_at].max(initial=0))

            def factor(shift):
                w = data.copy()
                w[P.diagonal_at] += shift
                return gpu(w, places)
        F = self._on_gpu(factor, top, 1e-14)
        return None if F is None else (F, s)

    @property
    def _F_whole(self) -> bool:
        """Whether device="cpu64"'s factor is the float64 factor of M itself (delta included, scaled
        by M's own diagonal): HostFactor's, or the pattern's qdldl one -- _host would factor the same
        matrix again."""
        return self._F is not None

    @property
    def float64_throughout(self) -> bool:
        """Whether every solve should take the float64 factor from the start: where the GPU
        factors M in float64 itself (the compute method, from GPU_FLOAT64_ROWS rows and
        GPU_FLOAT64_FLOPS).  On the H100 that factor costs less than the float32 one with its
        read-back and refinement, and it held pilot87 to 1.7e-9 where the float32 factor's
        iterates stalled 1.8e-8 off (benchmarks/RESULTS.md)."""
        if self.device == "cpu64":
            return self._multifrontal_direct()
        if self.device != "gpu" or self.m < GPU_FLOAT64_ROWS or self._gpu_float64() is None:
            return False
        sym = self._analysis(True)
        return sym is None or sym.flops >= GPU_FLOAT64_FLOPS

    def _multifrontal_direct(self) -> bool:
        """device="cpu64" whose per-iteration factor would be the multifrontal one (no pattern,
        M sparse, the analysis at MULTIFRONTAL_FLOPS or more): its solves are then one each by
        the float64 factor of M scaled by M's own diagonal (the exact mode's `_host`), not
        refinement and PCG with a factor scaled by A D A^T's diagonal alone, whose shift is
        relative to the rows delta dominates (dfl001 on the CPU machine: 11.7 -> 8.0 s, 40
        iterations either way; benchmarks/RESULTS.md)."""
        if self._sparse_pattern() is not None or self._dense_M or self.m ** 3 / 3.0 < MULTIFRONTAL_FLOPS:
            return False                # (no factor of M takes more flops than the dense one: no analysis)
        sym = self._analysis(True)
        return sym is not None and sym.flops >= MULTIFRONTAL_FLOPS

    def _analysis(self, sparse: bool):
        """The CholeskyAnalysis of A D A^T, made at the first call (None: M dense, or no COLAMD)."""
        if self._symbolic is _UNSET:
            self._symbolic = CholeskyAnalysis.of(self.A) if sparse and colamd_available() else None
        return self._symbolic

    def _gpu_float64(self):
        return None if self._no_gpu_float64 else getattr(self.system, "float64_factor", None)

    def _sparse_pattern(self):
        """The NormalPattern when the float64 factors are qdldl's on it (SparseLDL), else None,
        decided at the first call: device="cpu64", qdldl installed, M sparse, and no multifrontal
        factor due (decided by device="auto"'s qdldl count where there is one, else by the analysis
        from ANALYSIS_ROWS on; below, or for a bordered M, by qdldl's own flop count after its first
        factorization, `_pattern_factor`)."""
        if self._pattern is _UNSET:
            self._pattern = None
            # device="cpu64" only: as the GPU path's last resort (new rounding, the reused ordering)
            # it cost greenbea its optimum under the blocked method (stalled 1e-3 off); that path
            # keeps HostFactor's factor, made afresh each time
            if self.device == "cpu64" and qdldl_module() is not None and not self._dense_M and (
                    self._made_pattern is not None or NormalPattern.usable(self.A)):
                P = self._made_pattern or NormalPattern(self.A)
                if P.full_nnz > SPARSE_SHARE * self.m * self.m:
                    self._dense_M = True
                elif self.m < ANALYSIS_ROWS or P.long.size or self._counted < LDL_FLOPS:
                    # (a bordered M: the analysis counts A's long columns as dense, qdldl's own count
                    # decides; device="auto"'s count is qdldl's already: no analysis needed)
                    self._pattern = P
                else:
                    sym = self._analysis(True)
                    if sym is None or sym.flops < MULTIFRONTAL_FLOPS:
                        self._pattern = P
        return self._pattern

    def _pattern_factor(self, use: str, data: np.ndarray, floor: float):
        """qdldl's factor of the M whose triangle is `data`, counted as a sparse host factor;
        one whose L takes LDL_FLOPS or more ends the pattern's use (the next factorizations
        go HostFactor's way: multifrontal or the GPU's)."""
        F = self._ldl.get(use)
        if F is None:
            F = self._ldl[use] = SparseLDL(self._pattern)
        try:
            F.factor(data, floor)
        except np.linalg.LinAlgError:       # not positive definite at any shift: HostFactor's dense way
            K = self._pattern.matrix(data)
            K = (K + sp.triu(K, 1).T).tocsc()
            m = self.m                      # bordered: M = K11 + K12 K12^T (K22 = -I)
            M = K[:m, :m] + K[:m, m:] @ K[:m, m:].T if K.shape[0] > m else K
            return self._float64_factor(sp.csc_matrix(M), floor)
        self.stats["host_factor_sparse"] += 1
        if F.flops >= LDL_FLOPS:
            self._pattern = None
            self._ldl = {}
        return F

    def _drop_float64_factor(self) -> None:
        F = self._host_factor[0] if self._host_factor is not None else None
        if hasattr(F, "release"):                   # the GPU's: its buffer back to the pool
            F.release()
        self._host_factor = None

    def _time(self, phase, t0):
        if self.watch is not None:
            self.watch.seconds[phase] += time.perf_counter() - t0

    def release(self):
        self._A64 = self._As32 = self._long = None
        self._pattern, self._ldl, self._made_pattern = _UNSET, {}, None
        self._drop_float64_factor()
        if self._gpu_pattern not in (None, _UNSET):
            self._gpu_pattern[1].give()
        self._gpu_pattern = _UNSET
        if self.system is not None:
            self.system.release()
            self.system = None
