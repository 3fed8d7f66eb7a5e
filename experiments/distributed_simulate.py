"""A model of the distributed tiled Cholesky on GPUs, to compare schedules before spending
device time on them: the task graph, owners and Dask priorities are the real ones (replayed
through schedule.factor_tiles), the machine is a few numbers.

Each worker has one task thread and one in-order GPU queue.  A thread runs its ready task of
highest priority (ties: submission order; --ties shuffled: at random, as Dask's run in the order
tasks reach the worker), one at a time:
  put     the thread copies the tile to the GPU (PUT ms)
  potrf   queues the factor (POTRF ms of GPU), then reads its pivots: waits for its GPU's queue
  trsm,   upload any copy of another worker's tile not yet on this GPU (COPY ms each, the thread),
  update  queue the kernel (TRSM / UPDATE ms of GPU; a diagonal update half) and return at once;
          with --queue-depth D the thread then waits until at most D updates are queued
  share   waits for its GPU's queue, then reads the tile back (SHARE ms, the thread), inside the
          POTRF or TRSM that finished the tile with FUSE (potrf_share, trsm_share; update_potrf
          also does a diagonal tile's last update and its POTRF in one task); so does
  fetch   a tile of L not shared, read for the result after the factor (priority 0)
A task's result reaches another worker HOP ms after it ends, and a task whose inputs are on its own
worker reaches it LOCAL ms after the last ends (Dask's scheduler hands every task to its worker once
its inputs exist: a round trip even on one worker, during which the thread runs something else).  The default costs are the medians
of round 37's task streams on four H100s (N = 60,000, tiles of 4,096); the model, run with the
schedule those runs used, is printed beside their measured times.

    python experiments/distributed_simulate.py [--m 60000 --tile 4096] [--gpus 1,2,4]
        [--priority column,row] [--queue-depth 0,3] [--fuse yes,no] [--grid-rows 0] [--layout symmetric]
"""
from __future__ import annotations

import argparse
import itertools
import random
import statistics

from glgpgpu.distributed import schedule
from glgpgpu.distributed import worker as w
from glgpgpu.layouts.tiles import TileGrid

#: round 38, 60,000 in tiles of 4,096 on 4 × H100, A on the workers (--placed), one start: seconds
MEASURED = {"column": {1: 5.38, 2: 3.58, 4: 3.31}, "tied": {1: 5.63, 2: 4.07, 4: 3.36}}


class Task:
    __slots__ = ("serial", "op", "tile", "args", "worker", "prio", "deps", "done", "start", "tie")

    def __init__(self, serial, op, tile, args, worker, prio, deps):
        self.serial, self.op, self.tile, self.args = serial, op, tile, args
        self.worker, self.prio, self.deps, self.done, self.start = worker, prio, deps, None, None
        self.tie = -serial


class Graph:
    """The tasks factor_tiles submits, as submitted (a stand-in for the Dask client)."""

    def __init__(self):
        self.tasks = []

    def submit(self, fn, *args, key, workers, priority=0, **kw):
        deps = [a for a in args if isinstance(a, Task)]
        task = Task(len(self.tasks), fn.__name__, None, args, workers[0], priority, deps)
        self.tasks.append(task)
        return task


def simulate(m, t, gpus, c, depth=0, rows=None, chain=None, ties="serial", layout="block-cyclic") -> float:
    """The model's makespan in seconds for the current schedule.PRIORITY; chain: a dict filled with
    each step-chain link's (wait, own) ms."""
    g = TileGrid(m, t)
    workers = [f"w{i}" for i in range(gpus)]
    schedule.LAYOUT = layout if gpus == 4 else "block-cyclic"
    own = schedule.owners(g.count, workers, rows)
    schedule.LAYOUT = "block-cyclic"
    graph = Graph()
    last, sent = {}, {}
    schedule.factor_tiles(graph, g, own, "job", "compute", "outer", [],
                          lambda submit, I, J: submit(w.put, (I, J), I, J), last, sent, share=gpus > 1)
    submit = schedule.submitter(graph, own, "job", [])
    for I, J in g.lower():                # L's tiles as a dask L (A placed): as schedule._factor reads them
        if (I, J) in sent and I != J:
            submit(w.shared_array, (I, J), I, J, sent[I, J])
        else:
            submit(w.fetch, (I, J), I, J, last[I, J])
    if ties == "shuffled":             # Dask's: equal priorities run in the order they became ready
        rng = random.Random(0)
        for task in graph.tasks:
            task.tie = rng.random()
    pending = {x: [task for task in graph.tasks if task.worker == x] for x in workers}
    thread = dict.fromkeys(workers, 0.0)
    gpu = dict.fromkeys(workers, 0.0)
    queued = {x: [] for x in workers}                 # GPU end times of the queued updates
    copies = {x: set() for x in workers}

    def arrives(task, x):          # Dask's scheduler hands a task to its worker once its inputs exist
        return task.done + (c["hop"] if task.worker != x else c["local"])

    while any(pending.values()):
        best = None
        for x in workers:
            ready = [task for task in pending[x] if all(d.done is not None for d in task.deps)]
            if not ready:
                continue
            start = max(thread[x], min(max((arrives(d, x) for d in task.deps), default=0.0) for task in ready))
            if best is None or start < best[0]:
                best = (start, x, ready)
        now, x, ready = best
        runnable = [task for task in ready if max((arrives(d, x) for d in task.deps), default=0.0) <= now]
        task = max(runnable, key=lambda r: (r.prio, r.tie))
        pending[x].remove(task)
        task.start = clock = now
        if task.op == "put":
            clock += c["put"]
        elif task.op in ("share", "fetch"):           # (potrf_share, trsm_share: below, then this)
            clock = max(clock, gpu[x]) + c["share"]
        elif task.op == "shared_array":
            clock += c["dispatch"]
        else:
            for d in task.deps:                         # another worker's tile: uploaded once here
                if d.worker != x and d.op.endswith("share") and d.serial not in copies[x]:
                    copies[x].add(d.serial)
                    clock += c["copy"]
            clock += c["dispatch"]
            op = task.op.replace("_share", "")
            work = {"potrf": c["potrf"], "trsm": c["trsm"], "update_potrf": c["update"] / 2 + c["potrf"]}.get(
                op, c["update"])
            if op == "update" and task.args[1] == task.args[2]:
                work /= 2
            gpu[x] = max(gpu[x], clock) + work
            if op in ("potrf", "update_potrf"):
                clock = gpu[x] + c["read"]
            if task.op.endswith("_share"):
                clock = max(clock, gpu[x]) + c["share"]
            elif task.op == "update" and depth:
                queued[x] = [e for e in queued[x] if e > clock] + [gpu[x]]
                if len(queued[x]) > depth:
                    clock = max(clock, queued[x][-depth - 1])
        thread[x] = clock
        task.done = clock
    if chain is not None:                 # the step chain's links, as experiments/distributed_chain.py splits them
        def find(op, *args):
            found = [task for task in graph.tasks if task.op == op and tuple(task.args[1:1 + len(args)]) == args]
            return found[0] if found else None
        for K in range(g.count - 1):
            def factored(I):
                return (find("potrf", I) or find("potrf_share", I) or find("update_potrf", I)
                        or find("update_potrf_share", I))
            seq = [("potrf", factored(K)), ("share L_KK", find("share", K, K)),
                   ("trsm", find("trsm", K + 1, K) or find("trsm_share", K + 1, K)),
                   ("share L_K+1,K", find("share", K + 1, K)), ("update", find("update", K + 1, K + 1, K)),
                   ("next potrf", factored(K + 1))]
            seq = [(name, task) for name, task in seq if task is not None]
            for (_, before), (name, task) in zip(seq, seq[1:]):
                chain.setdefault(name, []).append(((task.start - before.done), task.done - task.start))
    return max(max(thread.values()), max(gpu.values())) / 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--m", type=int, default=60000)
    ap.add_argument("--tile", type=int, default=4096)
    ap.add_argument("--gpus", default="1,2,4")
    ap.add_argument("--priority", default="column,row,tied")
    ap.add_argument("--queue-depth", default="0,3")
    ap.add_argument("--grid-rows", type=int, default=0)
    ap.add_argument("--layout", default="block-cyclic", help="schedule.LAYOUT (symmetric: the 4-GPU rows only)")
    ap.add_argument("--ties", default="serial", help="equal priorities: serial (submission order) or shuffled")
    ap.add_argument("--fuse", default="yes,no", help="tiles shared by the task that finished them (FUSE)")
    for name, value in dict(put=12.0, potrf=8.0, read=2.0, trsm=2.0, update=6.0, dispatch=0.2, copy=12.0,
                            share=7.0, hop=3.0, local=3.0).items():
        ap.add_argument(f"--{name}", type=float, default=value, help=f"ms (default {value})")
    a = ap.parse_args()
    c = {k: getattr(a, k) for k in ("put", "potrf", "read", "trsm", "update", "dispatch", "copy", "share", "hop",
                                    "local")}
    print(f"m = {a.m}, tiles of {a.tile}; costs (ms): " + ", ".join(f"{k} {v:g}" for k, v in c.items()))
    for fuse, prio, depth in itertools.product(a.fuse.split(","), a.priority.split(","),
                                               (int(d) for d in a.queue_depth.split(","))):
        schedule.PRIORITY, schedule.FUSE = prio, fuse == "yes"
        chains = {}
        times = {int(n): simulate(a.m, a.tile, int(n), c, depth, a.grid_rows or None, chains.setdefault(int(n), {}),
                             a.ties, a.layout)
                 for n in a.gpus.split(",")}
        base = times.get(1)
        line = ", ".join(f"{n} GPU{'s' if n > 1 else ''} {s:.2f} s" + (f" ({base / s:.2f}x)" if base and n > 1 else "")
                         for n, s in times.items())
        print(f"  fused {fuse:3s} priority {prio:6s} queue depth {depth or 'none':4}: {line}")
        most = max(times)
        if most > 1:
            print(f"    {most} GPUs, the step chain's medians, wait/own ms: " + ", ".join(
                f"{name} {statistics.median(x for x, _ in v):.0f}/{statistics.median(y for _, y in v):.0f}"
                for name, v in chains[most].items()))
    schedule.PRIORITY, schedule.FUSE = "column", True
    if (a.m, a.tile) == (60000, 4096):
        for prio, times in MEASURED.items():
            print(f"  measured (round 38, fused, {prio}, no limit): " + ", ".join(f"{n}: {s:.2f} s" for n, s in times.items()))


if __name__ == "__main__":
    main()
