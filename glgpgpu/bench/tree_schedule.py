"""Launches of the sparse QR's numeric phase under two schedules, counted on the host
(no GL): every front's own launches from the bucket scheduler (its staircase in
32 x 32 tiles, bundles of 3: Yeralan et al. 2015, section 3.1), then the tree's

  levels  level by level from the bottom: the fronts at one depth below the root
          together, deepest first (the level-synchronous schedule);
  rounds  round by round, each front in the round after its last child's, a round
          waiting for the whole previous one (what solvers/sparse_qr.py runs now:
          a round's fronts in one atlas);
  asap    each front right after its last child (scheduling/tree.py): the critical
          path, what the paper's scheduler across the tree reaches (Fig. 5)."""
from __future__ import annotations

from ..scheduling import buckets, tree
from ..symbolic import analyze, front_levels, front_rounds

TILE, BUNDLE = 32, 3


def front_schedules(an, tile: int = TILE, bundle: int = BUNDLE) -> list:
    """Each front's launches (buckets.schedule on its staircase, in tiles)."""
    out = []
    for f in range(an.nfronts):
        M, N = buckets.tile_counts(int(an.fm[f]), int(an.fn[f]), tile)
        lm = an.leftmost[f]
        left = [min(N, int(lm[i * tile]) // tile) for i in range(M)]
        out.append(buckets.schedule(M, N, leftmost=left, bundle=bundle, front=f))
    return out


def measure(name: str, A) -> dict:
    """The row of one matrix: fronts, rounds, launches by levels, rounds and asap, the ratios,
    and the busiest launch's task count under asap."""
    import numpy as np

    an = analyze(A)
    scheds = front_schedules(an)
    lengths = [len(s) for s in scheds]
    rounds = front_rounds(an, np.arange(an.nfronts))
    start, makespan = tree.asap(an.children, lengths)
    by_rounds = tree.rounds_launches(rounds, lengths)
    by_levels = tree.rounds_launches(front_levels(an, np.arange(an.nfronts)), lengths)
    merged = tree.merge_tree(scheds, start)
    return {"matrix": name, "m": A.shape[0], "n": A.shape[1], "fronts": an.nfronts, "rounds": len(rounds),
            "launches_levels": by_levels, "launches_rounds": by_rounds, "launches_asap": makespan,
            "levels_over_asap": by_levels / max(makespan, 1), "rounds_over_asap": by_rounds / max(makespan, 1),
            "max_tasks_per_launch": max((len(t) for t in merged), default=0)}
