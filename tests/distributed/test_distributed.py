"""glgpgpu.distributed on a LocalGLCluster of two workers (llvmpipe here: both share the
one device): the tiled Cholesky as Dask tasks equals the one-process tiled factor bit
for bit, meets the float32 bound, leaves no tile behind; a worker lost mid-factor is a
named error within seconds; the owner map and the device choice."""
import threading
import time

import numpy as np
import pytest

import glgpgpu
from bounds import check_factor, spd

distributed = pytest.importorskip("distributed")
gd = pytest.importorskip("glgpgpu.distributed")


@pytest.fixture(scope="module")
def client():
    with gd.LocalGLCluster(n_workers=2) as cluster, cluster.get_client() as c:
        c.cluster_handle = cluster
        yield c


def _held(client):
    return client.run(lambda: __import__("glgpgpu.distributed.worker", fromlist=["held"]).held())


def _what_is_held():
    """On a worker: the keys of what it holds (a failed leak check's message)."""
    from glgpgpu.distributed import shared
    from glgpgpu.distributed import worker as w
    shelf = shared.made_shelf()
    return {"tiles": list(w._TILES), "copies": list(w._COPIES), "shared": list(w._SHARED),
            "files": shelf.files() if shelf is not None else 0}


def assert_nothing_held(client):
    """No tile, copy or shared-memory file left on any worker; else which, by key."""
    held = _held(client)
    assert sum(held.values()) == 0, client.run(_what_is_held)


@pytest.mark.parametrize("method, m, tile", [("compute", 700, 128), ("blocked", 301, 64), ("paper", 130, 32),
                                             ("compute", 1, 128), ("compute", 129, 128)])
def test_equals_the_one_process_tiled_factor(client, method, m, tile):
    A = spd(m, 1e3, np.random.default_rng(m))
    L = gd.cholesky(A, client=client, tile=tile, method=method)
    ref = glgpgpu.cholesky(A, method=method, ctx=glgpgpu.Context(max_texture_size=tile))
    assert np.array_equal(L, ref)
    check_factor(L, A)
    assert_nothing_held(client)


def test_not_positive_definite_names_the_global_pivot(client):
    A = spd(200, 1e2, np.random.default_rng(1))
    A[150, 150] = -1.0
    with pytest.raises(np.linalg.LinAlgError, match="pivot 150"):
        gd.cholesky(A, client=client, tile=64, method="compute")
    assert_nothing_held(client)


@pytest.mark.parametrize("value, where, says", [(np.nan, (150, 70), "non-finite value \\(first at index \\(150, 70\\)"),
                                                (np.inf, (130, 130), "non-finite value \\(first at index \\(130, 130\\)"),
                                                (1e300, (199, 3), "overflows float32\\) \\(first at index \\(199, 3\\)")])
def test_a_dask_arrays_non_finite_value_is_named_not_called_indefinite(client, value, where, says):
    """A dask.array is not read on the client before the factor: its NaN, inf or float64 value past
    float32 shows as a pivot that is not positive, and is named as what it is (the numpy call's
    ValueError) -- the first in the lower triangle, by row; the same A without it factors."""
    da = pytest.importorskip("dask.array")
    A = spd(200, 1e2, np.random.default_rng(3)).astype(np.float64)
    A[where] = value
    A[180, 190] = np.nan                       # above the diagonal: not read, never named
    later = (min(where[0] + 5, 199), 0)        # a later row's (or the last row's, before): the first is named
    A[later] = np.nan if later[0] > where[0] else A[later]
    with pytest.raises(ValueError, match=says):
        gd.cholesky(da.from_array(A, chunks=(70, 90)), client=client, tile=64)
    assert_nothing_held(client)
    A[where] = A[where[::-1]] if where[0] != where[1] else 200.0
    A[later] = A[later[::-1]]
    L = gd.cholesky(da.from_array(A, chunks=(70, 90)), client=client, tile=64).compute()
    assert np.isfinite(L).all()
    A[150, 150] = -1e4                          # indefinite and finite: still the pivot's error
    with pytest.raises(np.linalg.LinAlgError, match="pivot 150"):
        gd.cholesky(da.from_array(A, chunks=(70, 90)), client=client, tile=64)


def test_a_dask_array_in_a_dask_array_out(client):
    """A's tiles made on the workers from its chunks (any chunking: rechunked to the tiles),
    L's tiles left there as a dask.array -- the same bits as the one-process factor."""
    da = pytest.importorskip("dask.array")
    A = spd(300, 1e2, np.random.default_rng(2))
    L = gd.cholesky(da.from_array(A, chunks=(70, 110)), client=client, tile=64, method="compute")
    assert isinstance(L, da.Array) and L.shape == (300, 300)
    want = glgpgpu.cholesky(A, method="compute", ctx=glgpgpu.Context(max_texture_size=64))
    assert np.array_equal(L.compute(), want)
    assert_nothing_held(client)


def test_owners_are_two_dimensional_block_cyclic():
    own = gd.owners(4, ["a", "b", "c", "d"])              # a 2 x 2 grid of workers
    assert own[0, 0] == "a" and own[1, 0] == "c" and own[1, 1] == "d" and own[2, 1] == "b"
    assert set(gd.owners(3, ["a", "b", "c"]).values()) == {"a", "b", "c"}      # 1 x 3
    assert set(gd.owners(5, ["only"]).values()) == {"only"}
    cols = gd.owners(6, ["a", "b", "c", "d"], rows=1)                    # 1 x 4: block columns
    assert all(cols[I, J] == "abcd"[J % 4] for I, J in cols)
    with pytest.raises(ValueError, match="divisor of 4"):
        gd.owners(6, ["a", "b", "c", "d"], rows=3)


def test_the_symmetric_layout_deals_each_worker_a_quarter_and_fewer_tiles_to_receive(monkeypatch):
    """LAYOUT = "symmetric" (4 workers): tiles (I, J) and (J', I') with the same residues mod 4, in
    either order, on one worker; each worker owns about a quarter of the lower tiles;
    the busiest worker receives fewer finished tiles than under 2 x 2 (readers); an explicit `rows` (the
    LS-SVM's block columns) stays block-cyclic; other worker counts are refused."""
    from glgpgpu.distributed import schedule
    ws = ["a", "b", "c", "d"]
    cyclic = gd.owners(15, ws)
    monkeypatch.setattr(schedule, "LAYOUT", "symmetric")
    own = gd.owners(32, ws)
    assert set(own) == {(I, J) for I in range(32) for J in range(I + 1)}
    by_cell = {}
    for (I, J), w in own.items():                           # (a, b) and (b, a) alike
        by_cell.setdefault(frozenset((I % 4, J % 4)), set()).add(w)
    assert len(by_cell) == 10 and all(len(w) == 1 for w in by_cell.values())
    shares = [sum(1 for tile in own if own[tile] == w) for w in ws]     # 128 or 136 of 528
    assert max(shares) <= 1.07 * min(shares) and sum(shares) == 32 * 33 // 2

    def most_received(owners):
        got = {w: 0 for w in ws}
        for I in range(15):
            for K in range(I + 1):
                for w in schedule.readers(owners, 15, I, K) - {owners[I, K]}:
                    got[w] += 1
        return max(got.values())
    assert most_received(gd.owners(15, ws)) < most_received(cyclic)
    assert gd.owners(6, ws, rows=1) == {(I, J): "abcd"[J % 4] for I in range(6) for J in range(I + 1)}
    with pytest.raises(ValueError, match="4 workers"):
        gd.owners(6, ["a", "b"])


def test_the_symmetric_layout_gives_the_same_bits_on_four_workers(monkeypatch):
    """Four workers (llvmpipe): the factor with LAYOUT "symmetric" is the one-process tiled factor bit
    for bit, and nothing is left on a worker."""
    from glgpgpu.distributed import schedule
    monkeypatch.setattr(schedule, "LAYOUT", "symmetric")
    A = spd(333, 1e2, np.random.default_rng(21))
    with gd.LocalGLCluster(n_workers=4) as cluster, cluster.get_client() as c:
        L = gd.cholesky(A, client=c, tile=64, method="compute")
        assert_nothing_held(c)
    assert np.array_equal(L, glgpgpu.cholesky(A, method="compute", ctx=glgpgpu.Context(max_texture_size=64)))


def test_a_worker_lost_mid_factor_is_named_within_seconds():
    A = spd(640, 1e2, np.random.default_rng(3))
    with gd.LocalGLCluster(n_workers=2) as cluster, cluster.get_client() as c:
        out = {}

        def run():
            try:
                out["L"] = gd.cholesky(A, client=c, tile=32, method="paper", poll=0.2)
            except BaseException as exc:           # noqa: BLE001 -- the test looks at it
                out["error"] = exc
        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(1.0)
        nanny = list(cluster.workers.values())[1]
        pid = nanny.process.process.pid
        nanny.process.process.kill()                  # the worker process dies mid-factor
        t = time.perf_counter()
        thread.join(timeout=30)
        assert not thread.is_alive()
        assert time.perf_counter() - t < 15
        assert isinstance(out.get("error"), gd.WorkerLostError), out
        assert "left the cluster with tile" in str(out["error"])
        import os
        from glgpgpu.distributed import shared
        gone = [n for n in os.listdir(shared.DIRECTORY) if n.startswith(f"{shared.PREFIX}{pid}-")]
        assert gone == []                             # the lost worker's shared tiles removed by the release


def test_local_cluster_arguments_are_checked():
    with pytest.raises(ValueError, match="devices"):
        gd.LocalGLCluster(devices="some")
    with pytest.raises(ValueError, match="n_workers"):
        gd.LocalGLCluster(devices=[0], n_workers=0)


def test_context_device_choice(monkeypatch):
    assert glgpgpu.Context(device=0).device == 0
    found = glgpgpu.gl.devices()
    with pytest.raises(ValueError, match="no EGL device"):
        glgpgpu.Context(device=len(found))
    monkeypatch.setenv("GLGPGPU_DEVICE", "x")
    with pytest.raises(ValueError, match="GLGPGPU_DEVICE"):
        glgpgpu.Context()


def test_task_keys_never_come_round_again():
    """Dask answers a key it still holds with that task's old result: after a solve prunes its
    finished tasks from `live`, the next tasks' keys must still be new (they were counted by
    len(live), and a refinement step got the previous step's substitutions)."""
    from glgpgpu.distributed.schedule import submitter

    class Recorder:
        keys = []

        def submit(self, fn, *args, key, **kw):
            self.keys.append(key)
            return key
    rec, live = Recorder(), []
    submit = submitter(rec, {(0, 0): "w0"}, "job", live)
    for _ in range(3):
        submit(len, (0, 0))
    live.clear()                                   # a solve drops its finished tasks
    other = submitter(rec, {(0, 0): "w0"}, "job", live)
    for _ in range(3):
        submit(len, (0, 0))
        other(len, (0, 0))
    assert len(set(rec.keys)) == len(rec.keys) == 9


@pytest.mark.parametrize("fuse", [False, True])
def test_a_panels_tasks_outrank_the_rest_of_the_trailing_update(fuse, monkeypatch):
    """Lookahead: every task on tile (I, J) ranks by block column J first, so the next panel's
    POTRF and TRSMs (and the updates of its column) run before step K's other updates, which
    were submitted earlier and would otherwise run first (fused with the diagonal tile's last
    update, the POTRF is submitted with it, before them)."""
    from glgpgpu.distributed import schedule
    from glgpgpu.distributed.schedule import factor_tiles
    monkeypatch.setattr(schedule, "FUSE", fuse)
    from glgpgpu.layouts.tiles import TileGrid

    class Recorder:
        tasks = []

        def submit(self, fn, *args, key, priority, **kw):
            self.tasks.append((fn.__name__, args, priority))
            return key
    g = TileGrid(5 * 8, 8)
    own = gd.owners(g.count, ["w0", "w1"])
    rec = Recorder()
    factor_tiles(rec, g, own, "job", "compute", "outer", [], lambda submit, I, J: submit(len, (I, J)))
    first = {}
    for order, (name, args, priority) in enumerate(rec.tasks):
        if name == "update" and args[3] == 0:            # step 0's updates: (job, I, J, K, ...)
            first.setdefault(args[2], (order, priority, (args[1], args[2])))
    potrf1 = next((i, p) for i, (n, a, p) in enumerate(rec.tasks)
                  if n == ("update_potrf" if fuse else "potrf") and a[1] == 1)
    assert (potrf1[0] > first[4][0]) != fuse             # submitted after step 0's update of column 4 ...
    assert potrf1[1] > first[4][1]                       # ... and outranks it
    assert potrf1[1] == schedule.priority((1, 1), g.count)
    assert first[1][1] == schedule.priority(first[1][2], g.count) and first[1][2][1] == 1
    assert first[4][1] == schedule.priority((4, 4), g.count) == schedule.priority(first[4][2], g.count)


@pytest.mark.parametrize("at_first_use", [True, False])
def test_a_tiles_put_is_submitted_at_its_first_use(at_first_use, monkeypatch):
    """PUTS_AT_FIRST_USE: each put is submitted right before the first task on its tile, in the
    order first_touched gives (column 0, then the rest row by row) -- a put that waits for a numpy
    A's hand holds back only the tasks after it, and the first POTRF and TRSMs go before the last
    hands; False: every put first, row by row (round 38's order, kept for its task streams)."""
    from glgpgpu.distributed import schedule
    from glgpgpu.distributed.schedule import factor_tiles, first_touched
    from glgpgpu.layouts.tiles import TileGrid
    monkeypatch.setattr(schedule, "PUTS_AT_FIRST_USE", at_first_use)
    count = 5
    assert first_touched(count) == [(I, 0) for I in range(count)] + [(I, J) for I in range(1, count)
                                                                   for J in range(1, I + 1)]

    class Recorder:
        tasks = []

        def submit(self, fn, *args, key, **kw):
            self.tasks.append((fn.__name__, args))
            return key
    g = TileGrid(count * 8, 8)
    made = []
    last = {}
    factor_tiles(Recorder(), g, gd.owners(g.count, ["w0", "w1"]), "job", "compute", "outer", [],
                 lambda submit, I, J: made.append((I, J)) or submit(len, (I, J)), last)
    assert sorted(made) == sorted(g.lower()) and len(made) == len(set(made))
    assert set(last) == set(g.lower())                     # every tile's latest task handed back
    names = [name for name, _ in Recorder.tasks]
    first_step = min(i for i, name in enumerate(names) if name != "len")
    if at_first_use:
        assert made == first_touched(count)
        assert first_step == 1                             # POTRF 0 right behind the put of (0, 0)
    else:
        assert made == g.lower() and first_step == len(made)


@pytest.mark.parametrize("share, every", [(True, False), (False, False), (False, True)])
@pytest.mark.parametrize("count, workers", [(1, 2), (2, 2), (5, 2), (6, 4), (7, 3), (4, 1)])
def test_a_finished_tile_is_sent_by_the_task_that_finished_it(share, every, count, workers, monkeypatch):
    """Each finished tile another worker reads is sent once, as soon as it is finished: through shared
    memory by the POTRF or TRSM that finishes it (potrf_share, trsm_share: one task, no round trip
    through the scheduler between them), over TCP by a fetch submitted straight after it -- so the
    next panel's owner gets L_K+1,K behind one TRSM, not the whole column's.  Exactly the tiles some
    other worker's task reads are sent (found here by replaying the steps); with every (a numpy L
    read by the client from shared memory) every tile is, each handed to the hook that copies it."""
    from glgpgpu.distributed.schedule import factor_tiles
    from glgpgpu.layouts.tiles import TileGrid, cholesky_steps

    class Recorder:
        def __init__(self):
            self.tasks = []

        def submit(self, fn, *args, key, workers, **kw):
            self.tasks.append((fn.__name__, args, workers[0]))
            return len(self.tasks) - 1
    g = TileGrid(count * 8, 8)
    own = gd.owners(g.count, [f"w{i}" for i in range(workers)])
    rec = Recorder()
    hooked = []
    factor_tiles(rec, g, own, "job", "compute", "outer", [], lambda submit, I, J: submit(len, (I, J)), share=share,
                 every=every, sent_hook=lambda tile, fut: hooked.append((tile, fut)))
    want = set(g.lower()) if every else set()
    for op, I, J, K in cholesky_steps(g.count):
        if op == "trsm" and own[K, K] != own[I, K]:
            want.add((K, K))
        if op == "update":
            want |= {(I, K)} if own[I, K] != own[I, J] else set()
            want |= {(J, K)} if own[J, K] != own[I, J] else set()
    assert sorted(tile for tile, _ in hooked) == sorted(want) and len(hooked) == len(want)
    for (I, K), index in hooked:
        name, args, where = rec.tasks[index]
        assert where == own[I, K]
        if (share or every) and I == K:           # the finishing task itself: potrf_share(job, K, ...), or
            assert name == ("potrf_share" if K == 0 else "update_potrf_share") and args[1] == K   # with its last update
        elif share or every:                      # trsm_share(job, I, K, ...)
            assert name == "trsm_share" and args[1:3] == (I, K)
        else:                                     # fetch(job, I, K, ...) right behind potrf / trsm
            before, bargs, _ = rec.tasks[index - 1]
            assert name == "fetch" and args[1:3] == (I, K)
            factored = "potrf" if K == 0 else "update_potrf"
            assert (before, bargs[1]) == (factored, K) if I == K else (before, bargs[1:3]) == ("trsm", (I, K))
    names = {n for n, _, _ in rec.tasks}
    assert "share" not in names                   # never a task of its own here
    if not (share or every):
        assert not names & {"potrf_share", "trsm_share"}
    from glgpgpu.distributed import schedule      # FUSE = False: a share task right behind, POTRF apart
    monkeypatch.setattr(schedule, "FUSE", False)
    rec, hooked = Recorder(), []
    factor_tiles(rec, g, own, "job", "compute", "outer", [], lambda submit, I, J: submit(len, (I, J)), share=share,
                 every=every, sent_hook=lambda tile, fut: hooked.append((tile, fut)))
    assert sorted(tile for tile, _ in hooked) == sorted(want)
    for (I, K), index in hooked:
        before, bargs, _ = rec.tasks[index - 1]
        assert rec.tasks[index][0] == ("share" if share or every else "fetch")
        assert (before, bargs[1]) == ("potrf", K) if I == K else (before, bargs[1:3]) == ("trsm", (I, K))


@pytest.mark.parametrize("n", [1, 3])
def test_a_bounded_gpu_queue_gives_the_same_bits(client, n):
    """worker.QUEUE_DEPTH = 1: every update waits until the one before it is done on the GPU (a
    fence each); 3: until at most three are queued; the factor is the one-process one bit for bit,
    and no fence is left behind."""
    from glgpgpu.distributed import worker as wk
    default = wk.QUEUE_DEPTH
    def depth(n):
        from glgpgpu.distributed import worker
        worker.QUEUE_DEPTH = n
        return len(worker._QUEUED)
    A = spd(400, 1e2, np.random.default_rng(12))
    client.run(depth, n)
    try:
        L = gd.cholesky(A, client=client, tile=64, method="compute")
    finally:
        left = client.run(depth, default)
    assert np.array_equal(L, glgpgpu.cholesky(A, method="compute", ctx=glgpgpu.Context(max_texture_size=64)))
    assert set(left.values()) == {0}


@pytest.mark.parametrize("order", ["column", "row", "tied"])
def test_the_step_chain_outranks_far_rows(order, monkeypatch):
    """By column (the default) a task on tile (I, J) ranks by J, then I; by row by I, then J: either
    way no two tiles tie, and the TRSM of L_K+1,K outranks its column's farther rows' (Dask runs equal
    priorities in the order they reach the worker, not as submitted: with "tied", by J only, the chain's
    TRSM waited behind its column's others).  By row the update of (K+1, K+1) outranks them too."""
    from glgpgpu.distributed import schedule
    monkeypatch.setattr(schedule, "PRIORITY", order)
    count = 6
    tiles = [(I, J) for I in range(count) for J in range(I + 1)]
    ranks = sorted(tiles, key=lambda tile: -schedule.priority(tile, count))
    if order == "tied":
        assert schedule.priority((2, 1), count) == schedule.priority((5, 1), count) > schedule.priority((5, 2), count)
        return
    assert len({schedule.priority(tile, count) for tile in tiles}) == len(tiles)
    assert schedule.priority((2, 1), count) > schedule.priority((5, 1), count)
    assert ranks == sorted(tiles, key=lambda tile: tile if order == "row" else tile[::-1])
    assert (schedule.priority((2, 2), count) > schedule.priority((5, 1), count)) == (order == "row")


@pytest.mark.parametrize("priority, fuse", [("row", True), ("column", False), ("row", False), ("tied", True)])
def test_every_schedule_option_gives_the_same_bits(client, monkeypatch, priority, fuse):
    """PRIORITY and FUSE change the order a worker runs its tasks in and how many tasks there are,
    never what a tile's operations are: the one-process factor bit for bit."""
    from glgpgpu.distributed import schedule
    monkeypatch.setattr(schedule, "PRIORITY", priority)
    monkeypatch.setattr(schedule, "FUSE", fuse)
    A = spd(333, 1e2, np.random.default_rng(13))
    L = gd.cholesky(A, client=client, tile=64, method="compute")
    assert np.array_equal(L, glgpgpu.cholesky(A, method="compute", ctx=glgpgpu.Context(max_texture_size=64)))


@pytest.mark.parametrize("rows", [1, 2])
def test_the_kernel_factors_substitutions_on_either_grid(client, monkeypatch, rows):
    """The LS-SVM factor's solve, a task a tile row on the diagonal tile's owner: in block columns
    (1 x 2: that owner also makes the next row's partial, carried to the next step) and in block
    rows (2 x 1: the other worker's partials as tasks of their own) -- H^-1 R to float32's level
    against float64, two right-hand sides, 9 tile rows of 40 and a last one of 20."""
    from glgpgpu.distributed import kernel as dk
    from glgpgpu.kernel_functions import kernel64
    monkeypatch.setattr(dk, "GRID_ROWS", rows)
    rng = np.random.default_rng(15)
    X = rng.standard_normal((380, 5))
    H = kernel64(X, X, "rbf", 0.2, 3, 0.0) + 2.0 * np.eye(380)
    F = dk.DistributedKernelFactor(X, client=client, kernel="rbf", gamma=0.2, degree=3, coef0=0.0, diag=2.0, tile=40)
    try:
        assert F.g.count == 10 and len({F.own[K, K] for K in range(10)}) == 2
        assert (F.own[1, 0] == F.own[0, 0]) == (rows == 1)
        R = rng.standard_normal((380, 2))
        for _ in range(2):                               # a second solve: keys and carried partials anew
            Y = F.solve(R)
            assert np.abs(Y - np.linalg.solve(H, R)).max() <= 1e-4 * np.abs(np.linalg.solve(H, R)).max()
    finally:
        F.release()
    assert_nothing_held(client)


def test_a_dask_factors_chunks_are_its_tiles_tasks(client):
    """L as a dask.array: each lower chunk's key is the task that read the tile (no alias task a
    chunk for Dask to schedule when L is persisted), the upper chunks one zeros task a shape."""
    da = pytest.importorskip("dask.array")
    from distributed import Future
    A = spd(300, 1e2, np.random.default_rng(3))
    L = gd.cholesky(da.from_array(A, chunks=64), client=client, tile=64, method="compute")
    dsk = dict(L.__dask_graph__())
    n = len(L.chunks[0])
    lower = [dsk[(L.name, I, J)] for I in range(n) for J in range(I + 1)]
    assert all(isinstance(f, Future) and f.key == (L.name, I, J)
               for f, (I, J) in zip(lower, [(I, J) for I in range(n) for J in range(I + 1)]))
    assert len(dsk) == n * n + 2                 # + zeros of 64 x 64 and 64 x 44 (300 = 4 x 64 + 44)
    want = glgpgpu.cholesky(A, method="compute", ctx=glgpgpu.Context(max_texture_size=64))
    assert np.array_equal(client.persist(L).compute(), want)


@pytest.mark.parametrize("estimator, answer", [("LSSVC", "decision_function"), ("LSSVR", "predict")])
def test_the_ls_svm_fits_on_the_cluster(client, estimator, answer):
    """LSSVC(client=) and LSSVR(client=): H's tiles made on their owners from X, factored there,
    the solves by tile rows there; refined to float64 here -- the one-process model's answers."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((300, 5))
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int) if estimator == "LSSVC" else np.sin(X[:, 0]) + 0.1 * X[:, 1]
    Estimator = getattr(glgpgpu, estimator)
    model = Estimator(C=10.0, gamma=0.2, client=client, tile=64, method="compute").fit(X, y)
    alone = Estimator(C=10.0, gamma=0.2, method="compute").fit(X, y)
    T = rng.standard_normal((40, 5))
    assert model.info_["converged"]
    assert np.abs(getattr(model, answer)(T) - getattr(alone, answer)(T)).max() <= 1e-10
    assert_nothing_held(client)
    with pytest.raises(ValueError, match="client"):
        Estimator(client=client, solver="cg").fit(X, y)


@pytest.mark.parametrize("N, tile", [(300, 64), (129, 128)])
def test_kernel_tiles_formed_on_the_owners_gpu_equal_the_one_process_ones(client, N, tile):
    """The compute method's LS-SVM tiles are formed on each owner's GPU as the one-process
    kernel_tiles forms them, so the cluster's factor of K + diag I has the one-process tiled
    factor's pivots bit for bit (formed in float64 on the workers' hosts they differed)."""
    from glgpgpu.compute.tiled import kernel_tiles
    from glgpgpu.distributed.kernel import DistributedKernelFactor
    from glgpgpu.tiled.cholesky import factor
    X = np.random.default_rng(N).standard_normal((N, 5))
    kw = dict(kernel="rbf", gamma=0.2, degree=3, coef0=0.0, diag=0.1)
    fac = DistributedKernelFactor(X, client=client, tile=tile, method="compute", **kw)
    try:
        T = kernel_tiles(np.ascontiguousarray(X, np.float32), ctx=glgpgpu.Context(max_texture_size=tile), **kw)
        try:
            assert T.grid.count == fac.g.count and np.array_equal(factor(T), fac.pivots)
        finally:
            T.release()
    finally:
        fac.release()
    assert_nothing_held(client)


@pytest.mark.parametrize("m, tile, k", [(1, 64, 1), (2, 64, 3), (3, 2, 1), (130, 64, 2), (301, 64, 0)])
def test_cho_solve_with_the_clusters_factor(client, m, tile, k):
    """cholesky's dask.array L and the workers' substitutions: L L^T X = B to the float32
    residual bound, B as numpy (X numpy) and as a dask.array (X a dask.array); k = 0: a vector."""
    da = pytest.importorskip("dask.array")
    from bounds import residual_ok
    rng = np.random.default_rng(m + k)
    A = spd(m, 1e2, rng)
    L = gd.cholesky(da.from_array(A, chunks=tile), client=client, tile=tile, method="compute")
    B = rng.standard_normal((m, k) if k else m)
    X = gd.cho_solve(L, B, client=client)
    assert isinstance(X, np.ndarray) and X.shape == B.shape
    Ln = L.compute()
    Y = gd.solve_triangular(L, B, client=client)
    ok, worst = residual_ok(Ln, Y.reshape(m, -1), B.reshape(m, -1))
    assert ok, worst
    ok, worst = residual_ok(Ln.T, X.reshape(m, -1), Y.reshape(m, -1))
    assert ok, worst
    Xd = gd.cho_solve(L, da.from_array(B, chunks=max(1, m // 2)), client=client)
    assert isinstance(Xd, da.Array) and np.allclose(Xd.compute(), X, rtol=1e-12, atol=0)
    assert_nothing_held(client)


def test_solve_triangular_refuses_what_it_cannot_solve(client):
    L = np.tril(np.ones((5, 5)))
    L[3, 3] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="diagonal entry 3"):
        gd.solve_triangular(L, np.ones(5), client=client, tile=2)
    with pytest.raises(ValueError, match="5 rows"):
        gd.solve_triangular(np.eye(5), np.ones(4), client=client)
    with pytest.raises(ValueError, match="square"):
        gd.solve_triangular(np.ones((5, 4)), np.ones(5), client=client)
    B = np.ones(5)
    B[2] = np.nan
    with pytest.raises(ValueError, match="B"):
        gd.solve_triangular(np.eye(5), B, client=client)


def test_an_upper_and_a_transposed_solve(client):
    rng = np.random.default_rng(9)
    U = np.triu(rng.standard_normal((70, 70))) + 10 * np.eye(70)
    B = rng.standard_normal((70, 2))
    import scipy.linalg as sla
    for trans in (False, True):
        X = gd.solve_triangular(U, B, lower=False, trans=trans, client=client, tile=16)
        assert np.allclose(X, sla.solve_triangular(U, B, lower=False, trans=trans), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("N, tile", [(1, 128), (2, 128), (37, 16), (130, 64)])
@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_kernel_matrix_on_the_cluster(client, N, tile, kernel):
    """K's lower tiles formed on their owners from X: glgpgpu.kernel_matrix's contract (float32,
    lower triangle, upper part zero) within its float32 bound; no tile left on a worker."""
    da = pytest.importorskip("dask.array")
    from bounds import kernel_reference
    X = np.random.default_rng(N).standard_normal((N, 5))
    g, deg, c0 = 0.3, 3, 0.5
    Kd = gd.kernel_matrix(X, client=client, kernel=kernel, gamma=g, degree=deg, coef0=c0, tile=tile)
    assert isinstance(Kd, da.Array) and Kd.shape == (N, N) and Kd.dtype == np.float32
    K = Kd.compute()
    want, bound = kernel_reference(X, kernel, g, deg, c0)
    low = np.tril(np.ones((N, N), bool))
    err = np.abs(K.astype(np.float64) - want)
    assert (err[low] <= 2 * bound[low] + 1e-30).all(), (err / np.maximum(bound, 1e-300))[low].max()
    assert (K[~low] == 0).all()
    assert_nothing_held(client)


def test_kernel_matrix_checks_as_the_one_process_call(client):
    with pytest.raises(ValueError, match="kernel"):
        gd.kernel_matrix(np.ones((4, 2)), client=client, kernel="sigmoid")
    X = np.ones((4, 2))
    X[1, 1] = np.inf
    with pytest.raises(ValueError, match="X"):
        gd.kernel_matrix(X, client=client)


@pytest.mark.parametrize("method, m, n, tile", [("compute", 1, 1, 64), ("compute", 2, 3, 64), ("compute", 3, 130, 64),
                                                ("compute", 150, 77, 64), ("blocked", 131, 40, 64),
                                                ("paper", 70, 9, 32)])
def test_adat_equals_the_one_process_tiled_product(client, method, m, n, tile):
    """A D A^T's tiles made on their owners from A's row bands: the one-process tiled product's
    bits (numpy in, numpy out; a dask.array in, a dask.array out), within adat's float32 bound."""
    da = pytest.importorskip("dask.array")
    from bounds import check_adat
    rng = np.random.default_rng(m * n)
    A = rng.standard_normal((m, n))
    A[:, -(n // 3):] = 0.0 if n > 3 else A[:, -(n // 3):]     # zero trailing columns: skipped
    d2 = rng.uniform(0.1, 2.0, n)
    C = gd.adat(A, d2, client=client, tile=tile, method=method)
    ref = glgpgpu.adat(A, d2, method=method, ctx=glgpgpu.Context(max_texture_size=tile))
    assert np.array_equal(C, ref)
    check_adat(C, A, d2)
    Cd = gd.adat(da.from_array(A, chunks=(max(1, m // 2), max(1, n // 2))), d2, client=client, tile=tile,
                 method=method)
    assert isinstance(Cd, da.Array) and np.array_equal(Cd.compute(), ref)
    assert_nothing_held(client)


def test_adat_scales_far_magnitudes_and_checks_its_inputs(client):
    rng = np.random.default_rng(5)
    A = rng.standard_normal((40, 12)) * 2.0 ** 70           # A A^T would overflow float32 unscaled
    d2 = np.full(12, 2.0 ** -60)
    from bounds import check_adat
    C = gd.adat(A, d2, client=client, tile=16)
    check_adat(C, A, d2)
    assert np.array_equal(C, glgpgpu.adat(A, d2, method="compute", ctx=glgpgpu.Context(max_texture_size=16)))
    with pytest.raises(ValueError, match="d2"):
        gd.adat(A, np.ones(11), client=client)
    A[3, 4] = np.nan
    with pytest.raises(ValueError, match="A"):
        gd.adat(A, d2, client=client)


def test_kernel_matrix_cholesky_and_cho_solve_on_the_cluster(client):
    """The package's example, the whole way on the workers: K's tiles from X, K + lam I
    factored, the system solved with L's tiles -- kernel ridge regression's coefficients
    within float32 of the float64 ones."""
    da = pytest.importorskip("dask.array")
    from glgpgpu.kernel_functions import kernel64
    rng = np.random.default_rng(12)
    X = rng.standard_normal((150, 3))
    y = np.sin(X[:, 0])
    lam = 1.0
    K = gd.kernel_matrix(X, client=client, kernel="rbf", gamma=0.5, tile=64)
    L = gd.cholesky(K + lam * da.eye(len(X), chunks=64, dtype=np.float32), client=client, tile=64)
    alpha = gd.cho_solve(L, y, client=client)
    H = kernel64(X, X, "rbf", 0.5, 3, 0.0) + lam * np.eye(len(X))
    want = np.linalg.solve(H, y)
    cond = np.linalg.cond(H)
    assert np.linalg.norm(alpha - want) <= 4 * len(X) * 2.0 ** -24 * cond * np.linalg.norm(want)
    assert_nothing_held(client)


@pytest.mark.parametrize("tiles_a_call", [0.5, 1, 2, 3])
def test_numpy_tiles_go_straight_to_their_owners(client, monkeypatch, tiles_a_call):
    """A numpy A's tiles are scattered to their owners, at most SCATTER_BYTES a call (crossed here
    around one and a few tiles' bytes), never sent as task arguments: no large-graph warning from
    Dask even with its threshold below one tile, and the one-process factor's bits."""
    import dask
    import warnings
    from glgpgpu.distributed import schedule
    A = spd(200, 1e2, np.random.default_rng(7))
    monkeypatch.setattr(schedule, "SHARED_MEMORY", False)     # (on one machine the tiles go as files)
    monkeypatch.setattr(schedule, "SCATTER_BYTES", int(tiles_a_call * 4 * 64 * 64))
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "8kB"}), warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        L = gd.cholesky(A, client=client, tile=64, method="compute")
    assert np.array_equal(L, glgpgpu.cholesky(A, method="compute", ctx=glgpgpu.Context(max_texture_size=64)))
    assert_nothing_held(client)


def test_numpy_operands_of_the_solves_go_to_the_workers_not_through_the_graph(client, monkeypatch):
    """A numpy L and B are scattered to the workers by blocks (at most SCATTER_BYTES a call), not
    embedded in the graph: no large-graph warning with Dask's threshold below one block."""
    import dask
    import warnings
    from glgpgpu.distributed import schedule
    rng = np.random.default_rng(3)
    L = np.tril(rng.standard_normal((150, 150))) + 20 * np.eye(150)
    B = rng.standard_normal((150, 2))
    monkeypatch.setattr(schedule, "SCATTER_BYTES", 8 * 40 * 40 * 2)        # about two blocks a call
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "8kB"}), warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        X = gd.cho_solve(L, B, client=client, tile=40)
    import scipy.linalg as sla
    assert np.allclose(X, sla.cho_solve((L, True), B), rtol=1e-12, atol=1e-14)


def _shared_files_made(client):
    """Files the workers' shelves and this process's (the client's) have made in all."""
    def made():
        from glgpgpu.distributed import shared
        return shared.made_shelf().made if shared.made_shelf() is not None else 0
    return sum(client.run(made).values()) + made()


@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("m, tile", [(700, 128), (129, 128), (250, 64), (3, 64)])
def test_tiles_sent_through_shared_memory_or_as_results_give_the_same_bits(client, monkeypatch, shared, m, tile):
    """A finished tile another worker reads, and a dask.array's block held by a worker other than
    its tile's owner, go through a shared-memory file (SHARED_MEMORY True: files are made) or
    as a task's result (False: none): the same bits as the one-process factor either way, numpy
    in and out (the client on the workers' machine writes A's tiles into files and reads the
    shared tiles of L from theirs) and
    dask.array in and out (computed in the call, or persisted before) -- L's tiles still readable
    after the call unlinked the files -- and nothing left on the workers."""
    da = pytest.importorskip("dask.array")
    from glgpgpu.distributed import schedule
    monkeypatch.setattr(schedule, "SHARED_MEMORY", shared)
    A = spd(m, 1e3, np.random.default_rng(m + 1))
    ref = glgpgpu.cholesky(A, method="compute", ctx=glgpgpu.Context(max_texture_size=tile))
    before = _shared_files_made(client)
    mapped = []
    read = schedule.shared.read
    monkeypatch.setattr(schedule.shared, "read", lambda tile: mapped.append(tile) or read(tile))
    here = schedule.shared.shelf().made
    assert np.array_equal(gd.cholesky(A, client=client, tile=tile, method="compute"), ref)
    assert bool(mapped) == shared                            # numpy L: its tiles read from files
    assert (schedule.shared.shelf().made > here) == shared   # numpy A: its tiles written into files here
    assert schedule.shared.shelf().files() == 0
    L = gd.cholesky(da.from_array(A, chunks=tile), client=client, tile=tile, method="compute")
    assert_nothing_held(client)                  # files unlinked, tiles given back ...
    assert np.array_equal(L.compute(), ref)                  # ... and L's tiles still there
    On = client.persist(da.from_array(A, chunks=tile))       # blocks on the workers: some on their owners
    distributed.wait(On)
    assert np.array_equal(gd.cholesky(On, client=client, tile=tile, method="compute").compute(), ref)
    assert_nothing_held(client)
    made = _shared_files_made(client) - before
    assert (made > 0) == shared                              # (one tile: only input blocks are handed)


def test_shared_memory_is_chosen_where_every_owner_shares_a_machine_with_room(monkeypatch):
    """Between workers: two or more on one machine with room for twice the lower tiles; with the
    client: its machine is theirs (with room), one worker too; never across machines."""
    from glgpgpu.distributed import schedule, shared
    from glgpgpu.layouts.tiles import TileGrid

    class Client:
        def __init__(self, where):
            self.where = where

        def run(self, fn, workers):
            return {a: self.where[a] for a in workers}
    monkeypatch.setattr(shared, "machine", lambda: ("m1", 0))         # the client's machine
    g = TileGrid(300, 64)                                    # 5 x 5 tiles: 15 lower ones (a numpy A's in
    need = 2 * 4 * 64 * 64 * 15                              # files, and L's: every one shared)
    own = gd.owners(g.count, ["a", "b"])
    choose = schedule.shared_memory
    assert choose(Client({"a": ("m1", need), "b": ("m1", need)}), own, g) == (True, True)
    assert choose(Client({"a": ("m2", need), "b": ("m2", need)}), own, g) == (True, False)
    assert choose(Client({"a": ("m1", need), "b": ("m1", need - 1)}), own, g) == (False, False)
    assert choose(Client({"a": ("m1", need), "b": ("m2", need)}), own, g) == (False, False)
    assert choose(Client({"a": ("m1", need)}), gd.owners(g.count, ["a"]), g) == (False, True)
    monkeypatch.setattr(schedule, "SHARED_MEMORY", True)
    assert choose(Client({"a": ("m2", 0), "b": ("m2", 0)}), own, g) == (True, False)
    monkeypatch.setattr(schedule, "SHARED_MEMORY", False)
    assert choose(Client({"a": ("m1", need), "b": ("m1", need)}), own, g) == (False, False)


def test_a_shelf_hands_over_tiles_and_unlinks_its_files(tmp_path, monkeypatch):
    """take() gives a writable array mapped from a new file (some made ahead); read() maps the
    same numbers in another mapping; release() unlinks the job's files, made-ahead ones too (on a
    thread of its own: settle() waits),
    while the arrays stay readable; files of a process that is gone are removed."""
    import os
    import subprocess
    import sys
    from glgpgpu.distributed import shared
    monkeypatch.setattr(shared, "DIRECTORY", str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f"{shared.PREFIX}{int(dead.stdout)}-job-0"
    stale.write_bytes(b"x")
    mine = tmp_path / f"{shared.PREFIX}{os.getpid()}-job-0"
    mine.write_bytes(b"x")
    shelf = shared.Shelf()
    assert not stale.exists() and mine.exists()
    mine.unlink()
    handles = []
    for k in range(5):
        handle, out = shelf.take("j", (3, 5))
        out[...] = k + np.arange(15, dtype=np.float32).reshape(3, 5)
        handles.append((handle, out))
    other_handle, _ = shelf.take("other", (2, 2))
    assert {h.path for h, _ in handles} <= {str(p) for p in tmp_path.iterdir()}
    seen = [shared.read(h) for h, _ in handles]
    assert shelf.release("j") >= 5
    shared.settle()                                      # unlinked off the caller's thread: waited for
    assert [p.name for p in tmp_path.iterdir()] != [] and not any(p.name.count("-j-") for p in tmp_path.iterdir())
    for k, ((h, out), got) in enumerate(zip(handles, seen)):
        assert np.array_equal(got, out) and got[0, 0] == k and not got.flags.writeable
    assert shelf.release("other") >= 1
    shared.settle()
    assert not any(tmp_path.iterdir())
    assert shelf.files() == 0 and os.path.basename(other_handle.path).startswith(shared.PREFIX)


def test_a_hand_that_fails_ends_the_call_and_leaves_no_file(client, monkeypatch):
    """A numpy A handed into files on the client's threads: where one hand fails (here the third:
    as a full /dev/shm would), the call raises that error, the hands still queued never start, and
    no file of the call is left on either side."""
    from glgpgpu.distributed import schedule
    from glgpgpu.errors import HostMemoryError
    monkeypatch.setattr(schedule, "SHARED_MEMORY", True)
    hand, calls = schedule.shared.hand, []

    def failing(job, block, t):
        calls.append(1)
        if len(calls) == 3:
            raise HostMemoryError("no room (the test's)")
        if len(calls) > 3:
            time.sleep(0.05)                              # still handing when the call ends
        return hand(job, block, t)
    monkeypatch.setattr(schedule.shared, "hand", failing)
    A = spd(600, 1e2, np.random.default_rng(14))
    with pytest.raises(HostMemoryError, match="the test's"):
        gd.cholesky(A, client=client, tile=64, method="compute")
    assert schedule.shared.shelf().files() == 0
    assert_nothing_held(client)


def test_a_full_shared_memory_is_a_named_error(tmp_path, monkeypatch):
    """No room left for a file (posix_fallocate's ENOSPC: never a SIGBUS on a later write) is a
    HostMemoryError naming the directory and the way out (SHARED_MEMORY = False)."""
    import errno
    import os
    from glgpgpu.distributed import shared
    from glgpgpu.errors import HostMemoryError
    monkeypatch.setattr(shared, "DIRECTORY", str(tmp_path))

    def full(fd, offset, length):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "posix_fallocate", full)
    shelf = shared.Shelf()
    with pytest.raises(HostMemoryError, match="SHARED_MEMORY = False"):
        shelf.take("j", (4, 4), ahead=False)
    assert shelf.release("j") == 1
    shared.settle()
    assert not any(tmp_path.iterdir())


def test_one_worker_on_the_clients_machine_takes_numpy_in_and_out_through_files(monkeypatch):
    """With one worker (nothing sent between workers) on the client's machine, a numpy A's tiles
    still go in as files and L's tiles (the diagonal's too) come back as files: the one-process bits,
    nothing left behind on either side."""
    from glgpgpu.distributed import schedule
    A = spd(300, 1e2, np.random.default_rng(11))
    mapped = []
    read = schedule.shared.read
    monkeypatch.setattr(schedule.shared, "read", lambda tile: mapped.append(tile) or read(tile))
    here = schedule.shared.shelf().made
    with gd.LocalGLCluster(n_workers=1) as cluster, cluster.get_client() as c:
        L = gd.cholesky(A, client=c, tile=64, method="compute")
        assert_nothing_held(c)
    assert np.array_equal(L, glgpgpu.cholesky(A, method="compute", ctx=glgpgpu.Context(max_texture_size=64)))
    assert schedule.shared.shelf().made - here >= 15 and len(mapped) == 15      # 15 lower tiles each way (and files made ahead)
    assert schedule.shared.shelf().files() == 0
