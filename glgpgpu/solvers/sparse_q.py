"""Q of a sparse multifrontal QR, kept as its fronts' Householder reflectors
(`sparse_qr(..., keep_h=True)`) -- the paper's GPU path keeps no Q; SuiteSparseQR
keeps H this way on the host.

Each front f holds fm rows: its own rows of A and its children's contribution
blocks.  Its QR applies min(fm, fn) reflectors to those rows; afterwards rows
0 .. fr-1 are R's rows super[f] .., rows fr .. fr+cm-1 go on to the parent, and the
rest are zero in every column ("squeezed": their part of Q^T y is a piece of the
residual).  So Q^T y runs the tree in postorder, front by front, and Q z in reverse.

Q^T y is laid out against R: entry i (i < n) pairs with R's row i; a row of R that
no front produced (a zero row) takes a squeezed entry, and the other squeezed
entries follow in entries n .. m-1.  Then A P = Q [R; 0], Q orthogonal (m x m).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg.lapack as lapack


class SparseQ:
    """Q of A P = Q [R; 0] as reflectors per front: `qt(Y)`, `q(Z)` for Y, Z (m,) or (m, k)."""

    def __init__(self, an, fronts: dict, m: int):
        self.an, self.m = an, m
        self.fronts = fronts                    # f -> (F fm x fn, V below its diagonal; tau)
        n = an.n
        produced = np.zeros(n, bool)
        for f in range(an.nfronts):
            produced[an.super[f]:an.super[f] + int(an.frank[f])] = True
        # squeezed entries go first to R's zero rows, then after R
        self.slots = np.concatenate([np.flatnonzero(~produced), np.arange(n, m)])
        # rows of A no front takes (all zero): Q leaves them be, after the squeezed rows
        taken = np.zeros(m, bool)
        for f in range(an.nfronts):
            taken[an.source_row[f][an.sources[f] == -1]] = True
        self.untouched = np.flatnonzero(~taken)
        # where each front's squeezed rows sit among the squeezed entries (postorder, as qt lays them)
        sizes = [max(int(an.fm[f]) - int(an.frank[f]) - int(an.cm[f]), 0) for f in range(an.nfronts)]
        self.squeezed_at = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    def _h(self, f, C: np.ndarray, trans: bool) -> np.ndarray:
        F, tau = self.fronts[f]
        k = tau.shape[0]
        if k == 0 or C.shape[0] == 0:
            return C
        a = np.asfortranarray(F[:, :k], dtype=np.float64)
        out, _work, info = lapack.dormqr("L", "T" if trans else "N", a, np.asarray(tau, np.float64),
                                         np.asfortranarray(C), max(1, C.shape[1]) * 64)
        if info != 0:
            raise RuntimeError(f"dormqr failed on front {f} (info {info})")
        return out

    def qt(self, Y) -> np.ndarray:
        """Q^T Y (float64)."""
        Y, one = self._as2d(Y)
        an = self.an
        out = np.zeros_like(Y)
        passed, squeezed = {}, []
        for f in range(an.nfronts):                 # postorder: children first
            fm = int(an.fm[f])
            if fm == 0:
                continue
            src, srow = an.sources[f], an.source_row[f]
            C = np.zeros((fm, Y.shape[1]))
            own = src == -1
            C[own] = Y[srow[own]]
            for c in an.children[f]:
                if c in passed:
                    at = src == c
                    C[at] = passed.pop(c)[srow[at]]
            C = self._h(f, C, trans=True)
            fr, cm = int(an.frank[f]), int(an.cm[f])
            out[an.super[f]:an.super[f] + fr] = C[:fr]
            if cm:
                passed[f] = C[fr:fr + cm]
            squeezed.append(C[fr + cm:])
        squeezed.append(Y[self.untouched])
        out[self.slots] = np.concatenate(squeezed)
        return out[:, 0] if one else out

    def q(self, Z) -> np.ndarray:
        """Q Z (float64)."""
        Z, one = self._as2d(Z)
        an = self.an
        rest = Z[self.slots]
        starts = self.squeezed_at
        out = np.zeros_like(Z)
        out[self.untouched] = rest[rest.shape[0] - self.untouched.shape[0]:]
        given = {}                                  # child -> its block's rows, from the parent
        for f in reversed(range(an.nfronts)):       # parents first
            fm = int(an.fm[f])
            if fm == 0:
                continue
            fr, cm = int(an.frank[f]), int(an.cm[f])
            C = np.zeros((fm, Z.shape[1]))
            C[:fr] = Z[an.super[f]:an.super[f] + fr]
            if cm:
                C[fr:fr + cm] = given.pop(f)
            C[fr + cm:] = rest[starts[f]:starts[f + 1]]
            C = self._h(f, C, trans=False)
            src, srow = an.sources[f], an.source_row[f]
            own = src == -1
            out[srow[own]] = C[own]
            for c in an.children[f]:
                if an.cm[c] and an.fm[c]:
                    at = src == c
                    blk = np.zeros((int(an.cm[c]), Z.shape[1]))
                    blk[srow[at]] = C[at]
                    given[c] = blk
        return out[:, 0] if one else out

    def _as2d(self, Y):
        Y = np.asarray(Y, np.float64)
        if Y.ndim not in (1, 2) or Y.shape[0] != self.m:
            raise ValueError(f"Q is {self.m} x {self.m}: give an array of {self.m} rows, not shape {Y.shape}")
        return (Y[:, None], True) if Y.ndim == 1 else (Y, False)
