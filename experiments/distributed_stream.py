"""Where a distributed factor's time goes: the task stream that
`benchmarks/distributed_cholesky.py --stream` writes, summed per run (m, GPUs) and worker --
seconds computing each kind of task (put, potrf, trsm, update, fetch), seconds receiving
tiles, and the time the worker's thread sat idle.

    python experiments/distributed_stream.py STREAM.csv
"""
from __future__ import annotations

import argparse
import collections
import csv


def median(values) -> float:
    values = sorted(values)
    return values[len(values) // 2] if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stream")
    a = ap.parse_args()
    runs = collections.defaultdict(list)
    with open(a.stream) as f:
        for r in csv.DictReader(f):
            runs[int(r["m"]), int(r["gpus"])].append(r)
    for (m, gpus), rows in sorted(runs.items()):
        end = max(float(r["stop"]) for r in rows)
        print(f"m = {m}, {gpus} GPU(s): last task ends {end:.3f} s after the clock's start")
        starts = sorted(float(r["start"]) for r in rows if r["action"] == "compute" and r["task"] == "potrf")
        gaps = [b - a for a, b in zip(starts, starts[1:])]
        if gaps:
            print(f"  steps (POTRF to POTRF): median {median(gaps):.3f} s, first {gaps[0]:.3f}, last {gaps[-1]:.3f}; "
                  f"last POTRF at {starts[-1]:.3f} s")
        by_worker = collections.defaultdict(list)
        for r in rows:
            by_worker[r["worker"]].append(r)
        for worker, rs in sorted(by_worker.items()):
            compute, each = collections.Counter(), collections.defaultdict(list)
            for r in rs:
                if r["action"] == "compute":
                    compute[r["task"]] += float(r["stop"]) - float(r["start"])
                    each[r["task"]].append(float(r["stop"]) - float(r["start"]))
            moved = [r for r in rs if r["action"] == "transfer"]
            t_in = sum(float(r["stop"]) - float(r["start"]) for r in moved)
            busy = sum(compute.values())
            kinds = ", ".join(f"{k} {v:.2f}" for k, v in compute.most_common())
            legs = sorted(float(r["stop"]) - float(r["start"]) for r in moved)
            print(f"  {worker}: computing {busy:.2f} s ({kinds}); idle {end - busy:.2f} s; "
                  f"received {len(moved)} results in {t_in:.2f} s (median {median(legs) * 1e3:.1f} ms)")
            print("    count, median ms: " + ", ".join(f"{k} {len(v)} x {median(v) * 1e3:.1f}"
                                                    for k, v in sorted(each.items())))


if __name__ == "__main__":
    main()
