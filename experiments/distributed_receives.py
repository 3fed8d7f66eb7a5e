"""How many finished tiles each worker must receive, and how many updates and TRSMs it runs, for a
given ownership of the tiles -- counted from the schedule's own `readers` (no GPU, no Dask).

Each worker uploads every tile it receives on its one task thread (12 ms a 64 MB tile on the H100
hosts, round 38), so the busiest receiver sets a floor under the factor.  Compared:

  2x2      schedule.owners' default for 4 workers (2-D block-cyclic): the two workers off the grid's
           diagonal read every tile row, the two on it half of them;
  1x4      block columns (schedule.GRID_ROWS = 1): every worker reads about 3/4 of the tiles;
  sym4     schedule.LAYOUT = "symmetric": a pattern over (I mod 4, J mod 4) (after the symmetric
           block-cyclic layouts of Beaumont et al., 2022): cells (a, b) and (b, a) on one worker, each
           worker's cells meeting at most 3 of the 4 residues, the same share of tiles each.

    python experiments/distributed_receives.py [--counts 15,30]
"""
from __future__ import annotations

import argparse
import collections

from glgpgpu.distributed import schedule
from glgpgpu.distributed.schedule import owners, readers


def sym4(count: int, workers: list) -> dict:
    """schedule.LAYOUT = "symmetric"'s owners (schedule.SYMMETRIC_4)."""
    old, schedule.LAYOUT = schedule.LAYOUT, "symmetric"
    try:
        return owners(count, workers)
    finally:
        schedule.LAYOUT = old


def counts(own: dict, count: int, workers: list) -> tuple:
    """(tiles received, updates, TRSMs) per worker."""
    received, updates, trsms = collections.Counter(), collections.Counter(), collections.Counter()
    for I in range(count):
        for K in range(I + 1):
            for w in readers(own, count, I, K) - {own[I, K]}:
                received[w] += 1
            updates[own[I, K]] += K                      # tile (I, K) is updated by steps 0 .. K-1
            trsms[own[I, K]] += I > K
    return tuple([c[w] for w in workers] for c in (received, updates, trsms))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--counts", default="15,30", help="tile rows (15: 60,000 in tiles of 4,096)")
    a = ap.parse_args()
    ws = ["w0", "w1", "w2", "w3"]
    for count in (int(c) for c in a.counts.split(",")):
        for name, own in [("2x2", owners(count, ws)), ("1x4", owners(count, ws, 1)), ("sym4", sym4(count, ws))]:
            received, updates, trsms = counts(own, count, ws)
            print(f"{count:3d} x {count:<3d} {name:5s} received {received} (most {max(received)}), "
                  f"updates {updates}, TRSMs {trsms}")


if __name__ == "__main__":
    main()
