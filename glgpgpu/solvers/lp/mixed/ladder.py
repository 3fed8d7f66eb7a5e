"""The float64 factors of the normal matrix M = A D A^T + delta I, their ladder written once.

`factor_of_m` is the solves' last resort and the exact mode's factor; its rungs, in order:

  1. the GPU's float64 factor on a pattern of A made once (the compute method's
     `float64_places`: M's entries summed on the GPU from d, or scattered from the host);
  2. qdldl's LDL^T on that pattern (device="cpu64": `sparse_pattern`);
  3. M formed -- dense or sparse (forms.ConstraintForms) -- and factored by `float64_factor`:
     the GPU's dense float64 factor where it pays (GPU_FLOAT64_ROWS, GPU_FLOAT64_FLOPS),
     else the host's HostFactor (multifrontal, qdldl or LAPACK by its analysis).

The same rungs give device="cpu64" its per-iteration factor (preconditioner.py) and decide
whether every solve should take the float64 factor from the start (`throughout`).
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from ....errors import GLResourceError, ShaderCompileError
from ....symbolic import colamd_available
from ...sparse_cholesky import CholeskyAnalysis, qdldl_module
from ....parallel import factor_blas
from .host_factor import DENSE_FILL, LDL_FLOPS, MULTIFRONTAL_FLOPS, SPARSE_SHARE, HostFactor, SparseLDL, shifted
from .normal_pattern import NormalPattern
from .product_form import ProductFormLDL

_UNSET = object()
#: the GPU's float64 factor (where the system has one: method="compute") is taken for M of
#: at least this order (four tiles) whose factor takes at least GPU_FLOAT64_FLOPS (the analysis's
#: count; device.GPU_FLOAT64_HOST_FLOPS's line, in that count) -- every factorization from the
#: first (`throughout`); below, the float32 factor with its refinement
GPU_FLOAT64_ROWS = 256
GPU_FLOAT64_FLOPS = 8e6
#: from this order on, the symbolic analysis (COLAMD, its flop count) decides the float64 factor's
#: kind before any is made; below, qdldl's on the pattern first (its own count can still turn it)
ANALYSIS_ROWS = 1000


def _plus_shift(M, shift: float):
    """M + shift I, M scipy.sparse or a dense array (a new one either way)."""
    if sp.issparse(M):
        return M + shift * sp.eye(M.shape[0], format="csc")
    W = M.copy()
    W[np.diag_indices(M.shape[0])] += shift
    return W


class Float64Ladder:
    """The float64 factors of one problem's M: the symbolic analysis, the pattern and the
    GPU's places are made once and kept here.  stats: the solver's counters (factor kinds);
    lost(): called when the driver turns out to have no float64 kernels."""

    def __init__(self, forms, system, device: str, stats: dict, *, pattern=None, counted=float("nan"), ldl=None,
                 lost=None):
        self.forms, self.system, self.device, self.stats = forms, system, device, stats
        self.m = forms.m
        self.lost = lost
        self._symbolic = _UNSET             # the CholeskyAnalysis of A D A^T, made when first needed
        self._no_gpu_float64 = False        # set when the driver could not build the float64 kernels
        self.pattern = _UNSET               # NormalPattern: the float64 factors are qdldl's on it (None: not)
        self._made_pattern = pattern
        self._counted = counted
        self._ldl = {} if ldl is None or ldl.pattern is not pattern else {"pre": ldl}
        self.product_form = False           # the pattern's factors in product form (product_form.py), not bordered
                                            # SparseLDL by use ("pre": cpu64's per-iteration factor, "host")
        self._gpu_pattern = _UNSET          # (NormalPattern, EntryPlaces): the GPU's float64 factor's M
        self._diagonal_sums = None          # the pattern's W at M's diagonal (the GPU sums M: its scaling)

    # -- the last resort -----------------------------------------------------------------
    def factor_of_m(self, d: np.ndarray, delta: float):
        """(a float64 factor of M scaled to a unit diagonal, M's diagonal^1/2): the first rung
        of the module's ladder that gives one."""
        if self.device == "gpu":
            F = self.gpu_pattern_factor(d, delta)
            if F is not None:
                return F
        if self.sparse_pattern() is not None:
            P = self.pattern
            data = P.data(d, delta)
            s = np.sqrt(np.maximum(self.forms.diagonal(d) + delta, 1e-300))     # M's diagonal
            return self.pattern_factor("host", P.scale(data, 1.0 / s), 1e-14), s
        M = self.forms.normal(d, delta)
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
        return self.float64_factor(M, 1e-14), s

    # -- the rungs -----------------------------------------------------------------------
    def float64_factor(self, M, floor: float):
        """The float64 factor of M (A D A^T's pattern), counted by kind in stats: the
        GPU's (`float64_factor`) where the system has one and it pays (GPU_FLOAT64_ROWS),
        else HostFactor.  The symbolic analysis is made once per problem (needs COLAMD;
        none where it is missing or M is too dense to be worth it)."""
        if self._gpu_float64_pays(sp.issparse(M) and M.nnz <= SPARSE_SHARE * self.m * self.m):
            gpu = self.gpu_float64()
            F = self._on_gpu(lambda shift: gpu(_plus_shift(M, shift)), float(M.diagonal().max(initial=0)), floor)
            if F is not None:
                return F
        with factor_blas():                # the solve's BLAS threads for its factorizations (blas_solve)
            F = HostFactor(M, floor, self._symbolic)
        self.stats["host_factor_" + F.kind] += 1
        return F

    def gpu_pattern_factor(self, d: np.ndarray, delta: float):
        """(the GPU's float64 factor, M's diagonal^1/2) with M formed on a NormalPattern of A
        made once (no border: M itself) and scattered into the factor through places uploaded
        once, permuted by the analysis where there is one.  The values are one sum a
        factorization, where a sparse product, its triangle and conversions cost maros-r7 1.1 s
        on the H100's host (benchmarks/RESULTS.md).  None where there is no such pattern or
        factor (then M is formed as a sparse product)."""
        if self._gpu_pattern is _UNSET:
            self._gpu_pattern = self._gpu_places()
        if self._gpu_pattern is None or self.gpu_float64() is None:
            return None
        P, places = self._gpu_pattern
        gpu = self.gpu_float64()
        if places.sums:
            self.stats["gpu_sums"] = True       # M's entries summed on the GPU (normal_entries.comp)
            # M's diagonal as the GPU forms it: the same sums (W's diagonal rows), delta after
            if self._diagonal_sums is None:
                self._diagonal_sums = P.sums[P.diagonal_at]
            diag = self._diagonal_sums @ d
            diag += delta
        else:
            data = P.data(d, delta)
            diag = data[P.diagonal_at]
        s = np.sqrt(np.maximum(diag, 1e-300))                     # M's diagonal, as formed
        inv = 1.0 / s
        if places.sums:
            top = float((diag * inv * inv).max(initial=0))        # the scaled diagonal, as the GPU rounds it

            def factor(shift):
                return gpu(None, places, sums=(d, inv, delta, shift))
        else:
            P.scale(data, inv)
            top = float(data[P.diagonal_at].max(initial=0))

            def factor(shift):
                w = data.copy()
                w[P.diagonal_at] += shift
                return gpu(w, places)
        F = self._on_gpu(factor, top, 1e-14)
        return None if F is None else (F, s)

    def _gpu_places(self):
        """(NormalPattern, EntryPlaces) for the GPU's float64 factor, or None: no such factor,
        M dense, no usable pattern, or a factor too small to pay."""
        made = self._made_pattern          # device="auto"'s, where it has no border: M's own
        if made is not None and made.long.size:
            made = None
        if self.forms.dense or self.gpu_float64() is None or (
                made is None and not NormalPattern.usable(self.forms.A, border=False)):
            return None
        P = made or NormalPattern(self.forms.A, border=False)
        if not self._gpu_float64_pays(P.full_nnz <= SPARSE_SHARE * self.m * self.m):
            return None
        # the pattern's upper triangle by columns is M's lower one by rows: (col, row);
        # in the analysis's order (COLAMD) where there is one, whose zero tiles the
        # factor skips (dfl001: 18% of a dense factor's tile updates)
        # with the pairs' products (W) kept there too where they fit: the GPU sums M's
        # entries from d, and only d travels (normal_entries.comp)
        for sums in (P.sums, None):
            try:
                return P, self.system.float64_places(P.col_of, P.row_of, self._symbolic, sums=sums)
            except (ValueError, GLResourceError, MemoryError):
                pass            # past int32, or no room on the GPU: without W, or the sparse product's way
        return None

    def sparse_pattern(self):
        """The NormalPattern when the float64 factors are qdldl's on it (SparseLDL), else None,
        decided at the first call: device="cpu64", qdldl installed, M sparse, and no multifrontal
        factor due (decided by device="auto"'s qdldl count where there is one, else by the analysis
        from ANALYSIS_ROWS on; below, or for a bordered M, by qdldl's own flop count after its first
        factorization, `pattern_factor`)."""
        if self.pattern is _UNSET:
            self.pattern = None
            # device="cpu64" only: as the GPU path's last resort (new rounding, the reused ordering)
            # it cost greenbea its optimum under the blocked method (stalled 1e-3 off); that path
            # keeps HostFactor's factor, made afresh each time
            if self.device == "cpu64" and qdldl_module() is not None and not self.forms.dense and (
                    self._made_pattern is not None or NormalPattern.usable(self.forms.A)):
                P = self._made_pattern or NormalPattern(self.forms.A)
                if P.full_nnz > SPARSE_SHARE * self.m * self.m or (
                        not P.long.size and self._counted >= DENSE_FILL * self.m ** 3 / 3.0):
                    self.forms.dense = True         # or its factor fills: LAPACK's dense one (HostFactor)
                elif self.m < ANALYSIS_ROWS or P.long.size or self._counted < LDL_FLOPS:
                    # (a bordered M: the analysis counts A's long columns as dense, qdldl's own count
                    # decides; device="auto"'s count is qdldl's already: no analysis needed)
                    self.pattern = P
                else:
                    sym = self.analysis(True)
                    if sym is None or sym.flops < MULTIFRONTAL_FLOPS:
                        self.pattern = P
        return self.pattern

    def pattern_factor(self, use: str, data: np.ndarray, floor: float):
        """qdldl's factor of the M whose triangle is `data`, counted as a sparse host factor;
        one whose L takes LDL_FLOPS or more ends the pattern's use (the next factorizations
        go HostFactor's way: multifrontal or the GPU's)."""
        F = self._ldl.get(use)
        if F is None:
            F = self._ldl[use] = (ProductFormLDL if self.product_form else SparseLDL)(self.pattern)
        try:
            F.factor(data, floor)
        except np.linalg.LinAlgError:       # not positive definite at any shift: HostFactor's dense way
            K = self.pattern.matrix(data)
            K = (K + sp.triu(K, 1).T).tocsc()
            m = self.m                      # bordered: M = K11 + K12 K12^T (K22 = -I)
            M = K[:m, :m] + K[:m, m:] @ K[:m, m:].T if K.shape[0] > m else K
            return self.float64_factor(sp.csc_matrix(M), floor)
        self.stats["host_factor_sparse"] += 1
        if F.flops >= LDL_FLOPS:
            self.pattern = None
            self._ldl = {}
        return F

    def bordered(self) -> bool:
        """Whether device="cpu64" factors M through a pattern with long columns as a border."""
        return self.device == "cpu64" and self.pattern is not _UNSET and self.pattern is not None and \
            bool(self.pattern.long.size)

    def to_product_form(self) -> None:
        """The pattern's factors from now on in product form (ProductFormLDL: K11's LDL^T and one
        stable rank-one update a long column), not the bordered quasi-definite LDL^T whose solves
        lose their accuracy where the long columns' weights span many orders."""
        self.product_form, self._ldl = True, {}

    def unborder(self) -> None:
        """No pattern from now on: M formed and factored whole (rung 3).  For a problem the
        bordered factor's solves failed on: its quasi-definite LDL^T loses accuracy where the long
        columns' weights span many orders (quantile regression's split coefficients).  Where a
        long column alone fills more than SPARSE_SHARE of M, M is formed dense from the start
        (not first by the sparse product that would find it so: 0.8 s at 4,980 rows)."""
        P = self.pattern
        if P not in (None, _UNSET) and P.long.size:
            longest = int(np.bincount(P.v_long).max(initial=0))
            if longest * longest > SPARSE_SHARE * self.m * self.m:
                self.forms.dense = True
        self.pattern, self._ldl, self._made_pattern = None, {}, None

    # -- what decides --------------------------------------------------------------------
    def throughout(self) -> bool:
        """Whether every solve should take the float64 factor from the start: where the GPU
        factors M in float64 itself (the compute method, from GPU_FLOAT64_ROWS rows and
        GPU_FLOAT64_FLOPS), or device="cpu64"'s factor is the multifrontal one."""
        if self.device == "cpu64":
            return self._multifrontal_direct()
        if self.device != "gpu" or self.m < GPU_FLOAT64_ROWS or self.gpu_float64() is None:
            return False
        sym = self.analysis(True)
        return sym is None or sym.flops >= GPU_FLOAT64_FLOPS

    def _multifrontal_direct(self) -> bool:
        """device="cpu64" whose per-iteration factor would be the multifrontal one (no pattern,
        M sparse, the analysis at MULTIFRONTAL_FLOPS or more): its solves are then one each by
        the float64 factor of M scaled by M's own diagonal (the exact mode's), not
        refinement and PCG with a factor scaled by A D A^T's diagonal alone, whose shift is
        relative to the rows delta dominates (dfl001 on the CPU machine: 11.7 -> 8.0 s, 40
        iterations either way; benchmarks/RESULTS.md)."""
        if self.sparse_pattern() is not None or self.forms.dense or self.m ** 3 / 3.0 < MULTIFRONTAL_FLOPS:
            return False                # (no factor of M takes more flops than the dense one: no analysis)
        sym = self.analysis(True)
        return sym is not None and sym.flops >= MULTIFRONTAL_FLOPS

    def _gpu_float64_pays(self, sparse: bool) -> bool:
        """Whether M's float64 factor is the GPU's: the system has one, M has GPU_FLOAT64_ROWS
        rows or more, and the analysis (made here once per problem) counts GPU_FLOAT64_FLOPS or
        more, or there is none (M dense, no COLAMD)."""
        self.analysis(sparse)
        return self.gpu_float64() is not None and self.m >= GPU_FLOAT64_ROWS and (
            self._symbolic is None or self._symbolic.flops >= GPU_FLOAT64_FLOPS)

    def analysis(self, sparse: bool):
        """The CholeskyAnalysis of A D A^T, made at the first call (None: M dense, or no COLAMD)."""
        if self._symbolic is _UNSET:
            self._symbolic = CholeskyAnalysis.of(self.forms.A) if sparse and colamd_available() else None
        return self._symbolic

    def gpu_float64(self):
        """The system's float64 factor (a callable), or None: none, or the driver lacks it."""
        if self._no_gpu_float64 or self.system is None or not self.system.float64_normal:
            return None
        return self.system.float64_factor

    def _on_gpu(self, factor, top: float, floor: float):
        """factor(shift), shifted as HostFactor's are, counted; None where M is not positive
        definite at any shift tried, over the buffer limit, or the driver has no float64 kernels."""
        try:
            F = shifted(factor, top, floor)
        except (np.linalg.LinAlgError, ValueError):
            return None
        except ShaderCompileError as exc:          # a driver without float64 kernels: the host's
            warnings.warn(f"the GPU's float64 factor is unavailable, the host factors instead: {exc}",
                          RuntimeWarning, stacklevel=4)
            self._no_gpu_float64 = True
            if self.lost is not None:
                self.lost()
            return None
        self.stats["gpu_factor_float64"] += 1
        return F

    def release(self) -> None:
        self.pattern, self._ldl, self._made_pattern = _UNSET, {}, None
        if self._gpu_pattern not in (None, _UNSET):
            self._gpu_pattern[1].give()
        self._gpu_pattern = _UNSET
