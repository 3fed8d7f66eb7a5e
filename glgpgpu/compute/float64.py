"""The compute method's float64 Cholesky factor (GLSL 4.00's double in the same
kernels as the float32 one: real.glsl): the LP's float64 solves, where the host would
factor A D A^T in float64.  The sparse matrix's lower triangle is scattered into a
zeroed buffer on the GPU (a dense M is uploaded as it is), factored there (dense
storage, blocked right-looking: the H100's float64 rate against a host's sparse
factorization), and kept for solves: one upload and one read-back of a vector each, one
dispatch each way (trsv_chain.comp: a workgroup a block, solved blocks passed on).
Given a symbolic analysis (EntryPlaces' order), M is factored in its fill-reducing order
and every step skips the tiles that order leaves zero: a sparse factor's work in the
dense kernels (dfl001: 18% of the dense factor's tile updates)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import NotPositiveDefiniteError
from ..gl.buffers import leading
from .blas import NB, Pooled, download, fill, gemm, require, spread, write
from .chain import ChainSolves
from .dense import factor

#: a pivot the factor could not take (not positive: potrf.comp's floor of 0 makes it this)
DROPPED = 1e30
#: the most terms normal_entries.comp sums for one entry: llvmpipe ends any shader loop after
#: 65,535 iterations, nested loops included (its counter spans the invocation)
SUM_TERMS = 65_535


class Float64Matrix(Pooled):
    """A rows x cols float64 matrix in a pooled storage buffer, element (i, j) at
    i * ld + j doubles (the float32 pool's buffer of twice the row stride); give it back."""

    def __init__(self, ctx, rows: int, cols: int, what: str):
        self.rows, self.cols, self.ld = int(rows), int(cols), leading(cols)
        need, lim = 8 * self.rows * self.ld, ctx.max_storage_block
        if lim and need > lim:
            raise ValueError(f"{what} ({rows} x {cols}, float64) needs {need} bytes in one storage buffer, "
                             f"but this GPU's limit is {lim} ({ctx.caps.renderer})")
        self._mb = ctx.buffers.take(self.rows, 2 * self.ld, what, ld=2 * self.ld)
        self.buf = self._mb.buf

    def put(self, ctx, values: np.ndarray) -> None:
        """values (rows x cols float64) in, as they are (their bytes, two floats a double),
        laid out at the row stride on the GPU (blas.write); the padding is not written."""
        a = np.ascontiguousarray(values, np.float64).reshape(self.rows, self.cols)
        write(ctx, self._mb, a.view(np.float32))

    def get(self, ctx, out: np.ndarray | None = None) -> np.ndarray:
        """The rows x cols float64 values, compacted on the GPU and read straight into out."""
        if out is None:
            out = np.empty((self.rows, self.cols), np.float64)
        download(ctx, self._mb, out=out.view(np.float32), rows=self.rows, cols=2 * self.cols)
        return out


class TileLists:
    """A factor's tile pattern on the GPU (a boolean lower triangle over NB x NB tiles that
    may be nonzero, closed under the factor's updates: CholeskyAnalysis.tiles): for each
    panel k the tile rows below it (trsm_rows and syrk64 take only those and their pairs),
    and for each block of a solve the blocks it waits for (trsv_chain, forward and backward).
    One int buffer; give it back."""

    def __init__(self, ctx, B: np.ndarray):
        B = np.tril(np.asarray(B, bool))
        t = self.blocks = B.shape[0]
        below = [np.flatnonzero(B[k + 1:, k]) for k in range(t)]          # counted from tile row k + 1
        left = [np.flatnonzero(B[k, :k]) for k in range(t)]                # blocks before k, increasing
        after = [k + 1 + b[::-1] for k, b in enumerate(below)]            # blocks after k, nearest last
        self._count = np.array([b.size for b in below], np.int64)
        self._at = np.concatenate([[0], np.cumsum(self._count)])[:-1]
        parts, self.forward_at = [np.concatenate(below + [np.zeros(0, np.int64)])], int(self._count.sum())
        for lists in (left, after):
            parts += [np.concatenate([[0], np.cumsum([x.size for x in lists])]), np.concatenate(lists)]
        self.backward_at = self.forward_at + t + 1 + sum(x.size for x in left)
        self._b = _raw(ctx, np.concatenate(parts).astype(np.int32), "the factor's tile lists")
        self.buf = self._b.buf
        #: the tile updates the factor runs, against a dense factor's
        self.updates = int(np.sum(self._count * (self._count + 1) // 2))

    def below(self, k: int):
        """(this, offset, count): panel k's tile rows below it, as trsm_rows/syrk64 take them."""
        return self, int(self._at[k]), int(self._count[k])

    def give(self) -> None:
        if self._b is not None:
            self._b.give()
            self._b = self.buf = None


@dataclass
class NormalValues:
    """M's entries as the GPU sums them from d (EntryPlaces with sums): the pattern's pair sums
    W d, delta added on the diagonal, times inv of the entry's column, then of its row, then
    shift added on the diagonal (NormalPattern's data, scale and shift: the same roundings)."""

    d: np.ndarray               # (n,) the columns' weights
    inv: np.ndarray             # (m,) the scaling
    delta: float = 0.0
    shift: float = 0.0


class EntryPlaces:
    """Where a fixed set of an order-m matrix's lower-triangle entries (rows >= cols) lie in
    the float64 factor's buffer, uploaded once and kept: the LP factors A D A^T on one
    pattern every iteration, so only the values travel then.  order: a symbolic analysis
    of M (`perm`, `tiles(nb)`: CholeskyAnalysis) -- the factor is then of M[perm][:, perm]
    (the entries placed so, the solves permuted) and skips the tiles that order leaves
    zero.  sums: W (scipy.sparse, one row per entry, in their order) whose product W d is
    the entries' values: kept on the GPU too, so that only d travels (NormalValues:
    normal_entries.comp sums them there).  Give it back."""

    def __init__(self, ctx, m: int, rows: np.ndarray, cols: np.ndarray, order=None, sums=None):
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        if rows.shape != cols.shape or (rows.size and (np.any(rows < cols) or rows.max() >= m or cols.min() < 0)):
            raise ValueError("entry places must be pairs (row, col) of the lower triangle of an order-m matrix")
        self.m, self.count = int(m), int(rows.size)
        self.perm = self.tiles = self._sums = None
        self.n = 0
        r0, c0 = rows, cols
        if order is not None:
            self.perm = np.asarray(order.perm, np.int64)
            inv = np.empty(m, np.int64)
            inv[self.perm] = np.arange(m)
            rows, cols = np.maximum(inv[rows], inv[cols]), np.minimum(inv[rows], inv[cols])
        at = rows * leading(m) + cols
        if at.size and at.max() >= 2 ** 31:
            raise ValueError(f"an order-{m} float64 matrix has places past int32")
        self._b = None
        try:
            if sums is not None and self.count:
                W = sp.csr_matrix(sums)
                if W.shape[0] != self.count:
                    raise ValueError(f"sums has {W.shape[0]} rows for {self.count} entries")
                longest = int(np.diff(W.indptr).max(initial=0))
                if longest > SUM_TERMS:
                    raise ValueError(f"an entry sums {longest} terms, more than a shader loop may run on every "
                                     f"driver ({SUM_TERMS}): sum them on the host")
                ints = np.concatenate([at, np.column_stack([r0, c0]).ravel(), W.indptr, W.indices])
                if ints.size and max(int(ints.max()), ints.size) >= 2 ** 31:
                    raise ValueError("the entries' sums have indices past int32")
                self.n = W.shape[1]
                self._b = _raw(ctx, ints.astype(np.int32), "the entries' places and sums")
                self._sums = _raw(ctx, W.data.astype(np.float64), "the entries' pair products")
            elif self.count:
                self._b = _raw(ctx, at.astype(np.int32), "the entries' places")
            if order is not None:
                self.tiles = TileLists(ctx, order.tiles(NB))
        except BaseException:
            self.give()
            raise

    @property
    def sums(self) -> bool:
        """Whether the GPU sums the entries from d itself (NormalValues)."""
        return self._sums is not None

    def give(self) -> None:
        for name in ("_b", "_sums", "tiles"):
            b = getattr(self, name, None)
            if b is not None:
                b.give()
                setattr(self, name, None)


def _raw(ctx, values: np.ndarray, what: str):
    """A 1-D int32 or float64 array in a compact float32 buffer of its bytes."""
    f = np.ascontiguousarray(values).view(np.float32).reshape(1, -1)
    b = ctx.buffers.take(1, f.shape[1], what, ld=f.shape[1])
    write(ctx, b, f)
    return b


class Float64Cholesky:
    """L L^T = M (scipy.sparse or dense, symmetric; its lower triangle is read) in
    float64 on the GPU; `solve(b)`; raises NotPositiveDefiniteError (a
    numpy.linalg.LinAlgError) where a pivot is not positive.  Release when done.
    With places (EntryPlaces): M is the values of those entries, in their order."""

    def __init__(self, ctx, M, places: EntryPlaces | None = None):
        require(ctx)
        self.ctx = ctx
        if isinstance(M, NormalValues):
            if places is None or not places.sums:
                raise ValueError("NormalValues need EntryPlaces made with their sums")
            if np.shape(M.d) != (places.n,) or np.shape(M.inv) != (places.m,):
                raise ValueError(f"expected d ({places.n},) and inv ({places.m},), got {np.shape(M.d)} and "
                                 f"{np.shape(M.inv)}")
            m = self.m = places.m
        elif places is not None:
            M = np.asarray(M, np.float64)
            if M.shape != (places.count,):
                raise ValueError(f"expected {places.count} entry values for these places, got shape {M.shape}")
            m = self.m = places.m
        else:
            m = self.m = M.shape[0]
            if M.shape != (m, m):
                raise ValueError(f"M must be square, got {M.shape}")
        self.perm = self.tiles = self.solves = None
        if places is not None:
            self.perm, self.tiles = places.perm, places.tiles
        self.L = Float64Matrix(ctx, m, m, "the float64 factor")
        self.solves = ChainSolves(ctx, self.L.buf, self.L.ld, m, fp64=True, tiles=self.tiles, vector=Float64Matrix)
        try:
            if isinstance(M, NormalValues):
                self._sum_values(ctx, places, M)
            elif places is not None:
                self._scatter_values(ctx, places, M)
            elif sp.issparse(M):
                self._scatter(ctx, sp.tril(sp.coo_matrix(M)))
            else:                                       # dense: uploaded as it is (only the lower part is read)
                self.L.put(ctx, np.asarray(M, np.float64))
            _factor_checked64(ctx, self.L, m, self.tiles)
        except BaseException:
            self.release()
            raise

    def _scatter(self, ctx, low) -> None:
        """A sparse lower triangle into the zeroed factor buffer, on the GPU."""
        places = EntryPlaces(ctx, self.m, low.row, low.col)
        try:
            self._scatter_values(ctx, places, low.data)
        finally:
            places.give()

    def _scatter_values(self, ctx, places: EntryPlaces, values: np.ndarray) -> None:
        fill(ctx, self.L._mb, 0.0)
        if not places.count:
            return
        val = _raw(ctx, np.asarray(values, np.float64), "the entries")
        try:
            ctx.kernels.dispatch("scatter_entries", spread(places.count),
                                 buffers={0: self.L.buf, 1: places._b.buf, 2: val.buf},
                                 uniforms={"u_count": places.count})
        finally:
            val.give()

    def _sum_values(self, ctx, places: EntryPlaces, values: NormalValues) -> None:
        """M's entries summed from d on the GPU (normal_entries.comp) into the zeroed factor buffer."""
        fill(ctx, self.L._mb, 0.0)
        if not places.count:
            return
        v = np.concatenate([np.asarray(values.d, np.float64), np.asarray(values.inv, np.float64),
                            [float(values.delta), float(values.shift)]])
        vb = _raw(ctx, v, "the columns' weights and the scaling")
        c, n = places.count, places.n
        try:
            ctx.kernels.dispatch("normal_entries", spread(c),
                                 buffers={0: self.L.buf, 1: places._b.buf, 2: places._sums.buf, 3: vb.buf},
                                 uniforms={"u_count": c, "u_rc": c, "u_ptr": 3 * c, "u_col": 4 * c + 1,
                                           "u_inv": n, "u_m": places.m})
        finally:
            vb.give()

    def pivots(self) -> np.ndarray:
        """L's diagonal, float64."""
        return _diagonal64(self.ctx, self.L, self.m)

    def solve(self, b: np.ndarray) -> np.ndarray:
        """x with L L^T x = b (float64 throughout)."""
        b = np.asarray(b, np.float64)
        if b.shape != (self.m,):
            raise ValueError(f"b must have shape ({self.m},), got {b.shape}")
        if self.perm is not None:
            b = b[self.perm]
        y = self.solves.solve(b)
        if self.perm is None:
            return y
        x = np.empty(self.m)
        x[self.perm] = y
        return x

    def release(self) -> None:
        if getattr(self, "L", None) is not None:
            self.L.give()
            self.L = None
        if getattr(self, "solves", None) is not None:
            self.solves.release()
            self.solves = None


def cholesky64(C: np.ndarray, *, lower: bool = True, amax: float | None = None, ctx) -> np.ndarray:
    """The Cholesky factor of C in float64, dense, on the GPU (the kernels in double):
    lower L with L L^T = C reading C's lower triangle, or (lower=False) upper U with
    U^T U = C reading its upper triangle -- turned on the GPU, so the host passes C's
    bytes once each way.  C far from 1 in size is scaled by an even power of two first
    (exact; the factor by its root) so that no square over- or underflows (amax: max |C|
    where the caller knows it, else measured).  Raises NotPositiveDefiniteError (a
    numpy.linalg.LinAlgError) naming the first failed pivot."""
    require(ctx)
    C = np.asarray(C, np.float64)
    m = C.shape[0]
    if m == 0:
        return np.zeros((0, 0))
    if amax is None:
        amax = float(np.nanmax(np.abs(C)))
    amax = amax if np.isfinite(amax) else 0.0     # NaN or inf in the unread triangle: no scaling then
    # beyond 2^96 a pivot sqrt(C_jj) could reach DROPPED's 1e30 and be read as a dropped one
    k = int(np.frexp(amax)[1]) // 2 if amax > 0 and not 2.0 ** -400 < amax < 2.0 ** 96 else 0
    M = Float64Matrix(ctx, m, m, "the float64 factor")
    T = None
    try:
        M.put(ctx, np.ldexp(C, -2 * k) if k else C)
        if not lower:                               # the upper triangle read as the lower one of C^T
            T = Float64Matrix(ctx, m, m, "the float64 factor")
            _transpose64(ctx, M, T, m)
            M, T = T, M
        _factor_dense64(ctx, M, m)
        if not lower:
            _transpose64(ctx, M, T, m)
            M, T = T, M
        L = M.get(ctx)
    finally:
        M.give()
        if T is not None:
            T.give()
    return np.ldexp(L, k) if k else L


def gram_cholesky64(A: np.ndarray, d: np.ndarray, *, ctx) -> np.ndarray:
    """Lower L with L L^T = A diag(d) A^T (A m x k, d k weights), float64 on the GPU: A goes
    up once, the product (the tiled product in double) and its Cholesky factor stay in GPU
    memory, L comes back -- the m x m matrix never crosses the bus.  The caller scales A so
    that the product neither over- nor underflows.  NotPositiveDefiniteError (a
    numpy.linalg.LinAlgError) where a pivot fails: A diag(d) A^T is singular to float64."""
    require(ctx)
    A = np.asarray(A, np.float64)
    m, k = A.shape
    if m == 0:
        return np.zeros((0, 0))
    Ab = Float64Matrix(ctx, m, k, "A")
    D = M = None
    try:
        Ab.put(ctx, A)
        D = Float64Matrix(ctx, 1, k, "the columns' weights")
        D.put(ctx, np.asarray(d, np.float64).reshape(1, -1))
        M = Float64Matrix(ctx, m, m, "the float64 factor of A diag(d) A^T")
        gemm(ctx, M, Ab, Ab, m=m, n=m, k=k, d=D, lower=True, fp64=True)
        Ab.give()
        D.give()
        _factor_dense64(ctx, M, m)
        return M.get(ctx)
    finally:
        for b in (Ab, D, M):
            if b is not None:
                b.give()


def _factor_checked64(ctx, M: Float64Matrix, m: int, tiles=None) -> None:
    """M's lower triangle to L in place (float64; tiles: only those that may be nonzero); a
    pivot that fails is NotPositiveDefiniteError naming it."""
    factor(ctx, M, m, pivot_floor=0.0, fp64=True, tiles=tiles)
    piv = _diagonal64(ctx, M, m)
    NotPositiveDefiniteError.check(np.where(piv >= DROPPED, -1.0, piv), m, "float64")


def _factor_dense64(ctx, M: Float64Matrix, m: int) -> None:
    """_factor_checked64, then M's upper part zeroed."""
    _factor_checked64(ctx, M, m)
    ctx.kernels.dispatch("zero_upper", (-(-m // 16), -(-m // 16)), buffers={0: M.buf},
                         defines={"FP64": 1}, uniforms={"u_m": m, "u_ld": M.ld})


def _transpose64(ctx, src: Float64Matrix, dst: Float64Matrix, m: int) -> None:
    ctx.kernels.dispatch("transpose", (-(-m // 16), -(-m // 16)), buffers={0: src.buf, 1: dst.buf},
                         defines={"FP64": 1}, uniforms={"u_n": m, "u_lds": src.ld, "u_ldd": dst.ld})


def _diagonal64(ctx, A: Float64Matrix, m: int) -> np.ndarray:
    d = Float64Matrix(ctx, 1, m, "the pivots")
    try:
        ctx.kernels.dispatch("diagonal", (-(-m // 256), 1, 1), buffers={0: A.buf, 1: d.buf},
                             defines={"FP64": 1}, uniforms={"u_m": m, "u_ld": A.ld})
        return d.get(ctx)[0].copy()
    finally:
        d.give()
