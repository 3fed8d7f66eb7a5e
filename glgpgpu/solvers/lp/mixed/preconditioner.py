"""One preconditioner per device for the refinement and PCG of mixed/normal.py: the factor
of M~ = S A D A^T S / dmax (S = diag(M)^-1/2, so that float32 rounding and the pivot floor
are relative to each row's own size) made once per factorization, `apply(rs)` its solve.

  device="gpu"    the method's NormalSystem forms and factors M~ in float32 on the GPU;
                  its L is read back once and the substitutions run on the host
                  ("host": a millisecond each where a substitution by drawing waits for
                  m/16 dependent passes and a read-back) or stay on the GPU ("gpu", and for a
                  system that cannot read L back: NormalSystem.reads_lower)
  device="cpu32"  a dense float32 LAPACK factor that rounds as the GPU's does (tests)
  device="cpu64"  the float64 factor of M~ itself, delta included (the ladder's: qdldl's on
                  the pattern, or HostFactor's): the host's own LP solver and the yardstick
"""
from __future__ import annotations

import time
from contextlib import nullcontext

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ....parallel import factor_blas, fortran_copy
from .host_factor import _regularized_cholesky

FLOAT64_FLOOR = 1e-14        # device="cpu64"'s qdldl factor: its first shift relative to M's unit diagonal
                             # (its pivots are checked against the shift: SparseLDL), and HostFactor's of
                             # M with delta


class Preconditioner:
    """What every device's has: `L` (a float32 factor the host substitutes with), `F` (a float64
    factor with its own solve), `overflowed` (the float32 factor is not finite: the solves go to
    the float64 factor).  `factor(ds, s, delta, floor_rel)` with delta in M~'s units."""

    def __init__(self, watch=None):
        self.watch = watch
        self.clear()

    def clear(self) -> None:
        self.L = self.F = None
        self.overflowed = False

    def diagonal_with_delta(self) -> bool:
        """Whether S is M's own diagonal (delta's part included) rather than A D A^T's."""
        return False

    @property
    def whole(self) -> bool:
        """Whether this factorization's factor is the float64 factor of M~ itself, delta included
        (the last resort would factor the same matrix again: it is not made)."""
        return False

    def apply(self, rs: np.ndarray):
        """The factor's solve of rs (scaled to numbers near 1), float64; None: no finite one."""
        if self.L is not None:
            return self._substitute(rs)
        if self.F is not None:
            return self.F.solve(rs)
        return None

    def _substitute(self, rs):
        t0 = time.perf_counter()
        L = self.L
        y = sla.solve_triangular(L, rs.astype(L.dtype), lower=True, check_finite=False)
        out = sla.solve_triangular(L, y, lower=True, trans=1, check_finite=False).astype(np.float64)
        if self.watch is not None:
            self.watch.seconds["substitute"] += time.perf_counter() - t0
        return out


class GPUPreconditioner(Preconditioner):
    """The method's normal system: S A uploaded (update_matrix) or the rows' scaling passed to
    factor (takes_row_scale, in float64 where the system keeps A's low parts)."""

    def __init__(self, system, forms, watch, substitution: str):
        self.system, self.forms, self.substitution = system, forms, substitution
        super().__init__(watch)

    def factor(self, ds, s, delta, floor_rel) -> None:
        self.clear()
        system = self.system
        d32 = np.where(ds < 1e-37, 0.0, ds).astype(np.float32)
        try:
            if system.takes_row_scale:
                scale = s if system.keeps_low_part else s.astype(np.float32)
                system.factor(d32, pivot_floor=floor_rel, regularize=True, row_scale=scale)
            else:
                with self.watch("transfer") if self.watch is not None else nullcontext():
                    system.update_matrix(self.forms.scaled_dense(s))
                system.factor(d32, pivot_floor=floor_rel, regularize=True)
        except np.linalg.LinAlgError:
            # a pivot float32 cannot hold (overflow: the tiled factor names it, a staircase
            # LP of 15,000 rows under compute): as an overflowed L -- the float64 factor's solves
            self.overflowed = True
        if self.substitution == "host" and not self.overflowed:
            L = system.lower()
            if np.isfinite(L).all():
                # column-major for LAPACK: solving through L's transpose (row-oriented) instead
                # rounds differently and cost cycle 32 iterations (experiments/lp_host_substitution.py)
                self.L = fortran_copy(L)
            else:                       # float32 overflowed: no substitution with it is finite,
                self.overflowed = True      # here or on the GPU -- the float64 factor's solves

    def apply(self, rs):
        if self.L is not None:
            return self._substitute(rs)
        if self.overflowed:
            return None
        return self.system.solve(rs, "substitute")       # GPU part, inside "refine"


class HostFloat32Preconditioner(Preconditioner):
    """device="cpu32": M~ formed on the host, LAPACK's Cholesky in float32."""

    def __init__(self, forms, watch=None):
        self.forms = forms
        super().__init__(watch)

    def factor(self, ds, s, delta, floor_rel) -> None:
        self.clear()
        M = self.forms.scaled_normal(ds, s)
        with factor_blas():             # the solve's BLAS threads for its factorizations (blas_solve)
            self.L = _regularized_cholesky((M.toarray() if sp.issparse(M) else M).astype(np.float32), floor_rel)


class HostFloat64Preconditioner(Preconditioner):
    """device="cpu64": the float64 factor of M~ + delta I, by the ladder (ladder.py): qdldl's on
    the pattern where there is one (S then includes delta: the factor the last resort would
    make), else M~ formed and factored by HostFactor (or the GPU's float64 one)."""

    def __init__(self, forms, ladder, watch=None):
        self.forms, self.ladder = forms, ladder
        super().__init__(watch)

    def diagonal_with_delta(self) -> bool:
        # the qdldl factor of M scaled by M's own diagonal (delta's part included): the one the last
        # resort would make, so none is made again; scaled by A D A^T's alone, rows that delta
        # dominates got the shift out of proportion and solves missed their tol
        return self.ladder.sparse_pattern() is not None

    def factor(self, ds, s, delta, floor_rel) -> None:
        self.clear()
        if self.ladder.sparse_pattern() is not None:
            P = self.ladder.pattern                 # S (A D A^T) S's triangle on the pattern
            # with delta (in the scaled units): the factor of the very M the solves are for
            self.F = self.ladder.pattern_factor("pre", P.scale(P.data(ds, delta), s), FLOAT64_FLOOR)
            return
        M = self.forms.scaled_normal(ds, s)
        # with delta (S^2 delta in these units), as the pattern's factor: the factor of the very M
        # the solves are for (without it dfl001 took 6,729 PCG iterations)
        if delta > 0:
            if sp.issparse(M):
                M = (M + sp.diags(s ** 2 * delta)).tocsc()
            else:
                M[np.diag_indices(M.shape[0])] += s ** 2 * delta
        self.F = self.ladder.float64_factor(M, FLOAT64_FLOOR)

    @property
    def whole(self) -> bool:
        return self.F is not None
