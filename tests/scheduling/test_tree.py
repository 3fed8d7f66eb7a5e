"""The bucket scheduler across a tree of fronts (scheduling/tree.py), no GL."""
from glgpgpu.scheduling import buckets, tree

#      4
#    /   \
#   2     3
#  / \
# 0   1          (postorder: children before parents)
CHILDREN = [[], [], [0, 1], [], [2, 3]]


def test_asap_starts_each_front_after_its_last_child():
    lengths = [3, 1, 2, 5, 1]
    start, makespan = tree.asap(CHILDREN, lengths)
    assert start == [0, 0, 3, 0, 5]
    assert makespan == 6                                # the critical path 0 -> 2 -> 4: 3 + 2 + 1


def test_rounds_wait_for_the_whole_previous_round():
    lengths = [3, 1, 2, 5, 1]
    assert tree.rounds_launches([[0, 1, 3], [2], [4]], lengths) == 5 + 2 + 1
    assert tree.rounds_launches([[0, 1], [2, 3], [4]], lengths) == 3 + 5 + 1
    assert tree.rounds_launches([[f] for f in range(5)], lengths) == sum(lengths)


def test_the_merged_launches_hold_every_task_once_in_order():
    scheds = [buckets.schedule(*shape, front=f) for f, shape in enumerate([(3, 2), (1, 1), (4, 2), (2, 2), (1, 1)])]
    start, makespan = tree.asap(CHILDREN, [len(s) for s in scheds])
    merged = tree.merge_tree(scheds, start)
    assert len(merged) == makespan
    for f, s in enumerate(scheds):
        mine = [[t for t in launch if t.front == f] for launch in merged]
        assert [m for m in mine if m] == s                    # its own launches, unchanged, in order
        first = next(k for k, m in enumerate(mine) if m)
        assert first == start[f]
        for c in CHILDREN[f]:                                 # after every child's last launch
            last_c = max(k for k, launch in enumerate(merged) if any(t.front == c for t in launch))
            assert last_c < first
