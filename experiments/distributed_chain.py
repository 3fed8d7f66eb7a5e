"""The step chain of a distributed factor, task by task: from a task stream that
`benchmarks/distributed_cholesky.py --stream` wrote with each task's full key (round 37 on), the
tasks of the timed factor are labelled with their tiles by replaying the schedule's submission
order (a key ends in its serial number, handed out in that order), and each step K is split into
the links the next POTRF waits on:

    POTRF K -> share of L_KK -> TRSM (K+1, K) -> share of L_K+1,K -> update (K+1, K+1) -> POTRF K+1

with, for each link, the time from the task it waits on to its own start (`wait`: the worker's
thread busy with other tasks, Dask's message, the upload of a copy counted in the task itself) and
the task's own time.  The last lines say what the waiting workers ran instead.

    python experiments/distributed_chain.py STREAM.csv --tile 4096 [--gpus 4] [--grid-rows P] [--layout L]
        [--what-ran]

--what-ran: under each step, the tasks (op, I, J, K) the TRSM's worker ran between the POTRF's end
and the TRSM's start, each at its start in ms from the POTRF's end, and when the TRSM's other input
(the update of (K+1, K) by step K-1) ended.
"""
from __future__ import annotations

import argparse
import collections
import csv
import statistics

from glgpgpu.distributed import worker as w
from glgpgpu.distributed import schedule
from glgpgpu.distributed.schedule import factor_tiles, owners
from glgpgpu.layouts.tiles import TileGrid


class Recorder:
    """What factor_tiles submits, in order: (name, args)."""

    def __init__(self):
        self.tasks = []

    def submit(self, fn, *args, key, **kw):
        self.tasks.append((fn.__name__, args))
        return key


def label(name: str, args: tuple) -> tuple:
    """(op, I, J, K) of a task from its arguments (job first); a fused share as its POTRF or TRSM."""
    name = name.replace("_share", "")
    if name == "update_potrf":                       # the diagonal tile's last update, then its POTRF
        return ("update", args[1], args[1], args[2])
    if name == "potrf":
        return ("potrf", args[1], args[1], args[1])
    if name in ("trsm", "share", "fetch"):
        return (name, args[1], args[2], args[2] if name == "trsm" else -1)
    if name == "update":
        return ("update", args[1], args[2], args[3])
    return (name, args[1], args[2], -1)                     # put


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stream")
    ap.add_argument("--tile", type=int, required=True)
    ap.add_argument("--gpus", type=int, default=0, help="the run's GPUs (default: the one with the most)")
    ap.add_argument("--grid-rows", type=int, default=0)
    ap.add_argument("--layout", default="block-cyclic", help="the run's schedule.LAYOUT")
    ap.add_argument("--what-ran", action="store_true", help="what the TRSM's worker ran while the TRSM waited")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.stream)))
    if "key" not in rows[0]:
        raise SystemExit("this stream has no keys: written before round 37")
    gpus = a.gpus or max(int(r["gpus"]) for r in rows)
    rows = [r for r in rows if int(r["gpus"]) == gpus]
    m = int(rows[0]["m"])
    g = TileGrid(m, a.tile)
    workers = sorted({r["worker"] for r in rows})
    schedule.LAYOUT = a.layout
    own = owners(g.count, workers, a.grid_rows or None)
    # the stream's own schedule: tiles shared by the task that finished them (round 37's last code on)
    # or by share tasks of their own
    schedule.FUSE = any(r["key"].startswith(("trsm_share-", "potrf_share-", "update_potrf")) for r in rows)
    # the puts all first (round 38's streams and before) or each at its tile's first use
    lower = g.count * (g.count + 1) // 2
    first = sorted((int(r["key"].rsplit("-", 1)[1]), r["key"]) for r in rows if r["key"].rsplit("-", 1)[1].isdigit()
                   and r["key"].split("-", 1)[0] in {"put", "potrf", "potrf_share", "trsm", "trsm_share"})
    schedule.PUTS_AT_FIRST_USE = not all(k.startswith("put-") for _, k in first[:lower])
    rec = Recorder()
    factor_tiles(rec, g, own, "job", "compute", "outer", [], lambda submit, I, J: submit(w.put, (I, J), I, J),
                 share=gpus > 1)
    # the factor's own keys, by serial: name-cholesky-<hex>-<serial>
    spans = collections.defaultdict(dict)                  # key -> {action: (start, stop)}
    where = {}
    for r in rows:
        spans[r["key"]][r["action"]] = (float(r["start"]), float(r["stop"]))
        where[r["key"]] = r["worker"]
    keyed = sorted(((int(k.rsplit("-", 1)[1]), k) for k in spans
                    if k.split("-", 1)[0] in {"put", "potrf", "trsm", "update", "share", "fetch", "potrf_share",
                                              "trsm_share", "update_potrf", "update_potrf_share"}
                    and k.rsplit("-", 1)[1].isdigit()))
    ours = [k for _, k in keyed][:len(rec.tasks)]
    if len(ours) != len(rec.tasks) or any(k.split("-", 1)[0] != n for k, (n, _) in zip(ours, rec.tasks)):
        raise SystemExit("the stream's tasks do not replay as this grid's schedule (tile? grid rows?)")
    task = {label(n, args): k for k, (n, args) in zip(ours, rec.tasks)}
    for k, (n, args) in zip(ours, rec.tasks):
        diagonal = n.startswith(("potrf", "update_potrf"))
        if n.startswith("update_potrf"):                # its POTRF inside
            task["potrf", args[1], args[1], args[1]] = k
        if n.endswith("_share"):                        # the share inside the task that finished the tile
            task["share", args[1], args[1] if diagonal else args[2], -1] = k

    def start(key):
        return spans[key]["compute"][0]

    def stop(key):
        return spans[key]["compute"][1]

    tile_of = {}
    for t, k in task.items():                 # a fused task by its first label (trsm_share: its TRSM)
        tile_of.setdefault(k, t)
    links = collections.defaultdict(list)
    busy = collections.Counter()
    print(f"m = {m}, {gpus} GPUs, {g.count} x {g.count} tiles of {g.t}; per step: wait before / own time, ms")
    for K in range(g.count - 1):
        chain = [("potrf", task["potrf", K, K, K])]
        if task.get(("share", K, K, -1), chain[-1][1]) != chain[-1][1]:          # a share task of its own
            chain.append(("share L_KK", task["share", K, K, -1]))
        chain.append(("trsm", task["trsm", K + 1, K, K]))
        if task.get(("share", K + 1, K, -1), chain[-1][1]) != chain[-1][1]:
            chain.append(("share L_K+1,K", task["share", K + 1, K, -1]))
        chain += [("update", task["update", K + 1, K + 1, K]), ("next potrf", task["potrf", K + 1, K + 1, K + 1])]
        chain = [link for i, link in enumerate(chain) if i == 0 or link[1] != chain[i - 1][1]]   # fused links: one
        parts = []
        for (name, key), (_, before) in zip(chain[1:], chain[:-1]):
            wait_ms = (start(key) - stop(before)) * 1e3
            own_ms = (stop(key) - start(key)) * 1e3
            links[name].append((wait_ms, own_ms))
            parts.append(f"{name} {wait_ms:.0f}/{own_ms:.0f}")
            # what that worker ran while this task waited
            for k, sp in spans.items():
                if where[k] == where[key] and "compute" in sp and k != key:
                    s0, s1 = sp["compute"]
                    overlap = min(s1, start(key)) - max(s0, stop(before))
                    if overlap > 0:
                        busy[k.split("-", 1)[0].lstrip("('")] += overlap
        if a.what_ran:
            trsm, t0 = task["trsm", K + 1, K, K], stop(chain[0][1])
            update = task.get(("update", K + 1, K, K - 1))
            ran = sorted((sp["compute"][0], k) for k, sp in spans.items() if where[k] == where[trsm]
                         and "compute" in sp and sp["compute"][1] > t0 and sp["compute"][0] < start(trsm))
            print(f"      TRSM at {1e3 * (start(trsm) - t0):.0f} ms"
                  + (f", its update ended at {1e3 * (stop(update) - t0):.0f}" if update else "") + "; ran: "
                  + " ".join(f"{tile_of.get(k, k.split('-', 1)[0])}@{1e3 * (s0 - t0):.0f}" for s0, k in ran))
        total = (start(chain[-1][1]) - start(chain[0][1])) * 1e3
        print(f"  K = {K:2d}: {total:5.0f} ms  potrf {(stop(chain[0][1]) - start(chain[0][1])) * 1e3:.0f} | "
              + " | ".join(parts))
    print("medians, wait/own ms: " + ", ".join(
        f"{name} {statistics.median(x for x, _ in v):.0f}/{statistics.median(y for _, y in v):.0f}"
        for name, v in links.items()))
    print("while the chain's next task waited, its worker ran (s): "
          + ", ".join(f"{k} {v:.2f}" for k, v in busy.most_common()))


if __name__ == "__main__":
    main()
