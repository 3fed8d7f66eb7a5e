"""The methods' contract: the operations every implementation (`method=`) offers.

`paper.PaperMethod` (the papers' kernels) and `blocked.BlockedMethod` (the
register-blocked fragment kernels) implement every operation below with exactly
these signatures; `tests/architecture/test_contract.py` compares them and fails
on drift.  The public functions (api.py) and the solvers call them through the
object `dispatch.implementation(name)` returns.

Inputs are already validated float32 numpy arrays (api.py / the solvers check
them); `ctx` is a current `gl.Context`.  An implementation that lacks a form
(e.g. the blocked path has no packed Cholesky) raises ValueError; dispatch.choose
refuses such a request first and "auto" never picks it.

A third method is one more package with a class like these and one line in
dispatch.IMPLEMENTATIONS.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

#: the Cholesky variants a method may offer (`variant=`): Algorithm 5's outer product, the
#: outer product with index triads, the 2006 paper's inner product (Algorithm 1); the
#: blocked and compute methods run "outer" only
CHOLESKY_VARIANTS = ("outer", "triad", "inner")


@runtime_checkable
class Method(Protocol):
    """What `dispatch.implementation(name)` returns."""

    #: the method's name, as `method=` spells it
    name: str
    #: whether normal_system's object also factors A D A^T in float64 on the GPU (`float64_factor`):
    #: the LP then sends smaller problems to the GPU (solvers/lp/mixed/device.py)
    float64_normal: bool

    # -- dense operations: numpy in, numpy out --------------------------------------------
    def adat(self, A: np.ndarray, d2: np.ndarray, *, packed: bool, ctx) -> np.ndarray:
        """C = A diag(d2) A^T, float32 (m, m), lower triangle filled, upper zero."""

    def cholesky(self, C: np.ndarray, *, packed: bool, variant: str, ctx) -> np.ndarray:
        """L with L L^T = C (lower triangle of C read); NotPositiveDefiniteError names the pivot."""

    def solve(self, L: np.ndarray, B: np.ndarray, steps, *, packed: bool, ctx) -> np.ndarray:
        """The substitutions `steps` (False: L Y = B, True: L^T X = Y) on B (m, nrhs)."""

    def kernel_matrix(self, X: np.ndarray, *, kernel: str, gamma: float, degree: int, coef0: float,
                      packed: bool, ctx) -> np.ndarray:
        """K(i, j) = k(x_i, x_j) for the rows of X, lower triangle."""

    def qr_raw(self, A: np.ndarray, *, ctx):
        """(F, tau): Householder QR in LAPACK geqrf's layout."""

    def apply_q(self, F: np.ndarray, tau: np.ndarray, C: np.ndarray, *, trans: bool, ctx) -> np.ndarray:
        """Q C (or Q^T C) for Q held as (F, tau)."""

    def qr_batched(self, mats: list, *, ctx, stairs=None) -> list:
        """[(F, tau), ...] of many matrices factored by the same draws.  stairs: None, or
        per matrix None or its rows' leftmost nonzero columns, non-decreasing (a
        staircase, the sparse QR's fronts): a panel then skips the rows no column up to
        its end reaches -- their updates are exact zeros, so the results are the same.
        A hint (the paper's kernels factor every row; blocked and compute use it)."""

    def sparse_fronts(self, *, ctx):
        """A sparse QR's fronts assembled, factored and kept on the GPU (`.round(fronts)`,
        `.pull()`, `.release()`; solvers/sparse_qr.py), or None where the method has no
        such store (the fronts are then assembled on the host and go to qr_batched):
        compute/fronts.py by dispatches; blocked/ and paper/fronts.py by draws (methods/fronts.py)."""

    def tile_kernels(self, ctx, *, variant: str):
        """The method's tile operations on ctx (glgpgpu.tiled's TileKernels: potrf, trsm,
        update, upload, read): what the one-process tile algorithms and glgpgpu.distributed
        run, so the two give the same bits."""

    # -- objects that keep a factor on the GPU between calls ------------------------------
    def normal_system(self, A: np.ndarray, *, packed: bool, variant: str, ctx, watch):
        """A uploaded once; `.factor(d)` per weight vector, `.solve(r)` float64 out (the LP solver)."""

    def normal_factor(self, A: np.ndarray, d: np.ndarray, *, packed: bool, ctx, watch):
        """The factor of A diag(d) A^T for one weight vector (weighted least squares)."""

    def resident_normal(self, V, A_tex, A_host, *, packed: bool, variant: str):
        """A, d2 and right-hand sides already in textures (the all-float32 LP solver)."""

    def kernel_factor(self, X: np.ndarray, *, kernel: str, gamma: float, degree: int, coef0: float,
                      diag: float, packed: bool, ctx, watch):
        """K + diag I formed and factored on the GPU; `.solve(R)` (LS-SVM training)."""

    def qr_factor(self, A: np.ndarray, *, ctx, watch):
        """A = QR kept on the GPU; `.q(y)`, `.solve_r(y)` (least squares by QR)."""


#: the operations, in the order above (what the contract test checks)
OPERATIONS = tuple(n for n, v in vars(Method).items() if callable(v) and not n.startswith("_"))
