"""The bucket scheduler across a tree of fronts (Yeralan et al. 2015, section 3.1,
Fig. 5): a front's launches start as soon as its last child's have run -- no level
barrier -- so launch t holds fronts of different subtrees at different steps.  Pure
host logic: the tree comes as child lists in postorder (children before parents),
each front's work as its own launch list (buckets.schedule)."""
from __future__ import annotations


def asap(children: list, lengths: list) -> tuple:
    """(start, makespan): front f's first launch and the launches of the whole tree
    when every front starts right after its last child (the critical path in launches:
    the longest leaf-to-root sum of lengths)."""
    start, finish = [0] * len(lengths), [0] * len(lengths)
    for f in range(len(lengths)):
        start[f] = max((finish[c] for c in children[f]), default=0)
        finish[f] = start[f] + lengths[f]
    return start, max(finish, default=0)


def rounds_launches(rounds: list, lengths: list) -> int:
    """Launches when the fronts go round by round (a round starts when the whole
    previous one is done): the sum over rounds of its longest front."""
    return sum(max(lengths[f] for f in r) for r in rounds if r)


def merge_tree(schedules: list, start: list) -> list:
    """Launch t of the tree: every front f's launch t - start[f] while it runs (the
    fronts' tasks are independent: different fronts)."""
    total = max((s + len(sched) for s, sched in zip(start, schedules)), default=0)
    out = [[] for _ in range(total)]
    for s, sched in zip(start, schedules):
        for k, tasks in enumerate(sched):
            out[s + k].extend(tasks)
    return out
