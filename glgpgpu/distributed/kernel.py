"""The LS-SVM's float32 factor on the cluster: H = K + diag I made tile by tile on each
tile's owner from the points of its rows and columns (X travels, H never does), factored
by the tiled Cholesky's tasks (schedule.py), and kept on the workers for solves --
forward and backward substitution by tile rows, each other worker summing the products of
its own tiles of the row, the diagonal tile's owner summing its own, subtracting them all
and substituting (worker.solve_step; in block columns it also makes the next row's partial
of its own tiles, so the next row waits on it alone)."""
from __future__ import annotations

import uuid
from contextlib import nullcontext

import numpy as np

from .. import validate as check
from . import worker as w
from .schedule import _as_dask, _wait, checked_pivots, factor_tiles, made_and_read, plan, release, shared_memory, submitter


#: the rows of the grid of workers that owns the LS-SVM factor's tiles: 1, block columns -- a
#: column's tiles and its diagonal tile on one worker, so a substitution's step makes the next
#: row's partial with its own solve and the next step waits one hop, not two (the factor itself
#: took the same time in block columns as 2 x 2 on 4 H100s: benchmarks/RESULTS.md, round 37)
GRID_ROWS = 1


class DistributedKernelFactor:
    """L L^T = K(X, X) + diag I on a Dask cluster's GPUs: `.pivots`, `.solve(R)` (float64
    in and out, float32 substitutions), `.release()` -- what lssvm.train asks of a factor."""

    def __init__(self, X, *, client, kernel, gamma, degree, coef0, diag, tile=None, method="compute", poll=0.5,
                 watch=None):
        self.client, self.poll, self.watch = client, poll, watch
        X = np.asarray(X, np.float64)
        name, self.g, self.own = plan(client, X.shape[0], tile, method, "outer", rows=GRID_ROWS)
        g = self.g
        self.job = f"kernel-{uuid.uuid4().hex}"
        self.live = []
        self._submit = submitter(client, self.own, self.job, self.live)
        parts = {I: client.scatter(X[g.span(I)], broadcast=True, hash=False) for I in range(g.count)}

        def make(submit, I, J):
            return submit(w.kernel_tile, (I, J), I, J, parts[I], parts[J], g.t, name, kernel, gamma, degree,
                          coef0, diag)
        try:
            pivots = factor_tiles(client, g, self.own, self.job, name, "outer", self.live, make,
                                  share=shared_memory(client, self.own, g)[0])
            self.pivots = checked_pivots(client, self.live, poll, pivots, g.m)
        except BaseException:
            self.release()
            raise

    def solve(self, R: np.ndarray) -> np.ndarray:
        """H^-1 R by the float32 factor's forward and backward substitution, a task a tile row on
        the owner of its diagonal tile (solve_step), plus one a tile row for each other worker that
        owns tiles of that row (row_products); timed as "solve" by the Stopwatch `watch`, as a
        method's own factor times its solves."""
        with self.watch("solve") if self.watch is not None else nullcontext():
            return self._solve(R)

    def _solve(self, R: np.ndarray) -> np.ndarray:
        g, own = self.g, self.own
        R = np.asarray(R, np.float32).reshape(g.m, -1)
        y = {}
        for backward in (False, True):
            order = range(g.count - 1, -1, -1) if backward else range(g.count)
            x = {}
            carried = None                        # the owner whose row partial the step before made
            for K in order:
                here = own[K, K]
                by_owner = {}
                for J in (range(K + 1, g.count) if backward else range(K)):
                    by_owner.setdefault(own[(J, K) if backward else (K, J)], []).append(J)
                mine = [] if carried == here else by_owner.pop(here, [])
                by_owner.pop(carried, None)
                partials = [self._submit(w.row_products, (Js[0], K) if backward else (K, Js[0]), K, Js, g.t,
                                         g.size(K), backward, *[x[J] for J in Js])
                            for Js in by_owner.values()]
                ahead = []
                if not backward and K + 1 < g.count and own[K + 1, K] == here:   # block columns: L_K+1,K here
                    ahead = [J for J in range(K + 1) if own[K + 1, J] == here]
                rhs = y[K] if backward else R[g.span(K)]
                values = [x[J] for J in mine] + [x[J] for J in ahead if J != K] + \
                    ([x[K - 1]] if carried is not None else []) + partials
                x[K] = self._submit(w.solve_step, (K, K), K, g.size(K), g.t, rhs, backward, mine, ahead,
                                    g.size(K + 1) if ahead else 0, carried is not None, *values)
                carried = here if ahead else None
            y = x
        _wait(self.client, self.live, self.poll)
        self.live[:] = [entry for entry in self.live if not entry[0].done()]     # submitter appends here
        return np.concatenate([w.solution(y[K].result()) for K in range(g.count)]).astype(np.float64)

    def release(self) -> None:
        release(self.client, self.own, self.job)


def kernel_matrix(X, *, client=None, kernel: str = "rbf", gamma: float | None = None, degree: int = 3,
                  coef0: float = 0.0, tile: int | None = None, method: str = "compute", poll: float = 0.5):
    """K(i, j) = k(x_i, x_j) as `glgpgpu.kernel_matrix` returns it (float32 (N, N), the lower
    triangle, upper part zero; the same checks and the same points made safe for float32), as
    a dask.array whose tiles are formed on the cluster's workers from the points of their rows
    and columns -- X travels, K never does: on each owner's GPU where the method forms kernel
    tiles (compute: the LS-SVM's own tiles, the same bits), else in float64 on its host -- and
    stay there as numpy.  tile: the tile order's limit (default: each worker's texture limit).
    Raises WorkerLostError naming the worker and tile where an owner leaves."""
    import dask.array as da
    from distributed import get_client

    client = client or get_client()
    X32, kernel, gamma, degree, coef0, exact = check.kernel_inputs(X, kernel, gamma, degree, coef0)
    if exact is not None:                     # no float32 Gram matrix resolves these distances
        return da.from_array(exact, chunks=tile or exact.shape[0] or 1)
    name, g, own = plan(client, X32.shape[0], tile, method, "outer")
    parts = {I: client.scatter(X32[g.span(I)], broadcast=True, hash=False) for I in range(g.count)}

    def make(submit, I, J):
        return submit(w.kernel_tile, (I, J), I, J, parts[I], parts[J], g.t, name, kernel, gamma, degree, coef0, 0.0)
    return _as_dask(made_and_read(client, g, own, "kernel-matrix", make, poll), g)
