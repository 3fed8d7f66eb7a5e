"""The methods' contract: the operations every implementation (`method=`) offers.

`paper.PaperMethod` (the papers' kernels), `blocked.BlockedMethod` (the
register-blocked fragment kernels) and `compute.ComputeMethod` (GL compute shaders)
implement every operation below with exactly these signatures;
`tests/architecture/test_contract.py` compares them and fails on drift.  The public
functions (api.py) and the solvers call them through the object
`dispatch.implementation(name)` returns.  What the operations that keep state on the
GPU return is declared too (NormalSystem, FrontStore and the FrontSpec it takes, at the
end); `tests/architecture/test_returned.py` builds each method's and checks them.

Inputs are already validated float32 numpy arrays (api.py / the solvers check
them); `ctx` is a current `gl.Context`.  An implementation that lacks a form
(e.g. the blocked path has no packed Cholesky) raises ValueError; dispatch.choose
refuses such a request first and "auto" never picks it.

A fourth method is one more package with a class like these and one line in
dispatch.IMPLEMENTATIONS.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

#: the Cholesky variants a method may offer (`variant=`): Algorithm 5's outer product, the
#: outer product with index triads, the 2006 paper's inner product (Algorithm 1); the
#: blocked and compute methods run "outer" only
CHOLESKY_VARIANTS = ("outer", "triad", "inner")
#: the kernel functions every method's kernel_matrix / kernel_factor offers (`kernel=`), each
#: with the number its shaders' u_kind uniform takes (shaders/*/kernel_*.frag, .comp)
KERNELS = {"linear": 0, "poly": 1, "rbf": 2}


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

    def qr_raw(self, A: np.ndarray, *, ctx, amax: float | None = None):
        """(F, tau): Householder QR in LAPACK geqrf's layout.  amax: max |A|, where the
        caller's checks found it (a method may then skip its own pass for the scaling)."""

    def apply_q(self, F: np.ndarray, tau: np.ndarray, C: np.ndarray, *, trans: bool, ctx) -> np.ndarray:
        """Q C (or Q^T C) for Q held as (F, tau)."""

    def qr_batched(self, mats: list, *, ctx, stairs=None) -> list:
        """[(F, tau), ...] of many matrices factored by the same draws.  stairs: None, or
        per matrix None or its rows' leftmost nonzero columns, non-decreasing (a
        staircase, the sparse QR's fronts): a panel then skips the rows no column up to
        its end reaches -- their updates are exact zeros, so the results are the same.
        A hint (the paper's kernels factor every row; blocked and compute use it)."""

    def sparse_fronts(self, *, ctx) -> FrontStore | None:
        """A sparse QR's fronts assembled, factored and kept on the GPU (a FrontStore, below;
        solvers/sparse_fronts.py drives it), or None where the method has no such store (the
        fronts are then assembled on the host and go to qr_batched): compute/fronts.py by
        dispatches; blocked/ and paper/fronts.py by draws (methods/fronts.py)."""

    def tile_kernels(self, ctx, *, variant: str):
        """The method's tile operations on ctx (glgpgpu.tiled's TileKernels: potrf, trsm,
        update, upload, read): what the one-process tile algorithms and glgpgpu.distributed
        run, so the two give the same bits."""

    # -- objects that keep a factor on the GPU between calls ------------------------------
    def normal_system(self, A: np.ndarray, *, packed: bool, variant: str, ctx, watch) -> NormalSystem:
        """A uploaded once; `.factor(d)` per weight vector, `.solve(r)` float64 out (the LP solver):
        a NormalSystem, below."""

    def normal_factor(self, A: np.ndarray, d: np.ndarray, *, packed: bool, ctx, watch) -> NormalSystem:
        """The factor of A diag(d) A^T for one weight vector (weighted least squares): a
        NormalSystem already factored."""

    def resident_normal(self, V, A_tex, A_host, *, packed: bool, variant: str):
        """A, d2 and right-hand sides already in textures (the all-float32 LP solver)."""

    def kernel_factor(self, X: np.ndarray, *, kernel: str, gamma: float, degree: int, coef0: float,
                      diag: float, packed: bool, ctx, watch) -> KernelFactor:
        """K + diag I formed and factored on the GPU; `.solve(R)` (LS-SVM training)."""

    def qr_factor(self, A: np.ndarray, *, ctx, watch) -> QRFactor:
        """A = QR kept on the GPU; `.q(y)`, `.solve_r(y)` (least squares by QR)."""


#: the operations, in the order above (what the contract test checks)
OPERATIONS = tuple(n for n, v in vars(Method).items() if callable(v) and not n.startswith("_"))


# -- what the operations return ------------------------------------------------------------
@runtime_checkable
class NormalSystem(Protocol):
    """What `normal_system` returns: A D A^T for a fixed A, factored in float32 per weight vector
    (the mixed-precision LP solver, solvers/lp/mixed/).  The features a system may lack are flags
    whose defaults (off) sit on methods.resident.NormalSystemBase, which every system derives
    from: the solver reads the flags, it never probes for methods."""

    m: int
    n: int
    #: factor(row_scale=s) forms S A D A^T S itself (else the solver uploads S A: update_matrix)
    takes_row_scale: bool
    #: how A D A^T is formed: "dense", "points", "points+dense" (the LP's stats)
    assembly_name: str
    #: keep_low_part(A - float32(A)) makes the row scaling round each entry once (compute)
    keeps_low_part: bool
    #: lower() reads the float32 factor back (else the solves stay on the GPU: solve())
    reads_lower: bool
    #: float64_factor / float64_places factor M in float64 on the GPU (compute, one buffer)
    float64_normal: bool

    def factor(self, d32: np.ndarray, *, pivot_floor: float | None = None, regularize: bool = False,
               row_scale: np.ndarray | None = None) -> np.ndarray:
        """Form and factor A diag(d32) A^T (S A diag(d32) A^T S with row_scale = S's diagonal,
        where takes_row_scale); returns the pivots (L's diagonal)."""

    def update_matrix(self, A32: np.ndarray) -> None:
        """A new A of the same shape (a system that does not take the rows' scaling)."""

    def solve(self, rhs: np.ndarray, phase: str = "solve") -> np.ndarray:
        """x with L L^T x = rhs against the float32 factor, float64 out."""

    def lower(self) -> np.ndarray:
        """The float32 factor L read back (reads_lower)."""

    def keep_low_part(self, A_lo32) -> None:
        """A's float64 values as A + A_lo (keeps_low_part)."""

    def float64_factor(self, M, places=None, *, sums=None):
        """M's Cholesky factor in float64 on the GPU, kept for solves (float64_normal)."""

    def float64_places(self, rows: np.ndarray, cols: np.ndarray, order=None, sums=None):
        """A fixed pattern of M's entries uploaded once (float64_normal)."""

    def release(self) -> None:
        """Everything back to the pool (safe twice)."""


@runtime_checkable
class KernelFactor(Protocol):
    """What `kernel_factor` returns: L L^T = K + diag I kept on the GPU (LS-SVM training)."""

    def solve(self, R: np.ndarray) -> np.ndarray:
        """X with (K + diag I) X = R, R (N,) or (N, k); float64 out."""

    def release(self) -> None:
        """Everything back to the pool (safe twice)."""


@runtime_checkable
class QRFactor(Protocol):
    """What `qr_factor` returns: A = Q R kept on the GPU (least squares by QR)."""

    def q(self, y: np.ndarray, *, trans: bool = False) -> np.ndarray:
        """Q y (Q^T y with trans)."""

    def solve_r(self, y: np.ndarray, *, trans: bool = False) -> np.ndarray:
        """R^-1 y (R^-T y with trans)."""

    def release(self) -> None:
        """Everything back to the pool (safe twice)."""


@dataclass(frozen=True)
class FrontSpec:
    """One front of a sparse QR round, as the solver hands it to a FrontStore (Yeralan et al.
    2015, section 3.3: S-assembly from A's rows, the children's blocks through their maps)."""

    f: int                      # the front (postorder index)
    m: int                      # its rows
    n: int                      # its columns
    scale: float                # its power of two (section 3.3 is unscaled: an exact change of units)
    rows: np.ndarray            # its own entries of A, unscaled: front rows,
    cols: np.ndarray            # front columns,
    vals: np.ndarray            # values
    children: list              # [(child, prow, pcol)]: prow[r] the parent row of the child block's
                                # row r (-1: none), pcol its columns' parent columns
    leftmost: np.ndarray | None     # each row's leftmost column (the staircase), or None
    fr: int                     # pivot rows: R's rows of this front
    fp: int                     # pivot columns
    cm: int                     # contribution block rows (kept for the parent)


@runtime_checkable
class FrontStore(Protocol):
    """What `sparse_fronts` returns: one factorization's fronts on the GPU, round by round."""

    #: columns a launch factors in every front of an atlas in lockstep (the drawing stores: the
    #: solver then groups rounds by launches), or None (compute: rounds as soon as possible)
    panel: int | None

    def row_limit(self, n: int) -> int | None:
        """The most rows an n-column front can have here (None: no limit)."""

    def round(self, fronts: list) -> list:
        """Assemble and factor each FrontSpec of a round; each one's R rows (fr x n, float32,
        unscaled), in order.  The contribution blocks stay in the store for the parents."""

    def pull(self) -> None:
        """A stage ends: the waiting blocks to the host (their GPU memory back)."""

    def fetch(self, c: int) -> np.ndarray:
        """Front c's contribution block, unscaled, on the host (and out of the store)."""

    def put(self, f: int, block: np.ndarray, scale: float) -> None:
        """Front f's contribution block from the host, to be gathered by its parent."""

    def release(self) -> None:
        """Everything back to the pool (safe twice)."""
