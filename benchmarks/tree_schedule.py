"""How many launches the sparse QR's fronts need level by level, round by round (now) and when each
front starts right after its last child (the bucket scheduler across the tree, the
critical path), counted on the host without a GPU:

    python benchmarks/tree_schedule.py [--generated grid3d_20,grid3d_40,nug15,ch6-7-b3] [--netlib DIR] [--out DIR]

Writes tree-schedule-<date>.csv (glgpgpu/bench/tree_schedule.py says what is counted)."""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import argparse
import os
import time
from pathlib import Path

from glgpgpu.bench import matrices
from glgpgpu.bench.common import write_csv
from glgpgpu.bench.tree_schedule import measure


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--generated", default="grid3d_20,grid3d_40,nug15,ch6-7-b3")
    ap.add_argument("--netlib", default=None, help="also every NETLIB A^T in DIR")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "benchmarks/results")))
    a = ap.parse_args()
    todo = [(g, matrices.GENERATED[g]) for g in a.generated.split(",") if g]
    if a.netlib:
        for p in sorted(Path(a.netlib).glob("*.mps.gz")):
            todo.append((p.name.split(".")[0], lambda p=p: matrices.netlib_at(p)))
    rows = []
    for name, make in todo:
        t0 = time.perf_counter()
        row = measure(name, make())
        rows.append(row)
        print(f"{name:10s} {row['fronts']:6d} fronts {row['rounds']:3d} rounds  launches: by rounds "
              f"{row['launches_rounds']:5d} ({row['rounds_over_asap']:.2f}x asap), by levels {row['launches_levels']:5d} "
              f"({row['levels_over_asap']:.2f}x), asap {row['launches_asap']:5d}, "
              f"busiest launch {row['max_tasks_per_launch']} tasks  [{time.perf_counter() - t0:.1f} s]", flush=True)
    print(write_csv(rows, a.out / f"tree-schedule-{time.strftime('%Y-%m-%d')}.csv"))


if __name__ == "__main__":
    main()
