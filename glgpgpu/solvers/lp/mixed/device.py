"""device="auto": where one problem's normal equations are factored.

On the host in float64 (device="cpu64": qdldl's LDL^T on the problem's NormalPattern, or
LAPACK for a dense M) or on the GPU in float32 with its float64 refinement.  A GPU
iteration has a fixed cost -- launches, the read-back of L, refinement and PCG with a
float32 factor -- that a small factorization does not repay: on the H100 the host's
whole solve was the quicker one on 52-62 of the 67 NETLIB problems whose factor takes
under 10^7 flops, about even up to HOST_FLOPS, and the GPU's far ahead past 10^8
(benchmarks/RESULTS.md, "the host's float64 factor where it is the quicker").  The
count is the factor's own: the presolve's LDL^T of A A^T where its rank check made one, else
one on the pattern (milliseconds at these sizes; the host path then keeps the pattern), or
m^3/3 for a dense M -- or the symbolic analysis's (`fills`) where that says the factor fills
(the host's is then LAPACK's dense one, and a qdldl factor made only to count it a waste).  Past COUNT_ROWS
rows a factorization could take seconds, so the count is the presolve's (its rank check
factors A A^T with qdldl already), or else the symbolic analysis's (COLAMD, the multifrontal
factor's fronts: its cost grows with A's nonzeros, not with the fill); a large LP whose
factor is cheap then stays on the host.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...sparse_cholesky import CholeskyAnalysis, qdldl_module
from ....symbolic import colamd_available
from .host_factor import DENSE_FILL, SPARSE_SHARE, SparseLDL, ordered_on
from .normal_pattern import NormalPattern

#: the host factors problems whose float64 factor takes at most this many flops
HOST_FLOPS = 5e7
#: ... or at most this many where the method's GPU factors in float64 itself (compute: every
#: factorization the GPU's, in COLAMD's order skipping the zero tiles): on the H100, pilot (4.5e7)
#: 2.7x, d2q06c 1.9x, degen3 and d6cube 1.7x quicker there, cycle (8.9e6) even, 80bau3b and
#: woodw (2-3e6) 0.7x (benchmarks/RESULTS.md, round 22)
GPU_FLOAT64_HOST_FLOPS = 8e6
#: ... and those whose sparse factor is this many times fewer flops than the dense m^3/3 the
#: fragment methods' GPU factors (in float32: refinement, and the host's float64 factor where it
#: stalls, come on top): on the H100 that factor ran at ~0.17 TFLOP/s (dfl001, m = 6071) and the
#: host's multifrontal one at ~10 GFLOP/s, about 17x; pilot87 (17.5x), maros-r7 (37x) and dfl001
#: (53x) were each quicker on the host (benchmarks/RESULTS.md, round 24)
FRAGMENT_SPARSE_RATIO = 15.0
#: ... the same for the compute method past COUNT_ROWS rows, whose float64 factor skips the tiles a
#: fill-reducing order leaves zero: dfl001 (53x) 2.2 s there, 6.5-7.9 s on the host; a staircase
#: LP of 15,000 rows (~10^4 x) took minutes there
SPARSE_RATIO = 100.0
#: more rows than this: counted without a factorization of our own (the presolve's, or the analysis)
COUNT_ROWS = 3000


@dataclass
class Choice:
    device: str                       # "cpu64" or "gpu"
    flops: float                      # the float64 factor's count (nan: not counted)
    pattern: NormalPattern | None     # made for the count: the host path uses it
    reason: str = "flops"             # "flops" (HOST_FLOPS), or "sparse factor" (the ratios)
    ldl: SparseLDL | None = None      # the host factor on that pattern, ordered already where it could be


def choose(A, counted: float = float("nan"), gpu_float64: bool = False, order=None) -> Choice:
    """Where the normal equations of A are factored (_by_count), the host's also where its sparse
    factor is FRAGMENT_SPARSE_RATIO times fewer flops than the GPU's dense one.  gpu_float64: the
    method's GPU factors in float64 itself (Method.float64_normal): GPU_FLOAT64_HOST_FLOPS is
    the host's limit instead of HOST_FLOPS, and the ratio is SPARSE_RATIO, past COUNT_ROWS rows only.
    order: the presolve's qdldl factor of A A^T with its structure (BoundedLP.normal_order)."""
    c = _by_count(A, counted, GPU_FLOAT64_HOST_FLOPS if gpu_float64 else HOST_FLOPS, order)
    m = A.shape[0]
    # a GPU that factors in float64 skips the tiles a fill-reducing order leaves zero: up to
    # COUNT_ROWS its factor is no longer the dense m^3/3 (d2q06c, 132x sparser than dense: 1.9x
    # quicker on the H100's GPU than on its host; bnl2 1.3x, cycle even)
    dense_gpu = not (gpu_float64 and m <= COUNT_ROWS)
    ratio = SPARSE_RATIO if gpu_float64 else FRAGMENT_SPARSE_RATIO
    if dense_gpu and c.device == "gpu" and np.isfinite(c.flops) and m ** 3 / 3.0 > ratio * c.flops:
        return Choice("cpu64", c.flops, c.pattern, "sparse factor", c.ldl)
    return c


#: a factor counted at DENSE_FILL of the dense one is skipped by qdldl's count only where that
#: share is this many times the host's limit: qdldl's AMD order fills less than COLAMD's (set
#: cover: 0.86 of it), and the choice must be the one its count would make
FILL_MARGIN = 10.0


def fills(A, limit: float):
    """The symbolic analysis's flop count of A A^T's factor (COLAMD) where it fills at least
    DENSE_FILL of the dense factor and that share is FILL_MARGIN times `limit`, else None."""
    m = A.shape[0]
    if DENSE_FILL * m ** 3 / 3.0 < FILL_MARGIN * limit or not colamd_available():
        return None
    flops = CholeskyAnalysis.of(A).flops
    return flops if flops >= DENSE_FILL * m ** 3 / 3.0 else None


def _by_count(A, counted: float = float("nan"), limit: float = HOST_FLOPS, order=None) -> Choice:
    """Where the normal equations of A (scaled, presolved; m x n) are factored.  counted: the
    presolve's count of A A^T's factor, if it made one (taken instead of factoring again, but
    for a bordered pattern, whose factor is another); limit: the host's flops at most; order:
    the presolve's factor, whose ordering the pattern's SparseLDL takes where the structure is its own."""
    m = A.shape[0]
    if m > COUNT_ROWS:
        if np.isfinite(counted):                # the presolve's qdldl factor of the same A A^T
            return Choice("cpu64" if counted <= limit else "gpu", counted, None)
        if not colamd_available():
            return Choice("gpu", float("nan"), None)
        flops = CholeskyAnalysis.of(A).flops
        return Choice("cpu64" if flops <= limit else "gpu", flops, None)
    if qdldl_module() is not None and NormalPattern.usable(A):
        P = NormalPattern(A)
        if P.full_nnz <= SPARSE_SHARE * m * m and not P.long.size and np.isfinite(counted):
            # the presolve factored this A A^T already (a border's count would be another's)
            return Choice("cpu64" if counted <= limit else "gpu", counted, P, ldl=SparseLDL(P, ordered_on(order, P)))
        filled = fills(A, limit) if P.full_nnz <= SPARSE_SHARE * m * m and not P.long.size else None
        if filled is not None:
            # COLAMD's count says the factor fills (the host's is LAPACK's dense one): no qdldl
            # factorization to count it (a set cover LP of 2,500 rows: 0.83 s, for the same choice)
            return Choice("gpu", filled, P)
        if P.full_nnz <= SPARSE_SHARE * m * m:
            F = SparseLDL(P, ordered_on(order, P))
            try:
                flops = F.factor(P.data(np.ones(A.shape[1])), 1e-14).flops
            except np.linalg.LinAlgError:
                return Choice("gpu", float("nan"), P)
            return Choice("cpu64" if flops <= limit else "gpu", flops, P, ldl=F)
    flops = m ** 3 / 3.0                 # the host's factor is LAPACK's dense one
    return Choice("cpu64" if flops <= limit else "gpu", flops, None)
