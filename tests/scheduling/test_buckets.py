"""Seed 004's bucket scheduler (figures/buckets.py), without GL: its launches are run
in float64 numpy -- each Factorize a QR of the bundle's stacked column tile, each
Apply that factor's Q^T on the bundle's columns to the right -- with the tasks of
every launch in shuffled orders (they must be independent), and R must come out as
numpy's, up to the signs of its rows.  Plus the seed's own example, Figs. 6-8."""
import random

import numpy as np
import pytest

from glgpgpu.scheduling import buckets


def run_schedule(A, launches, tile, seed=0):
    """Execute the launches on A (padded to whole tiles) in float64; returns the tiles."""
    M, N = -(-A.shape[0] // tile), -(-A.shape[1] // tile)
    W = np.zeros((M * tile, N * tile))
    W[:A.shape[0], :A.shape[1]] = A
    qs = {}
    rnd = random.Random(seed)

    def rows_of(rows):
        return np.concatenate([np.arange(r * tile, (r + 1) * tile) for r in rows])

    for tasks in launches:
        tasks = list(tasks)
        rnd.shuffle(tasks)
        for t in tasks:
            if t.kind in ("apply", "apply_factorize"):
                Q = qs.pop((t.rows, t.col))                      # made by the previous launch
                idx = rows_of(t.rows)
                W[np.ix_(idx, np.arange((t.col + 1) * tile, N * tile))] = \
                    Q.T @ W[np.ix_(idx, np.arange((t.col + 1) * tile, N * tile))]
            f = t.factorized()
            if f is not None:
                rows, j = f
                idx, cols = rows_of(rows), np.arange(j * tile, (j + 1) * tile)
                Q, R = np.linalg.qr(W[np.ix_(idx, cols)], mode="complete")
                W[np.ix_(idx, cols)] = R
                qs[(rows, j)] = Q
    return W


def r_of(W, launches, tile, M, N):
    """R's block rows, gathered from the row tiles the schedule left on top."""
    tops = buckets.final_rows(M, N, launches)
    R = np.vstack([W[r * tile:(r + 1) * tile] for r in tops])
    return np.triu(R)


def same_up_to_row_signs(R, ref, tol):
    s = np.sign(np.diag(R))[:, None] * np.sign(np.diag(ref))[:, None]
    return np.abs(R * s - ref).max() <= tol * np.abs(ref).max()


@pytest.mark.parametrize("m, n, tile", [(16, 16, 4), (40, 12, 4), (12, 40, 4), (33, 17, 4), (17, 33, 4),
                                        (64, 8, 4), (8, 64, 4), (4, 4, 4), (3, 2, 4), (50, 50, 8)])
@pytest.mark.parametrize("pipeline", [False, True])
@pytest.mark.parametrize("bundle", [2, 3, None])
def test_a_schedule_is_a_qr_in_any_task_order(rng, m, n, tile, pipeline, bundle):
    A = rng.standard_normal((m, n))
    M, N = buckets.tile_counts(m, n, tile)
    launches = buckets.schedule(M, N, bundle=bundle, pipeline=pipeline)
    ref = np.linalg.qr(np.pad(A, ((0, M * tile - m), (0, N * tile - n))), mode="r")
    k = min(M, N) * tile
    for seed in range(3):
        W = run_schedule(A, launches, tile, seed)
        R = r_of(W, launches, tile, M, N)[:k]
        assert same_up_to_row_signs(R[:min(m, n)], ref[:min(m, n)], 1e-12)


def test_a_staircase_front():
    """Seed 004's Fig. 6: a 256 x 160 front (8 x 5 tiles) whose last two row tiles
    are zero in the first column tile.  Pipelined: Fig. 8's 7 launches, and a QR."""
    rng = np.random.default_rng(6)
    lead = [0] * 6 + [1, 1]
    A = rng.standard_normal((256, 160))
    A[192:, :32] = 0
    pipelined = buckets.schedule(8, 5, leftmost=lead, pipeline=True)
    plain = buckets.schedule(8, 5, leftmost=lead, pipeline=False)
    assert len(pipelined) == 7
    assert len(plain) == 11                 # the seed's Fig. 7 shows 12 (its bundling is in the figure only)
    first = pipelined[0]                    # Fig. 7(b): red {1,2,3}, magenta {4,5,6}, green {7,8}
    assert sorted(t.rows for t in first) == [(0, 1, 2), (3, 4, 5), (6, 7)]
    for launches in (pipelined, plain):
        W = run_schedule(A, launches, 32)
        assert same_up_to_row_signs(r_of(W, launches, 32, 8, 5), np.linalg.qr(A, mode="r"), 1e-12)


@pytest.mark.parametrize("M, N", [(8, 5), (192, 12), (12, 192), (5, 5), (1, 1)])
def test_launch_invariants(M, N):
    """A row tile is factored at most once per launch; every Apply follows its
    Factorize by one launch; pipelining needs no more launches than the plain
    schedule, and an unlimited bundle is the panel algorithm: one launch per column
    tile, plus the last Apply."""
    for pipeline in (False, True):
        launches = buckets.schedule(M, N, pipeline=pipeline)
        made = set()
        for tasks in launches:
            rows = [r for t in tasks if t.factorized() for r in t.factorized()[0]]
            assert len(rows) == len(set(rows))
            for t in tasks:
                if t.kind != "factorize":
                    assert (t.rows, t.col) in made
            made = {t.factorized() for t in tasks if t.factorized()}
    assert len(buckets.schedule(M, N, pipeline=True)) <= len(buckets.schedule(M, N, pipeline=False))
    panel = buckets.schedule(M, N, bundle=None, pipeline=True)
    assert len(panel) == min(M, N) + (1 if N > min(M, N) else 0)


def test_many_fronts_share_launches():
    a, b = buckets.schedule(4, 2, front=0), buckets.schedule(2, 6, front=1)
    merged = buckets.merge([a, b])
    assert len(merged) == max(len(a), len(b))
    assert sum(len(l) for l in merged) == sum(len(l) for l in a) + sum(len(l) for l in b)
    assert {t.front for t in merged[0]} == {0, 1}


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least 2"):
        buckets.schedule(4, 4, bundle=1)
    with pytest.raises(ValueError, match="leftmost"):
        buckets.schedule(2, 2, leftmost=[0, 3])
