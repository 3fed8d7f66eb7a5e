"""The bordered normal system of the columns F whose Newton step the proximal term throttles
(their true D_j = x_j/z_j far above the 1/(z_j/x_j + rho) that M carries; greenbea's nearly
antiparallel column pairs must grow to x ~ 1e10): the excess E = D_true - D comes back
through the border -- the dense-column technique -- while M itself stays as it was:

    [ M      A_F   ] [ dy ]   [ r1 ]
    [ A_F^T  -E^-1 ] [ v  ] = [ r2 ]

solved by its |F| x |F| Schur complement through A_F = Q R (normal.MixedNormal.newton)."""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla

SOLVE_TOL_BORDER = 1e-13      # the border's columns M^-1 Q: solved once per factorization, tightly


class Border:
    """One factorization's border: columns `cols` of A with their excess weights."""

    def __init__(self, cols: np.ndarray, excess: np.ndarray):
        self.cols, self.excess = cols, excess
        self._Q = self._R = self._MQ = self._K = None

    def factor(self, A, solve) -> bool:
        """A_F = Q R (thin QR) and G = Q^T M^-1 Q (solve: M^-1 r to a tol): the Schur complement
        of the bordered system is R^T (G + R^-T E^-1 R^-1) R.  Working through R keeps the
        near-dependence of A_F's columns (greenbea's pairs are antiparallel to 1e-5) explicit
        in R instead of cancelling inside A_F^T M^-1 A_F.  False where the columns are dependent
        or the Schur complement singular: the step then goes without the border."""
        Q, R = np.linalg.qr(A[:, self.cols].toarray())
        try:
            if not np.all(np.abs(np.diag(R)) > 0):
                raise np.linalg.LinAlgError("dependent border columns")
            # M^-1 Q is often far from SOLVE_TOL_BORDER late in the solve (M nearly
            # singular along Q); skipping the border then was tried and loses greenbea.
            # Its error goes to the primal side, which newton's corrections take out.
            MQ = np.column_stack([solve(Q[:, k], tol=SOLVE_TOL_BORDER) for k in range(Q.shape[1])])
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
        except (np.linalg.LinAlgError, ValueError):
            return False
        self._Q, self._R, self._MQ, self._K = Q, R, MQ, lu
        return True

    def solve(self, r1, r2, solve, tol):
        """[M A_F; A_F^T -E^-1] [dy; v] = [r1; r2], through u = R v:
        (G + R^-T E^-1 R^-1) u = Q^T M^-1 r1 - R^-T r2,  dy = M^-1 r1 - (M^-1 Q) u."""
        Q, R = self._Q, self._R
        g = solve(r1, tol=tol)
        e = Q.T @ g - sla.solve_triangular(R, r2, trans="T", check_finite=False)
        u = sla.lu_solve(self._K, e, check_finite=False)
        return g - self._MQ @ u, sla.solve_triangular(R, u, check_finite=False)
