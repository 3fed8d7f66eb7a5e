"""Matrices larger than one texture (issue 17): tile algorithms on a grid of
RGBA tiles (layouts/tiles.py), every tile operation one of the existing blocked
kernels -- no new arithmetic:

  POTRF  factor a diagonal tile            blocked Cholesky (cholesky.factor_texture)
  TRSM   L_IK = A_IK L_KK^-T               in place: slabs of 16-wide panel solves
                                           (blocked_trsm_panel, blocked_update) + blocked_adat
  SYRK / GEMM  A_IJ -= L_IK L_JK^T         blocked_adat with d = -1, accumulating
  GEMV   b_I -= L_IJ y_J                   blocked_adat with y as a one-row operand

Right-looking tiled Cholesky: for each tile column K, factor the diagonal tile,
solve the tiles below it, update the trailing lower tiles.  A_IJ = sum over A's
column chunks of (A_I D) A_J^T for A D A^T with m (and n) beyond one texture.
The one-tile grid is the small-matrix case of the same code.
"""
from __future__ import annotations

import time

import numpy as np

from ..errors import GPUMemoryError, NotPositiveDefiniteError
from ..gl import Context, memory, resolve
from ..layouts.rgba import padded
from ..layouts.tiles import TileGrid, cholesky_steps, tile_order
from ..layouts.transfer import read_rgba, read_rgba_lower, upload_rgba
from .adat import adat as adat_one_texture, product_texture
from .cholesky import diagonal, factor_texture
from .tiles import ADAT_TILE, B_TILE, P_PANEL, constant_d, rect_rows, require
from .triangular import substitute_texture


class TiledLower:
    """The lower tiles of a symmetric / lower-triangular m x m matrix on the GPU,
    each a t x t RGBA texture (zero padded).  Release when done."""

    def __init__(self, ctx, grid: TileGrid):
        self.ctx, self.grid = ctx, grid
        self.tiles: dict = {}
        self.transposes: dict = {}      # (I, J) -> tile (I, J) transposed, made once for the solves
        self.upper_zero = False         # the diagonal tiles hold zeros above the diagonal

    def transposed(self, I: int, J: int):
        """Tile (I, J) transposed (transpose_rgba, data movement), kept for later solves
        (the LP solver and wls solve many times per factor) while GPU memory allows;
        (texture, True) when it is a temporary the caller gives back.  Valid while
        the tiles are not changed (solves come after the factorization)."""
        if (I, J) in self.transposes:
            return self.transposes[I, J], False
        K, t = self.ctx.kernels, self.grid.t
        out = K.pool.take(t, t // 4, "tile transpose", components=4)
        K.draw("transpose_rgba", out, rect_rows(K, 0, t // 4, 0, t), {"S": self.tiles[I, J]})
        try:
            memory.require(self.ctx, 2 * 4 * t * t, "keeping a transposed tile")
        except GPUMemoryError:
            return out, True
        self.transposes[I, J] = out
        return out, False

    def clear_upper(self) -> None:
        """Zero the diagonal tiles above the diagonal, on the GPU (one pass each), so
        read() copies them straight into the result (a factor is uploaded whole,
        its upper triangle the input's)."""
        K = self.ctx.kernels
        t = self.grid.t
        for I in range(self.grid.count):
            K.draw("blocked_zero_upper", K.grid(t // 4, t), rect_rows(K, 0, t // 4, 0, t), None,
                   images={"A": self.tiles[I, I]})
        self.upper_zero = True

    @classmethod
    def zeros(cls, ctx, g: TileGrid) -> "TiledLower":
        """Zero lower tiles, for products to accumulate into (their products keep the
        upper triangle zero, blocked_adat.frag)."""
        T = cls(ctx, g)
        T.upper_zero = True
        try:
            for I, J in g.lower():
                T.tiles[I, J] = ctx.kernels.pool.take(g.t, g.t // 4, f"tile ({I},{J})", components=4)
                T.tiles[I, J].clear(0.0)
        except BaseException:
            T.release()
            raise
        return T

    @classmethod
    def upload(cls, ctx, C: np.ndarray, t: int) -> "TiledLower":
        g = TileGrid(C.shape[0], t)
        T = cls(ctx, g)
        try:
            for I, J in g.lower():
                # a diagonal tile goes up whole: the driver's narrow RGBA sub-rectangle
                # uploads are slow (H100, 4096: its lower triangle in 16 row bands took
                # 118 ms against 23 ms for the square); read() keeps the lower triangle
                T.tiles[I, J] = upload_rgba(ctx, C[g.span(I), g.span(J)], t, t, f"tile ({I},{J})")
        except BaseException:
            T.release()
            raise
        return T

    def read(self) -> np.ndarray:
        g = self.grid
        z = self.upper_zero
        if g.count == 1:                                # one tile: its lower triangle
            return read_rgba_lower(self.tiles[0, 0], g.m, upper_zero=z)
        # every page of the result written once: the lower tiles copied in, the upper
        # ones zeroed (np.zeros would have the kernel zero the lower pages first); one
        # tile-sized buffer serves every off-diagonal read
        out = np.empty((g.m, g.m), np.float32)
        buf = np.empty((g.t, g.t // 4, 4), np.float32)
        for I in range(g.count):
            for J in range(g.count):
                if J > I:
                    out[g.span(I), g.span(J)] = 0
                elif J < I:
                    whole = self.tiles[I, J].read(buf).reshape(g.t, g.t)
                    out[g.span(I), g.span(J)] = whole[:g.size(I), :g.size(J)]
                else:
                    out[g.span(I), g.span(J)] = read_rgba_lower(self.tiles[I, I], g.size(I), upper_zero=z)
        return out

    def release(self) -> None:
        self.ctx.kernels.pool.give(*self.tiles.values(), *self.transposes.values())
        self.tiles.clear()
        self.transposes.clear()


#: columns of a TRSM slab: solved in P-wide panels, then the rest of the tile updated
#: by one blocked_adat product over the slab (rank-TRSM_SLAB, compute-bound); 1024 measured
#: 2x faster than 512 on the H100 (8192 tiles, benchmarks/RESULTS.md)
TRSM_SLAB = 1024


def trsm(ctx, l_tex, mK: int, a_tex, t: int, neg, *, rows: int | None = None, slab: int | None = None,
         tile=ADAT_TILE) -> None:
    """X = A L^-T in place of the tile A, for the factored diagonal tile L (both RGBA,
    t x t; L of order mK, the identity past it).  Blocked right-looking
    substitution, no inverse (its backward error does not grow with kappa(L), which
    the thesis's matrices make astronomically large): the columns go in slabs of
    `slab`; inside a slab, per P columns, blocked_trsm_panel solves every row's P
    unknowns against L's P x P diagonal block, blocked_update (TRSM) subtracts them
    from the slab's later columns, blocked_copyback stores them; after the slab one
    product_texture (d = -1) updates all later columns of the tile at once.  rows:
    the tile's real rows (the last tile row's padding is not drawn)."""
    K = ctx.kernels
    P, B = P_PANEL, B_TILE
    BC = tile[1]
    slab = slab or TRSM_SLAB
    if slab % P or t % P:
        raise ValueError(f"the TRSM slab ({slab}) and the tile ({t}) must be multiples of P={P}")
    rows = -(-(rows or t) // P) * P                  # whole panels of rows and of columns
    cols = -(-mK // P) * P
    pnl = K.pool.take(t, P // 4, "TRSM panel", components=4)
    try:
        for s0 in range(0, cols, slab):
            s1 = min(cols, s0 + slab)
            for kb in range(s0, s1, P):
                K.draw("blocked_trsm_panel", K.grid(1, t), rect_rows(K, 0, 1, 0, rows), {"LT": l_tex},
                       {"u_kb": kb, "u_m": mK}, images={"A": a_tex, "PNL": pnl}, defines={"P": P})
                if kb + P < s1:
                    K.draw("blocked_update", K.grid(t // B, t // B),
                           rect_rows(K, (kb + P) // B, s1 // B, 0, rows // B),
                           {"PNL": pnl, "LT": l_tex}, {"u_lq": kb // 4}, images={"A": a_tex},
                           defines={"P": P, "B": B, "TRSM": 1})
                K.draw("blocked_copyback", K.grid(P // 4, t), rect_rows(K, 0, P // 4, 0, rows), {"PNL": pnl},
                       {"u_kb": kb}, images={"A": a_tex})
            if s1 < cols:
                product_texture(a_tex, a_tex, l_tex, neg, t, tile=(BC, BC), full=True, first=False,
                                k_range=(s0 // 4, s1 // 4), col_blocks=(s1 // BC, -(-cols // BC)),
                                row_blocks=-(-rows // BC), ctx=ctx)
    finally:
        K.pool.give(pnl)


def tile_product(c_tex, row_tex, col_tex, d_tex, g: TileGrid, I: int, J: int, k_range, tile, ctx) -> None:
    """C_IJ += R_I D S_J^T over k_range (texels), drawing only the tile's real rows
    and columns: a diagonal tile's lower block triangle of order size(I), an
    off-diagonal tile's size(I) x size(J) blocks (the last tile row is mostly padding)."""
    if I == J:
        product_texture(c_tex, row_tex, col_tex, d_tex, g.size(I), tile=tile, first=False, k_range=k_range, ctx=ctx)
    else:
        BC = tile[1]
        product_texture(c_tex, row_tex, col_tex, d_tex, g.t, tile=(BC, BC), full=True, first=False, k_range=k_range,
                        row_blocks=-(-g.size(I) // BC), col_blocks=(0, -(-g.size(J) // BC)), ctx=ctx)


def add_products(T: TiledLower, bands: list, d_tex, ends: list, *, tile=ADAT_TILE) -> None:
    """T's lower tiles += (band_I D) band_J^T for every (I, J), over k below
    min(ends[I], ends[J]) texels (a band's zero trailing columns add nothing) --
    A D A^T for one column chunk of A (adat_tiled, TiledNormalSystem)."""
    for I, J in T.grid.lower():
        k1 = min(ends[I], ends[J])
        if k1:
            tile_product(T.tiles[I, J], bands[I], bands[J], d_tex, T.grid, I, J, (0, k1), tile, T.ctx)


def _lap(ctx, profile, phase) -> None:
    """Add the seconds since the last lap to profile[phase] (after the GPU is done)."""
    if profile is None:
        return
    ctx.finish()
    now = time.perf_counter()
    profile[phase] = profile.get(phase, 0.0) + now - profile.get("_t", now)
    profile["_t"] = now


def factor(T: TiledLower, *, tile=ADAT_TILE, profile: dict | None = None, pivot_floor: float | None = None,
           regularize: bool = False) -> np.ndarray:
    """Tiled right-looking Cholesky in place; returns the global diagonal of L.
    Raises NotPositiveDefiniteError naming the global pivot that failed.
    profile: a dict that gets the seconds of each phase (potrf, trsm, update),
    measured by waiting for the GPU at every phase boundary (benchmarks only).
    pivot_floor / regularize: as cholesky.factor_texture (the LP solver's floors)."""
    ctx = T.ctx
    require(ctx)
    K = ctx.kernels
    g = T.grid
    t = g.t
    neg = constant_d(ctx, -1.0, t)
    pivots = np.empty(g.m, np.float32)
    if profile is not None:
        ctx.finish()
        profile["_t"] = time.perf_counter()
    try:
        phase = None
        for op, I, J, Kc in cholesky_steps(g.count):
            if phase is not None and op != phase:
                _lap(ctx, profile, phase)
            phase = op
            mK = g.size(Kc)
            if op == "potrf":
                factor_texture(T.tiles[Kc, Kc], mK, pivot_floor=pivot_floor, regularize=regularize, ctx=ctx)
                d = diagonal(T.tiles[Kc, Kc], mK, ctx)
                pivots[g.span(Kc)] = d
                if not np.isfinite(d).all() or (d <= 0).any():
                    NotPositiveDefiniteError.check(pivots[:g.span(Kc).stop], g.span(Kc).stop)
            elif op == "trsm":
                trsm(ctx, T.tiles[Kc, Kc], mK, T.tiles[I, Kc], t, neg, rows=g.size(I), tile=tile)
            else:                                                             # SYRK / GEMM
                tile_product(T.tiles[I, J], T.tiles[I, Kc], T.tiles[J, Kc], neg, g, I, J, (0, -(-mK // 4)),
                              tile, ctx)
        _lap(ctx, profile, phase)
    finally:
        K.pool.give(neg)
    return pivots


def solve_tiled(T: TiledLower, B: np.ndarray, steps) -> np.ndarray:
    """Substitutions with a factored TiledLower (False: L y = b, True: L^T x = y) on
    the columns of B (m x nrhs float32): per tile the blocked substitution of the
    diagonal tile; the off-diagonal products (GEMV, 8 right-hand sides at a time)
    by blocked_adat with the solved part as an 8-row operand, summed on the GPU
    and read once per tile row -- for L^T on the transposed tiles
    (TiledLower.transposed, made once and kept for later solves)."""
    ctx = T.ctx
    K = ctx.kernels
    g = T.grid
    t = g.t
    if g.count == 1:                       # one tile: every step on the GPU, one upload, one read
        b = K.pool.take(t, B.shape[1], "right-hand sides")
        try:
            full = np.zeros((t, B.shape[1]), np.float32)
            full[:g.m] = B
            b.write(full)
            for backward in steps:
                b = substitute_texture(T.tiles[0, 0], g.m, b, backward=backward, ctx=ctx)
            return b.read()[:g.m]
        finally:
            K.pool.give(b)
    X = np.array(B, np.float32, copy=True)
    ones = constant_d(ctx, 1.0, t)
    out = K.pool.take(t, 2, "tile product", components=4)        # 8 columns: one 8-wide block
    try:
        for backward in steps:
            for Kc in (range(g.count - 1, -1, -1) if backward else range(g.count)):
                sK = g.span(Kc)
                rhs = X[sK].copy()
                Js = list(range(Kc + 1, g.count) if backward else range(Kc))
                ops = [T.transposed(J, Kc) if backward else (T.tiles[Kc, J], False) for J in Js]
                try:
                    for c0 in range(0, X.shape[1], 8):
                        # every solved tile's contribution summed on the GPU, one read-back
                        for q, (J, (op, _)) in enumerate(zip(Js, ops)):
                            cols = X[g.span(J), c0:c0 + 8]
                            yJ = np.zeros((8, t), np.float32)
                            yJ[:cols.shape[1], :g.size(J)] = cols.T
                            y_tex = upload_rgba(ctx, yJ, 8, t, "y")
                            product_texture(out, op, y_tex, ones, t, tile=(8, 8), full=True, first=q == 0, ctx=ctx)
                            K.pool.give(y_tex)
                        if Js:
                            rhs[:, c0:c0 + 8] -= read_rgba(out, g.size(Kc), min(8, X.shape[1] - c0))
                finally:
                    K.pool.give(*(op for op, temporary in ops if temporary))
                b = K.pool.take(t, X.shape[1], "tile right-hand sides")
                full = np.zeros((t, X.shape[1]), np.float32)
                full[:g.size(Kc)] = rhs
                b.write(full)
                b = substitute_texture(T.tiles[Kc, Kc], g.size(Kc), b, backward=backward, ctx=ctx)
                X[sK] = b.read()[:g.size(Kc)]
                K.pool.give(b)
    finally:
        K.pool.give(ones, out)
    return X


# -- what a call needs, before it allocates ------------------------------------------

def cholesky_bytes(g: TileGrid) -> int:
    """The lower tiles plus the scratch one tile step needs (A^T and the
    substitutions' ping-pong, a new tile, the product's A D copy and buffer)."""
    return g.lower_bytes() + 5 * 4 * g.t * g.t


def adat_bytes(g: TileGrid, n: int) -> int:
    """C's lower tiles, A's row bands (one column chunk: all of n here), scratch."""
    n4 = padded(n, 4)
    return g.lower_bytes() + g.count * g.t * n4 * 4 + 2 * g.t * n4 * 4


# -- the public operations of the blocked path (numpy in, numpy out) ----------------

def _upload_lower(ctx, M: np.ndarray, what: str) -> TiledLower:
    """M's lower triangle in tiles (one when it fits), after checking the memory."""
    require(ctx)
    m = M.shape[0]
    g = TileGrid(m, tile_order(m, ctx.max_texture_size))
    memory.require(ctx, cholesky_bytes(g), f"{what} of a {m} x {m} matrix ({g.count} x {g.count} tiles)")
    return TiledLower.upload(ctx, M, g.t)


def cholesky(C, *, packed: bool = False, variant: str = "outer", ctx: Context | None = None) -> np.ndarray:
    """L with L L^T = C by the tiled blocked Cholesky: one tile when C fits one
    texture (the blocked Cholesky of a single texture), tiles of layouts.tiles's
    order when it does not.  C float32, validated (glgpgpu.cholesky chooses this
    for method="blocked").  No packed layout and no other variant: dispatch
    refuses those before calling."""
    if packed or variant != "outer":
        raise ValueError("the blocked Cholesky has no packed layout and only the 'outer' variant")
    T = _upload_lower(resolve(ctx), C, "the Cholesky factorization")
    try:
        factor(T)
        T.clear_upper()
        return T.read()
    finally:
        T.release()


def solve(L_lower: np.ndarray, Bm: np.ndarray, steps, *, packed: bool = False, ctx: Context | None = None):
    """Substitutions `steps` (False forward with L, True backward with L^T) on the
    right-hand sides Bm (m x nrhs float32), tiled when L passes one texture; the
    same signature as paper.solve."""
    if packed:
        raise ValueError("the blocked solves have no packed layout")
    T = _upload_lower(resolve(ctx), L_lower, "triangular solves")
    try:
        return solve_tiled(T, Bm, steps)
    finally:
        T.release()


def adat(A, d2, *, packed: bool = False, ctx: Context | None = None, tile=ADAT_TILE) -> np.ndarray:
    """C = A diag(d2) A^T (float32, lower triangle): one texture when C fits one,
    else tiles of C, each the sum over A's column chunks of (A_I D) A_J^T."""
    ctx = resolve(ctx)
    require(ctx)
    m, n = A.shape
    fits = padded(m, max(tile[0], 4)) <= ctx.max_texture_size and padded(n, 4) // 4 <= ctx.max_texture_size
    if packed or fits:
        mp = padded(m, max(tile[0], 4))
        memory.require(ctx, 4 * mp * mp + 3 * 4 * mp * padded(n, 4), f"A diag(d2) A^T with A of {m} x {n}")
        return adat_one_texture(A, d2, packed=packed, ctx=ctx, tile=tile)
    T = adat_tiled(ctx, A, d2, tile_order(m, ctx.max_texture_size), tile=tile)
    try:
        return T.read()
    finally:
        T.release()


def adat_tiled(ctx, A, d2, t: int, *, tile=ADAT_TILE) -> TiledLower:
    """The lower tiles of A diag(d2) A^T on the GPU (A float32 m x n, any m, n)."""
    K = ctx.kernels
    m, n = A.shape
    g = TileGrid(m, t)
    width = 4 * ctx.max_texture_size                 # columns of A one band texture holds
    memory.require(ctx, adat_bytes(g, min(n, width)), f"A diag(d2) A^T with A of {m} x {n} ({g.count}^2 tiles of C)")
    T = TiledLower.zeros(ctx, g)
    try:
        for c0 in range(0, n, width):
            c1 = min(n, c0 + width)
            n4 = padded(c1 - c0, 4)
            d_tex = upload_rgba(ctx, d2[None, c0:c1], 1, n4, "d")
            bands, ends = [], []
            try:
                for I in range(g.count):
                    band = A[g.span(I), c0:c1]
                    bands.append(upload_rgba(ctx, band, t, n4, f"A rows of tile {I}"))
                    nz = np.flatnonzero(band.any(axis=0))           # a band's zero trailing columns
                    ends.append(-(-(int(nz[-1]) + 1) // 4) if nz.size else 0)   # add nothing: skip them
                add_products(T, bands, d_tex, ends, tile=tile)
            finally:
                K.pool.give(d_tex, *bands)
    except BaseException:
        T.release()
        raise
    return T
