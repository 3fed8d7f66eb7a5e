"""Stages (Yeralan et al. 2015, section 3.4, Figs. 13-14): walk the fronts in
postorder keeping a running sum of what the GPU must hold -- each front, its
children's contribution blocks and its rows of A -- and start a new stage when
the next front would pass the memory budget.  Within a stage, `front_rounds`: each
front in the round after its last child's (the rounds the GPU factors together).  A front whose parent lies in a
later stage sends its contribution block back to the host with its R; the parent's
stage sends it down again."""
from __future__ import annotations

import numpy as np

from .fronts import Analysis

BYTES = 4        # float32 entries


def front_bytes(an: Analysis) -> np.ndarray:
    """What front f needs on the GPU while it is assembled and factored: its dense
    fm x fn matrix, its rows of A (as values), and its children's blocks."""
    fn = an.fn
    own = an.fm * fn
    s = np.array([r.shape[0] for r in an.s_rows], np.int64) * fn
    cb = np.zeros(an.nfronts, np.int64)
    blocks = an.cm * (fn - an.fp)
    for f in range(an.nfronts):
        if an.children[f]:
            cb[f] = blocks[an.children[f]].sum()
    return BYTES * (own + s + cb)


def plan_stages(an: Analysis, budget: int | None) -> list:
    """Fronts (postorder) split into consecutive stages whose summed front_bytes fit
    `budget` bytes (None: one stage).  A front that alone needs more is refused."""
    if budget is None:
        return [np.arange(an.nfronts)]
    need = front_bytes(an)
    if an.nfronts and need.max() > budget:
        f = int(np.argmax(need))
        raise MemoryError(f"front {f} ({an.fm[f]} x {an.fn[f]}) with its children's blocks needs {need[f]:,} bytes, "
                          f"more than memory_budget={budget:,}; give at least that much")
    out, start, total = [], 0, 0
    for f in range(an.nfronts):
        if total + need[f] > budget and f > start:
            out.append(np.arange(start, f))
            start, total = f, 0
        total += need[f]
    out.append(np.arange(start, an.nfronts))
    return out


def front_rounds(an: Analysis, fronts: np.ndarray) -> list:
    """Fronts grouped into rounds as soon as possible: each front in the round after its
    last child's (the leaves all in the first)."""
    level = {}
    for f in fronts:                        # postorder: children first
        ch = an.children[f]
        level[f] = 1 + max((level.get(c, -1) for c in ch), default=-1)
    out = {}
    for f in fronts:
        out.setdefault(level[f], []).append(int(f))
    return [out[k] for k in sorted(out)]


def depths(an: Analysis, fronts=None) -> np.ndarray:
    """Each front's distance from its root (nfronts entries): within `fronts` where
    given (a parent outside them counts as none; the others' entries are 0)."""
    fronts = np.arange(an.nfronts) if fronts is None else np.asarray(fronts, np.int64)
    inside = np.zeros(an.nfronts, bool)
    inside[fronts] = True
    depth = np.zeros(an.nfronts, np.int64)
    for f in fronts[::-1]:                  # postorder reversed: parents before children
        p = int(an.parent[f])
        depth[f] = depth[p] + 1 if p >= 0 and inside[p] else 0
    return depth


def front_levels(an: Analysis, fronts: np.ndarray) -> list:
    """Fronts grouped into rounds as late as possible: by depth below their root within
    `fronts` (a parent outside them -- a later stage -- counts as none), deepest first,
    so each front runs in the round just before its parent's.  As many rounds as
    front_rounds.  A round's fronts tend to be closer in size (a small leaf waits for
    the fronts beside its parent), so where a round costs its tallest front's panels
    these often count fewer launches -- grid3d_40: 753 by front_rounds, 541 by these,
    531 on the critical path (benchmarks/RESULTS.md) -- but not always (a big leaf deep
    in the tree and one near the root share a round as soon as possible, not here)."""
    fronts = np.asarray(fronts, np.int64)
    depth = depths(an, fronts)
    out = {}
    for f in fronts:
        out.setdefault(int(depth[f]), []).append(int(f))
    return [out[k] for k in sorted(out, reverse=True)]
