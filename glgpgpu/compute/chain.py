"""Triangular solves with a few right-hand sides, one dispatch each way (trsv_chain.comp): a
workgroup a block of NB rows, each block waiting on the flags of the blocks it needs and
adding their parts as they come, for every right-hand side at once.  Where one dispatch a
block (trsm_rhs + a product per block, `dense.solve_buffer`) makes a chain of 4 m / NB
launches, this is 2.  Used by the float64 factor (the LP's solves) and the float32 kernel
factor (the LS-SVM's refinement, a few right-hand sides).  A software renderer ends long
shader loops, so there the blocks are solved one dispatch each (nothing waits), and a wait
that gave up anywhere marks the solution's extra slot and the solve is made again so."""
from __future__ import annotations

import numpy as np

from .blas import NB, Pooled, download, fill, write

#: right-hand sides up to this many are solved here, together (two dispatches for up to 8
#: float32 or 4 float64 columns: trsv_chain.comp's shared memory); more, by the blocked solve
#: (dense.solve_buffer: four dispatches a block of rows, every column at once)
MOST_COLUMNS = 8


class Vector32(Pooled):
    """float32 rows of n numbers each, n apart (ld), in a pooled buffer (put / get / clear /
    give: Float64Matrix's interface)."""

    def __init__(self, ctx, rows: int, n: int, what: str):
        self.rows, self.ld = int(rows), int(n)
        self._mb = ctx.buffers.take(self.rows, n, what, ld=n)
        self.buf = self._mb.buf

    def put(self, ctx, values: np.ndarray) -> None:
        write(ctx, self._mb, np.asarray(values, np.float32).reshape(self.rows, -1))

    def get(self, ctx) -> np.ndarray:
        return download(ctx, self._mb).astype(np.float64)


class ChainSolves:
    """x with L L^T x = b for the lower factor L of order m in `L_buf` (row stride ld, in
    numbers: float32, or float64 with fp64), L's upper part never read.  tiles: a TileLists
    (only the blocks each block depends on).  vector: the class of the solution's buffers
    (Vector32 or float64's Float64Matrix).  Release when done."""

    #: a chain's ticket counter is zeroed again before it passes this
    TICKETS = 1 << 30

    def __init__(self, ctx, L_buf, ld: int, m: int, *, fp64: bool = False, tiles=None, vector=Vector32):
        self.ctx, self.L_buf, self.ld, self.m = ctx, L_buf, int(ld), int(m)
        self.fp64, self.tiles, self.vector = fp64, tiles, vector
        self.blocks = -(-self.m // NB)
        self._sync = None
        self._tickets = self._epoch = 0

    def solve(self, b: np.ndarray, steps=(False, True)) -> np.ndarray:
        """x (m,) float64 for b (m,), in the factor's precision: the substitutions `steps`
        in order (False: L y = b, True: L^T x = y)."""
        return self.solve_columns(np.asarray(b, np.float64).reshape(self.m, 1), steps)[:, 0]

    def solve_columns(self, B: np.ndarray, steps=(False, True)) -> np.ndarray:
        """X (m x k) float64 for B (m x k): up to MOST_COLUMNS columns in one chain of
        dispatches (every column's sums those of its one-column solve), every group queued
        before the first is read back -- one wait for them all."""
        ctx, m = self.ctx, self.m
        B = np.asarray(B, np.float64).reshape(m, -1)
        k = B.shape[1]
        if not k:
            return B.copy()
        # one slot past each solution: trsv_chain.comp marks there that a wait gave up
        rhs = np.vstack([B, np.zeros((1, k))]).T
        # trsv_chain.comp's shared memory within llvmpipe's 32 KiB: 8 float32 columns, 4 float64
        most = max(1, min(4 if self.fp64 else 8, MOST_COLUMNS))
        groups = [(c, min(k, c + most)) for c in range(0, k, most)]
        pairs = []
        try:
            for c0, c1 in groups:
                pairs.append((self.vector(ctx, c1 - c0, m + 1, "right-hand sides"),
                              self.vector(ctx, c1 - c0, m + 1, "solutions")))
                X, Y = pairs[-1]
                X.put(ctx, rhs[c0:c1])
                # the kernel marks the slot past a solution only where a wait gave up: a pooled
                # buffer's old number there would send an odd number of steps to the slow retry
                Y.clear(ctx)
                self.run(X, Y, per_block=bool(ctx.caps.software), steps=steps)
            out = np.empty((m, k))
            again = []
            for (c0, c1), (X, Y) in zip(groups, pairs):
                y = (Y if len(steps) % 2 else X).get(ctx)
                out[:, c0:c1] = y[:, :m].T
                if y[:, m].any():                       # a wait gave up: again, a block a dispatch
                    again.append((c0, c1, X, Y))
            if again:
                self.restart()
                for c0, c1, X, Y in again:
                    X.put(ctx, rhs[c0:c1])
                    self.run(X, Y, per_block=True, steps=steps)
                    out[:, c0:c1] = (Y if len(steps) % 2 else X).get(ctx)[:, :m].T
            return out
        finally:
            for X, Y in pairs:
                X.give()
                Y.give()

    def run(self, X, Y, per_block: bool = False, steps=(False, True)) -> None:
        """The substitutions `steps` (False: L y = b, True: L^T x = y), from X into Y, then
        back into X, and so on: one dispatch each, the blocks passed on between
        workgroups; or per_block, one dispatch a block.  The ticket counter and flags are
        never reset between dispatches: each takes the tickets after the last one's and
        flags of its own epoch.  X and Y hold a row of m + 1 numbers a right-hand side
        (at most 8), ld apart."""
        blocks = self.blocks
        if self._sync is None or self._tickets + len(steps) * blocks > self.TICKETS:
            self.restart()
        src, dst = X, Y
        for backward in steps:
            self._epoch += 1
            buffers = {0: self.L_buf, 1: src.buf, 2: dst.buf, 3: self._sync.buf}
            defines = {"NB": NB, **({"FP64": 1} if self.fp64 else {}), **({"BACKWARD": 1} if backward else {}),
                       **({"KCOLS": X.rows} if X.rows > 1 else {})}
            uniforms = {"u_m": self.m, "u_ld": self.ld, "u_ldx": X.ld, "u_blocks": blocks,
                        "u_base": self._tickets, "u_epoch": self._epoch}
            if self.tiles is not None:                  # only the blocks each one depends on
                buffers[4], defines["LISTED"] = self.tiles.buf, 1
                uniforms["u_list"] = self.tiles.backward_at if backward else self.tiles.forward_at
            for _ in range(blocks if per_block else 1):
                self.ctx.kernels.dispatch("trsv_chain", (1 if per_block else blocks, 1, 1), buffers=buffers,
                                          defines=defines, uniforms=uniforms)
            self._tickets += blocks
            src, dst = dst, src

    def restart(self) -> None:
        """Every ticket, flag and give-up mark back to zero."""
        if self._sync is None:
            self._sync = self.ctx.buffers.take(1, 2 + self.blocks, "the solves' block flags", ld=2 + self.blocks)
        fill(self.ctx, self._sync, 0.0)                 # 0.0f's bits are int 0 (the dispatch's barrier orders it)
        self._tickets, self._epoch = 0, 0

    def release(self) -> None:
        if self._sync is not None:
            self._sync.give()
            self._sync = None
