"""The LS-SVM's float32 factor on the cluster: H = K + diag I made tile by tile on each
tile's owner from the points of its rows and columns (X travels, H never does), factored
by the tiled Cholesky's tasks (schedule.py), and kept on the workers for solves --
forward and backward substitution by tile rows, each worker summing the products of its
own tiles, the diagonal tile's owner subtracting them and substituting."""
from __future__ import annotations

import uuid

import numpy as np

from ..layouts.tiles import TileGrid
from . import worker as w
from .schedule import _factor_tiles, _wait, owners


class DistributedKernelFactor:
    """L L^T = K(X, X) + diag I on a Dask cluster's GPUs: `.pivots`, `.solve(R)` (float64
    in and out, float32 substitutions), `.release()` -- what lssvm.train asks of a factor."""

    def __init__(self, X, *, client, kernel, gamma, degree, coef0, diag, tile=None, method="compute", poll=0.5):
        self.client, self.poll = client, poll
        workers = sorted(client.scheduler_info()["workers"])
        if not workers:
            raise ValueError("the Dask cluster has no workers; start some (LocalGLCluster() or `dask worker`)")
        X = np.asarray(X, np.float64)
        name, t = client.submit(w.plan, X.shape[0], tile, method, "outer", workers=workers[:1], pure=False).result()
        self.g = g = TileGrid(X.shape[0], t)
        self.own = owners(g.count, workers)
        self.job = f"kernel-{uuid.uuid4().hex}"
        self.live = []
        parts = {I: client.scatter(X[g.span(I)], broadcast=True) for I in range(g.count)}

        def make(submit, I, J):
            return submit(w.kernel_tile, (I, J), I, J, parts[I], parts[J], t, name, kernel, gamma, degree,
                          coef0, diag)
        try:
            self.pivots = _factor_tiles(client, g, self.own, self.job, name, "outer", self.live, poll, make)
        except BaseException:
            self.release()
            raise

    def _submit(self, fn, tile, *args):
        fut = self.client.submit(fn, self.job, *args, workers=[self.own[tile]], allow_other_workers=False,
                                 pure=False)
        self.live.append((fut, self.own[tile], tile))
        return fut

    def solve(self, R: np.ndarray) -> np.ndarray:
        g = self.g
        R = np.asarray(R, np.float32).reshape(g.m, -1)
        y = {}
        for backward in (False, True):
            order = range(g.count - 1, -1, -1) if backward else range(g.count)
            x = {}
            for K in order:
                Js = list(range(K + 1, g.count)) if backward else list(range(K))
                by_owner = {}
                for J in Js:
                    by_owner.setdefault(self.own[(J, K) if backward else (K, J)], []).append(J)
                partials = [self._submit(w.row_products, (Js_[0], K) if backward else (K, Js_[0]), K, Js_, g.t,
                                         g.size(K), backward, *[x[J] for J in Js_])
                            for Js_ in by_owner.values()]
                rhs = (y[K] if backward else R[g.span(K)])
                x[K] = self._submit(w.diagonal_solve, (K, K), K, g.size(K), g.t, rhs, backward, *partials)
            y = {K: x[K] for K in x}
        _wait(self.client, self.live, self.poll)
        self.live = [entry for entry in self.live if not entry[0].done()]
        return np.concatenate([y[K].result() for K in range(g.count)]).astype(np.float64)

    def release(self) -> None:
        present = self.client.scheduler_info()["workers"]
        for addr in set(self.own.values()):
            if addr in present:
                self.client.submit(w.release, self.job, workers=[addr], pure=False,
                                   allow_other_workers=False).result()
