"""The right-looking tiled Cholesky): for each tile column K, factor the
diagonal tile (POTRF), solve the tiles below it (TRSM), update the trailing lower
tiles (SYRK on the diagonal, GEMM off it) -- in layouts.tiles.cholesky_steps's
order, each operation the method's own kernels (TileKernels)."""
from __future__ import annotations

import time

import numpy as np

from ..errors import NotPositiveDefiniteError
from ..gl import memory
from ..layouts.tiles import TileGrid, cholesky_steps
from ..parallel import Prefaulted
from .matrix import TiledLower, tile_grid


def cholesky_bytes(g: TileGrid, tile_bytes: int | None = None) -> int:
    """GPU bytes of a tiled factorization: the lower tiles plus the scratch one tile
    step needs (a transposed or ping-pong tile, the substitutions' pair, the product's
    scaled copy and buffer)."""
    tb = 4 * g.t * g.t if tile_bytes is None else tile_bytes
    return len(g.lower()) * tb + 5 * tb


def upload_checked(ctx, C: np.ndarray, ops, what: str) -> TiledLower:
    """C's lower tiles on tile_grid's grid, after checking the GPU memory a tiled
    factorization needs (GPUMemoryError naming the bytes otherwise)."""
    g = tile_grid(ctx, C.shape[0], ops)
    memory.require(ctx, cholesky_bytes(g, ops.tile_bytes(g.t)),
                   f"{what} of a {g.m} x {g.m} matrix ({g.count} x {g.count} tiles)")
    return TiledLower.upload(ctx, C, g.t, ops)


def _lap(ctx, profile, phase) -> None:
    """Add the seconds since the last lap to profile[phase] (after the GPU is done)."""
    if profile is None:
        return
    ctx.finish()
    now = time.perf_counter()
    profile[phase] = profile.get(phase, 0.0) + now - profile.get("_t", now)
    profile["_t"] = now


def factor(T: TiledLower, *, profile: dict | None = None, pivot_floor: float | None = None,
           regularize: bool = False) -> np.ndarray:
    """Tiled right-looking Cholesky in place; returns the global diagonal of L.
    Raises NotPositiveDefiniteError naming the global pivot that failed.
    profile: a dict that gets the seconds of each phase (potrf, trsm, update),
    measured by waiting for the GPU at every phase boundary (benchmarks only).
    pivot_floor / regularize: the LP solver's pivot floors (cholesky.factor_texture)."""
    ctx, ops, g = T.ctx, T.ops, T.grid
    t = g.t
    neg = ops.d_row(np.full(t, -1.0, np.float32))
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
                T.tiles[Kc, Kc], d = ops.potrf(T.tiles[Kc, Kc], mK, pivot_floor=pivot_floor, regularize=regularize)
                pivots[g.span(Kc)] = d
                if not np.isfinite(d).all() or (d <= 0).any():
                    # the message names the order of the whole matrix, not of the tiles factored so far
                    NotPositiveDefiniteError.check(pivots[:g.span(Kc).stop], g.m)
            elif op == "trsm":
                T.tiles[I, Kc] = ops.trsm(T.tiles[Kc, Kc], mK, T.tiles[I, Kc], t, rows=g.size(I))
            else:                                                             # SYRK / GEMM
                T.tiles[I, J] = ops.downdate(T.tiles[I, J], T.tiles[I, Kc], T.tiles[J, Kc], neg, t=t,
                                             diagonal=I == J, rows=g.size(I), cols=g.size(J), k_end=mK)
        _lap(ctx, profile, phase)
    finally:
        ops.give(neg)
    return pivots


def factor_and_read(T: TiledLower) -> np.ndarray:
    """Factor T in place and return L as an m x m float32 array (upper part zero); T is
    released either way -- the public cholesky of every method beyond one texture."""
    try:
        out = Prefaulted((T.grid.m, T.grid.m), zero=True)     # zeroed by the host's threads meanwhile
        factor(T)
        T.clear_upper()
        return T.read(out.array)
    finally:
        T.release()
