"""Substitutions with a factored TiledLower: per tile row the substitution of the
diagonal tile, after the solved tiles' products are subtracted (a GEMV per tile,
summed on the GPU and read once per tile row); for L^T on transposed tiles
(TiledLower.transposed, made once and kept for later solves)."""
from __future__ import annotations

import numpy as np

from .cholesky import factor
from .matrix import TiledLower


def solve_tiled(T: TiledLower, B: np.ndarray, steps) -> np.ndarray:
    """Apply `steps` (False: L y = b, True: L^T x = y) to the columns of B (m x nrhs
    float32) with the factored tiles of T; float32 out."""
    g, ops = T.grid, T.ops
    T.ctx.check_size(g.t, B.shape[1], "the right-hand sides B (one texture column each)")
    if g.count == 1:                       # one tile: every step on the GPU, one upload, one read
        return ops.substitute(T.tiles[0, 0], g.m, g.t, B, steps)
    X = ops.solve_resident(T, np.asarray(B, np.float32), tuple(steps))
    if X is not None:
        return X
    X = np.array(B, np.float32, copy=True)
    for backward in steps:
        for Kc in (range(g.count - 1, -1, -1) if backward else range(g.count)):
            sK = g.span(Kc)
            rhs = X[sK].copy()
            Js = list(range(Kc + 1, g.count) if backward else range(Kc))
            tiles = [T.transposed(J, Kc) if backward else (T.tiles[Kc, J], False) for J in Js]
            try:
                if Js:
                    rhs -= ops.products([tex for tex, _ in tiles], [X[g.span(J)] for J in Js], g.t, g.size(Kc),
                                        X.shape[1])
            finally:
                ops.give(*(tex for tex, temporary in tiles if temporary))
            X[sK] = ops.substitute(T.tiles[Kc, Kc], g.size(Kc), g.t, rhs, (backward,))
    return X


class TiledFactor:
    """A factor kept on tiles for solves -- the base of the LS-SVM kernel factors
    beyond one texture (every method): `T` (a TiledLower, factored by
    `factor_tiles`), `solve(R)` float64 in and out, `release()`."""

    T = None
    watch = None

    def factor_tiles(self) -> None:
        """Factor T in place (cholesky.factor); on failure give the tiles back first."""
        with self.watch("factor"):
            try:
                self.pivots = factor(self.T)
            except BaseException:
                self.release()
                raise

    def solve(self, R: np.ndarray) -> np.ndarray:
        with self.watch("solve"):
            return solve_tiled(self.T, np.asarray(R, np.float32), (False, True)).astype(np.float64)

    def release(self) -> None:
        if self.T is not None:
            self.T.release()
            self.T = None
