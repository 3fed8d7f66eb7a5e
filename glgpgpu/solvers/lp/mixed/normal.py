"""Mixed-precision solves of the interior-point normal equations

    M dy = r,   M = A D A^T + delta I      (float64 on the host)

The heavy part stays on the GPU in float32: M formed by rasterization and
factored there (the NormalSystem of the method chosen by
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

solved by its |F| x |F| Schur complement through A_F = Q R (border.py, `newton`).

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

import numpy as np

from .border import Border
from .forms import ConstraintForms
from .ladder import Float64Ladder
from .preconditioner import GPUPreconditioner, HostFloat32Preconditioner, HostFloat64Preconditioner

BORDER_CORRECTIONS = 2       # primal corrections of a bordered Newton step
FLOAT64_CG = 8               # PCG steps after refinement with cpu64's float64 factor stalls (HostFactor's or
                             # the pattern's): that factor is M's own (delta included), so what is left is
                             # rounding, which more steps do not remove (60 cost fit2p 2,214 steps, same answer)
PRIMAL_SLACK = 0.01          # an unbordered step is corrected once when A dx misses rb by more than this share


class MixedNormal:
    """Solves of M dy = r to a float64 tolerance for the interior-point iteration (mehrotra.py).
    Its owners: `forms` (A in each form), `ladder` (the float64 factors), `pre` (the device's
    preconditioner), a `Border` per bordered factorization; `stats` counts for all of them."""

    #: where the preconditioner's substitutions run after a GPU factorization: "host" or "gpu"
    SUBSTITUTION = "host"

    def __init__(self, A: np.ndarray, *, impl=None, packed=False, variant="outer", ctx=None, watch=None,
                 device="gpu", pattern=None, counted: float = float("nan"), ldl=None):
        """pattern: a NormalPattern of A already made (device="auto" made one to decide);
        counted: qdldl's flop count of A A^T's factor, where device="auto" had one; ldl: a
        SparseLDL on that pattern (device="auto"'s, its ordering made or taken from the presolve)."""
        self.forms = forms = ConstraintForms(A)
        self.m, self.n = forms.m, forms.n
        self.device, self.watch = device, watch
        self.system = None
        if device == "gpu":
            # the system keeps A and takes the rows' scaling in factor() (points where they
            # pay; the compute method's dense A scaled on the GPU); else S A is uploaded per factor
            self.system = impl.normal_system(forms.A.astype(np.float32), packed=packed, variant=variant,
                                            ctx=ctx, watch=watch)
            if self.system.keeps_low_part:              # S A rounded once on the GPU, as on the host
                A32 = forms.A.astype(np.float32)
                self.system.keep_low_part((forms.A - A32.astype(np.float64)).astype(np.float32))
        self.substitution = ("host" if self.SUBSTITUTION == "host" and self.system.reads_lower else "gpu") \
            if device == "gpu" else "host"
        self.d = None
        self.delta = 0.0
        self.border = None
        self.stats = {"assembly": self.system.assembly_name if self.system is not None else "dense",
                      "substitution": self.substitution,
                      "factorizations": 0, "solves": 0, "refinement_steps": 0, "pcg_iterations": 0,
                      "host_fallbacks": 0, "max_rel_residual": 0.0, "bordered_columns": 0,  # (refined solves')
                      "border_skipped": 0, "host_factor_multifrontal": 0, "host_factor_sparse": 0,
                      "host_factor_dense": 0, "gpu_factor_float64": 0, "refused_steps": 0,
                      "float64_from_iteration": 0, "float64_after_stall": 0, "float64_throughout": False,
                      "primal_corrections": 0, "gpu_sums": False}
        self.ladder = Float64Ladder(forms, self.system, device, self.stats, pattern=pattern, counted=counted,
                                    ldl=ldl, lost=self._gpu_float64_lost)
        self.pre = (GPUPreconditioner(self.system, forms, watch, self.substitution) if device == "gpu" else
                    HostFloat64Preconditioner(forms, self.ladder, watch) if device == "cpu64" else
                    HostFloat32Preconditioner(forms, watch))
        self._host_factor = None            # this factorization's last resort: (float64 factor, M's diagonal^1/2)
        self.exact = False                  # set by the iteration: every solve by the float64 factor,
                                            # and no float32 factor made any more

    @property
    def A(self):
        return self.forms.A

    @property
    def At(self):
        return self.forms.At

    # -- factor --------------------------------------------------------------------------
    def factor(self, d: np.ndarray, delta: float, floor_rel: float = 1e-10, border=None, d_border=None) -> None:
        """Factor A diag(d) A^T in float32, symmetrically scaled to a unit diagonal:
        M~ = S A D A^T S with S = diag(M)^-1/2, so that float32 rounding and the
        pivot floor (pivots below floor_rel become floor_rel: regularized, not
        dropped) are relative to each row's own size.  Cholesky commutes with the
        scaling.  Columns in `border` have the true D `d_border` (> d there): `newton`
        adds the excess."""
        cols = np.asarray(border if border is not None else [], int)
        self.border = None
        if cols.size:
            self.border = Border(cols, np.maximum(np.asarray(d_border, float) - d[cols], 1e-300))
            self.stats["bordered_columns"] = max(self.stats["bordered_columns"], int(cols.size))
        self.d, self.delta = d, delta
        self._drop_float64_factor()
        self.stats["factorizations"] += 1
        self.dmax = float(d.max()) if d.size and d.max() > 0 else 1.0
        ds = d / self.dmax
        diag = self.forms.diagonal(ds)
        if self.pre.diagonal_with_delta():
            diag = diag + delta / self.dmax
        self.s = 1.0 / np.sqrt(np.where(diag > 1e-300, diag, 1.0))
        if self.exact:
            self.pre.clear()                # every solve goes to the float64 factor (solve, _host)
        else:
            self.pre.factor(ds, self.s, delta / self.dmax, floor_rel)
        if self.border is not None and not self.border.factor(self.A, self.solve):
            # dependent columns or a singular Schur complement: this step goes without
            # the border -- M is the unbordered matrix, so nothing else changes
            self.border = None
            self.stats["border_skipped"] += 1

    def newton(self, rb: np.ndarray, rhat: np.ndarray, D: np.ndarray, tol: float):
        """dy, dx of the reduced Newton system  -D^-1 dx + A^T dy = rhat,  A dx = rb,
        D being the last factor()'s d (the border's excess added: border.py)."""
        r = rb + self.A @ (D * rhat)
        if self.border is None:
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
        F = self.border.cols
        dy, v = self.border.solve(r, rhat[F], self.solve, tol)
        dx = D * (self.At @ dy - rhat)
        dx[F] += v
        # r carries A D rhat, ~1e10 x ||rb|| on greenbea, and each solve is relative to
        # it: corrections by the same bordered system with the small residual
        # rb - A dx restore A dx = rb and keep the border's rows exact
        for _ in range(BORDER_CORRECTIONS):
            e = rb - self.A @ dx - self.delta * dy
            c, vc = self.border.solve(e, np.zeros(F.size), self.solve, tol)
            dy = dy + c
            dx = dx + D * (self.At @ c)
            dx[F] += vc
        return dy, dx

    # -- operator and preconditioner ------------------------------------------------------
    def matvec(self, v: np.ndarray) -> np.ndarray:
        return self.forms.matvec(self.d, self.delta, v)

    def precond(self, r: np.ndarray) -> np.ndarray:
        """(the factor of M~)^-1 applied to M's residual: S M~^-1 S r / dmax."""
        rs = self.s * r
        big = float(np.abs(rs).max(initial=0))
        if big == 0 or not np.isfinite(big):
            return np.zeros_like(r) if big == 0 else np.full_like(r, np.nan)
        out = self.pre.apply(rs / big)              # float32 sees numbers near 1: no overflow
        if out is None:
            return np.full_like(r, np.nan)          # solve() goes to the float64 factor
        return self.s * (big * out) / self.dmax

    # -- solve ---------------------------------------------------------------------------
    @property
    def needed_float64(self) -> bool:
        """Whether this factorization's solves needed the float64 factor."""
        return self._host_factor is not None

    @property
    def float64_throughout(self) -> bool:
        """Whether every solve should take the float64 factor from the start (ladder.throughout):
        on the H100 the GPU's float64 factor costs less than the float32 one with its read-back
        and refinement, and it held pilot87 to 1.7e-9 where the float32 factor's iterates stalled
        1.8e-8 off (benchmarks/RESULTS.md)."""
        return self.ladder.throughout()

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
                return self._solved(x, res, t0)
        x = self.precond(rhs)
        if not np.all(np.isfinite(x)):           # float32 overflow in the substitutions
            x, res = self._host(rhs, nr)
            return self._solved(x, res, t0)
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
            x, res = self._pcg(rhs, x, r, nr, tol, FLOAT64_CG if self.pre.F is not None else max_cg)
        if not res <= max(tol, 1e-8) and not self.pre.whole:    # (whole: it is that factor already)
            x2, res2 = self._host(rhs, nr)
            if res2 < res:
                x, res = x2, res2
        return self._solved(x, res, t0)

    def _solved(self, x, res, t0):
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
        """The float64 factor of M (ladder.factor_of_m, made once per factorization): the last
        resort, counted.  Its solve is not refined with it: refining towards the solve's tol
        cost pilot (the compute method, all on the GPU) its optimum, numerical trouble at 52
        iterations where it ends optimal at 58 without.  (x, its relative residual), or
        (x, nan) unmeasured (two products with A less a solve)."""
        self.stats["host_fallbacks"] += 1
        if self._host_factor is None:
            self._host_factor = self.ladder.factor_of_m(self.d, self.delta)
        F, s = self._host_factor
        x = F.solve(rhs / s) / s
        return x, (np.linalg.norm(rhs - self.matvec(x)) / nr if measured else float("nan"))

    @property
    def bordered(self) -> bool:
        """Whether the float64 factors go through the pattern's border of long columns (cpu64)."""
        return self.ladder.bordered()

    @property
    def product_form(self) -> bool:
        """Whether the long columns go into the product-form factor (to_product_form was called)."""
        return self.ladder.product_form

    def to_product_form(self) -> None:
        """The long columns' border factored in product form from now on (Float64Ladder.to_product_form)."""
        self.ladder.to_product_form()
        self._drop_float64_factor()
        self.pre.clear()

    def unborder(self) -> None:
        """M factored whole from now on (Float64Ladder.unborder), for a fresh solve from the start."""
        self.ladder.unborder()
        self._drop_float64_factor()
        self.pre.clear()
        self.exact = self.stats["float64_throughout"] = False
        self.stats["unbordered"] = True

    def _gpu_float64_lost(self) -> None:
        """The driver has no float64 kernels: float64_throughout's reason is gone."""
        if self.stats["float64_throughout"]:
            self.exact = self.stats["float64_throughout"] = False

    def _drop_float64_factor(self) -> None:
        if self._host_factor is not None:
            self._host_factor[0].release()          # the GPU's: its buffer back to the pool
        self._host_factor = None

    def _time(self, phase, t0):
        if self.watch is not None:
            self.watch.seconds[phase] += time.perf_counter() - t0

    def release(self):
        self.forms.release()
        self._drop_float64_factor()
        self.ladder.release()
        if self.system is not None:
            self.system.release()
            self.system = None
