"""The tiled Cholesky as Dask tasks: glgpgpu.tiled's right-looking schedule
(layouts.tiles.cholesky_steps) with each tile owned by one worker (2-D block-cyclic),
every task pinned to its tile's owner ("owner computes"), and a finished tile sent to
the workers that read it -- between the workers of one machine through a shared-memory
file written by the task that finished it (shared.py), else as the result of a `fetch`
on its owner.  A numpy A and L go through such files too where the client is on the
workers' machine, copied on the client's threads while the factor runs."""
from __future__ import annotations

import itertools
import threading
import uuid
from concurrent.futures import Future as HandOver
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from distributed import get_client, wait

from .. import validate as check
from ..errors import NotPositiveDefiniteError
from ..layouts.tiles import TileGrid, cholesky_steps
from . import shared
from . import worker as w


class WorkerLostError(RuntimeError):
    """A worker that owned tiles of a distributed call left the cluster mid-call."""


#: the rows of the p x q grid of workers that owns the tiles: None for the largest divisor of
#: the workers' number <= its square root (2 x 2 for 4); 1 for block columns (1 x 4: a panel on
#: one worker, the updates of the lower triangle spread more evenly -- 144 of 560 at most on a
#: 15 x 15 grid of tiles against 168 for 2 x 2)
GRID_ROWS = None


#: how the lower tiles are dealt to the workers: "block-cyclic" (2-D over a p x q grid of them,
#: GRID_ROWS) or "symmetric" (four workers only: SYMMETRIC_4's cells over (I mod 4, J mod 4), after the
#: symmetric block-cyclic layouts of Beaumont et al., 2022 -- on 2 x 2 the two workers off the grid's
#: diagonal read every tile row, 84 tiles received of 120 at 15 x 15 tiles; here at most 61:
#: experiments/distributed_receives.py).  An explicit `rows` (the LS-SVM's block columns) is block-cyclic.
LAYOUT = "block-cyclic"

#: the symmetric layout's cells (a >= b) -> worker: (a, b) and (b, a) on one worker, each worker's cells
#: meeting at most 3 of the 4 residues, the same share of the tiles each (an off-diagonal cell holds
#: twice a diagonal one's)
SYMMETRIC_4 = {(1, 0): 0, (2, 0): 0, (3, 0): 1, (3, 1): 1, (2, 1): 2, (1, 1): 2, (2, 2): 2, (3, 2): 3,
               (0, 0): 3, (3, 3): 3}


def owners(count: int, workers: list, rows: int | None = None) -> dict:
    """(I, J) -> worker for the lower tiles of a count x count grid: 2-D block-cyclic over
    a p x q grid of the workers (p q = len(workers); p = rows, else GRID_ROWS, else the largest
    divisor <= sqrt, so p <= q: two workers own alternate block columns, and a panel's POTRF
    and TRSMs run on one of them with no tile sent between them -- one transfer a step on the
    critical path, not two); with LAYOUT "symmetric" and no `rows`, SYMMETRIC_4's.  ValueError
    where p does not divide the workers' number, or a symmetric layout is asked of other than 4."""
    n = len(workers)
    if LAYOUT == "symmetric" and rows is None:
        if n != 4:
            raise ValueError(f"the symmetric layout is made for 4 workers, not {n}; use LAYOUT = 'block-cyclic'")
        return {(I, J): workers[SYMMETRIC_4[max(I % 4, J % 4), min(I % 4, J % 4)]]
                for I in range(count) for J in range(I + 1)}
    p = rows or GRID_ROWS or max(d for d in range(1, int(n ** 0.5) + 1) if n % d == 0)
    if n % p:
        raise ValueError(f"a grid of {p} rows does not divide {n} workers; choose a divisor of {n}")
    q = n // p
    return {(I, J): workers[(I % p) * q + (J % q)] for I in range(count) for J in range(I + 1)}


def cholesky(A, *, client=None, tile: int | None = None, method: str = "auto", variant: str = "outer",
             poll: float = 0.5):
    """L with L L^T = A (A's lower triangle read; float32 (m, m), upper part zero), the
    tiles factored on the cluster's workers.  A: numpy (L numpy), or a dask.array (L a
    dask.array: A's tiles are made on the workers -- rechunked to the tile grid -- and
    sent worker to worker to their owners, and L's tiles stay there until computed).
    tile: the tile order's limit (default: each worker's texture limit); the tile order is
    the one-process code's for that limit, so the result equals
    `glgpgpu.cholesky(A, method=..., ctx=Context(max_texture_size=tile))` bit for bit.
    Raises NotPositiveDefiniteError naming the global pivot, ValueError naming the first entry of
    a dask.array A's lower triangle that is not finite in float32 (a numpy A is checked whole
    before the factor, as glgpgpu.cholesky checks it), WorkerLostError naming the worker and tile
    when an owner leaves (checked every `poll` seconds)."""
    client = client or get_client()
    lazy = is_dask_array(A)                                      # tiles made on the workers
    if lazy:
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"A must be a square matrix, got shape {A.shape}")
    else:
        A = check.square(A, "A")
    if tile is not None:
        check.integer(tile, "tile", 1)
    name, g, own = plan(client, A.shape[0], tile, method, variant)
    job = f"cholesky-{uuid.uuid4().hex}"
    live = []                     # every future, for the fault check
    try:
        return _factor(client, A, g, own, job, name, variant, live, poll, lazy)
    except NotPositiveDefiniteError as exc:
        # a numpy A was checked before the factor; a dask.array's NaN or inf (or a float64 value
        # past float32) shows first as the pivot of its row -- every pivot before it was fine, so
        # the first such entry of the lower triangle, if any, is in that row: named as what it is
        bad = non_finite_in_row(client, A, exc.pivot) if lazy else None
        if bad is not None:
            raise ValueError(f"A holds a non-finite value{bad[1]} (first at index ({exc.pivot}, {bad[0]})) in "
                             f"the lower triangle the factor reads") from exc
        raise
    finally:
        release(client, own, job)


def non_finite_in_row(client, A, p: int):
    """(j, how) of the first entry of row p of dask.array A's lower triangle, A[p, :p + 1], that is
    not finite in float32 (how: "" where A's own value is not finite, else " (it overflows
    float32)"), or None: one row read, for the failure path."""
    row = np.asarray(client.compute(A[p, :p + 1]).result())
    with np.errstate(over="ignore", invalid="ignore"):
        bad = np.flatnonzero(~np.isfinite(row.astype(np.float32)))
    if not bad.size:
        return None
    j = int(bad[0])
    return j, "" if not np.isfinite(row[j]) else " (it overflows float32)"


def plan(client, m: int, tile, method: str, variant: str, rows: int | None = None) -> tuple:
    """(the method's name, the tile grid, {tile: owner}) for an m x m matrix on the client's
    workers (ValueError where there are none); the tile order as a worker's one process picks it;
    rows: the rows of the grid of workers (owners)."""
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        raise ValueError("the Dask cluster has no workers; start some (LocalGLCluster() or `dask worker`)")
    name, t = client.submit(w.plan, m, tile, method, variant, workers=workers[:1], pure=False).result()
    g = TileGrid(m, t)
    return name, g, owners(g.count, workers, rows)


#: tiles go through shared memory (shared.py) between the workers of one machine, and between
#: them and a client there (a numpy A in, L out): "auto" where they share a machine with room
#: (shared_memory), True, or False (as Dask moves any data: over TCP)
SHARED_MEMORY = "auto"


def shared_memory(client, own: dict, g) -> tuple:
    """(between workers, with this process): whether the call's tiles go through shared memory
    (SHARED_MEMORY) between its workers, and between them and this (the client's) process -- a
    numpy A's tiles in, L's shared tiles out.  "auto" asks each owner for its machine and the room
    in its shared memory, which must hold every lower tile twice over (a numpy A's tiles in files
    while L's are shared: an upper bound on those sent between workers): between workers where
    there are two or more on one machine, with this process where it is on theirs.  Never with
    this process on another machine."""
    addrs = sorted(set(own.values()))
    where = client.run(shared.machine, workers=addrs)
    machines = {m for m, _ in where.values()}
    room = min((r for _, r in where.values()), default=0) >= 2 * 4 * g.t * g.t * g.count * (g.count + 1) // 2
    here = machines == {shared.machine()[0]}
    if SHARED_MEMORY != "auto":
        return bool(SHARED_MEMORY), bool(SHARED_MEMORY) and here
    one = len(machines) == 1 and room
    return one and len(addrs) >= 2, one and here


def release(client, own: dict, job) -> None:
    """Every tile, copy and shared-memory file of `job` given back on the workers still in the
    cluster (every one: a worker that owns no tile may have handed an input block), and the
    files this process wrote for it (a numpy input's tiles that no put consumed)."""
    # all at once: one after another they added up (0.55 s on 4 H100 workers at 60,000)
    done = [client.submit(w.release, job, workers=[addr], pure=False, allow_other_workers=False,
                          key=f"release-{job}-{next(_SERIAL)}")
            for addr in client.scheduler_info()["workers"]]
    if shared.made_shelf() is not None:
        shared.made_shelf().release(job)
    client.gather(done)


def _blocks(client, A, g):
    """{(I, J): a future of tile (I, J)'s block} of a dask.array, computed on the workers
    (rechunked to the tile grid; only the lower tiles)."""
    blocks = A.astype(np.float32).rechunk((g.t, g.t)).to_delayed()
    keys = list(g.lower())
    return dict(zip(keys, client.compute([blocks[I][J] for I, J in keys])))


def handed(client, blocks: dict, own: dict, job, g) -> dict:
    """{(I, J): what tile (I, J)'s put reads}: a block its owner holds already, else the
    shared-memory file the worker holding it copies it into (shared.hand, on that worker: Dask
    runs a task beside its one large dependency) -- not the block sent over TCP (under the factor's
    own traffic, 0.1-0.2 s a 64 MB block on the H100 hosts)."""
    held = client.who_has(list(blocks.values()))
    out = {}
    for (I, J), fut in blocks.items():
        if own[I, J] in held.get(fut.key, ()):
            out[I, J] = fut
        else:
            out[I, J] = client.submit(shared.hand, job, fut, g.t, pure=False, key=f"hand-{job}-{next(_SERIAL)}",
                                      priority=priority((I, J), g.count))
    return out


def is_dask_array(M) -> bool:
    """Whether M is a dask.array (or any collection with chunks that computes)."""
    return hasattr(M, "compute") and hasattr(M, "chunks")


def array_of(blocks: dict, chunks: tuple, prefix: str, dtype=np.float32, named: bool = False):
    """A dask.array of `dtype` whose block (i, j, ...) is blocks[i, j, ...]: a future (the block
    where it lies), a task, or the key of another entry of `blocks` (a str key: one task a
    block shares); named: prefix is the array's name itself (the futures may be its keys).
    A graph of the futures themselves: da.block over from_delayed copied every block once more
    through a cast and a concatenate (1.0 of 3.5 s at 32,768)."""
    import dask.array as da
    from dask.highlevelgraph import HighLevelGraph
    name = prefix if named else f"{prefix}-{uuid.uuid4().hex}"
    dsk = {((name,) + tuple(ix) if isinstance(ix, tuple) and not isinstance(ix[0], str) else ix): block
           for ix, block in blocks.items()}
    return da.Array(HighLevelGraph.from_collections(name, dsk, dependencies=()), name, chunks, dtype=dtype)


def _as_dask(parts, g, name: str | None = None):
    """L as a dask.array whose chunks are the tiles' futures, left on the workers; the upper
    tiles zeros, one task per shape (made where they are read).  name: the array's name, where
    the futures were submitted under its keys (name, I, J) -- their tasks are its chunks, with
    no task between (an alias task a chunk, else, for Dask to schedule when L is persisted)."""
    import functools
    name = name or f"cholesky-L-{uuid.uuid4().hex}"
    zeros = {}
    blocks = {}
    for I in range(g.count):
        for J in range(g.count):
            if J <= I:
                blocks[I, J] = parts[I, J]
                continue
            shape = (g.size(I), g.size(J))
            if shape not in zeros:
                zeros[shape] = (f"zeros-{name}-{len(zeros)}",)
                blocks[zeros[shape]] = (functools.partial(np.zeros, shape, np.float32),)
            blocks[I, J] = zeros[shape]
    sizes = tuple(g.size(I) for I in range(g.count))
    return array_of(blocks, (sizes, sizes), name, named=True)


#: bytes of numpy blocks the client copies and sends in one scatter (its memory beyond the array's own)
SCATTER_BYTES = 1 << 30


def scatter_blocks(client, blocks: dict, where: dict | None = None) -> dict:
    """{key: future} of numpy blocks ({key: an array or a view}, sent in that order) scattered
    to the workers -- to where[key] if given, else where Dask puts them -- at most SCATTER_BYTES
    a call.  As task arguments instead, every block went through the scheduler, and Dask warned
    of a large graph for every one past 10 MB."""
    futures, batch, size = {}, [], 0

    def send():
        for addr in dict.fromkeys(where[key] if where else None for key in batch):
            mine = [key for key in batch if (where[key] if where else None) == addr]
            parts = [np.ascontiguousarray(blocks[key]) for key in mine]
            futures.update(zip(mine, client.scatter(parts, workers=None if addr is None else [addr], hash=False)))
        batch.clear()
    for key, block in blocks.items():
        batch.append(key)
        size += block.nbytes
        if size >= SCATTER_BYTES:
            send()
            size = 0
    send()
    return futures


def made_and_read(client, g, own, prefix: str, make, poll: float) -> dict:
    """{(I, J): a future of lower tile (I, J) as numpy on its owner}: each made on its owner's
    GPU by make(submit, I, J), read back there (a diagonal tile's upper part zero), and the
    job's GPU tiles given back; WorkerLostError where an owner leaves."""
    job = f"{prefix}-{uuid.uuid4().hex}"
    live = []
    submit = submitter(client, own, job, live)
    try:
        made = {(I, J): make(submit, I, J) for I, J in g.lower()}
        read = {(I, J): submit(w.fetch, (I, J), I, J, g.t, g.size(I), g.size(J), made[I, J]) for I, J in g.lower()}
        _wait(client, live, poll)
    finally:
        release(client, own, job)
    return read


def _factor(client, A, g, own, job, method, variant, live, poll, lazy=False):
    t = g.t
    share, local = shared_memory(client, own, g)
    if lazy:
        made = _blocks(client, A, g)
        if share:
            made = handed(client, made, own, job, g)
    elif local:                # each tile written into a shared-memory file, handed over on threads
        handing = shared.Handing(job, ((key, A[g.span(key[0]), g.span(key[1])]) for key in first_touched(g.count)),
                                 t)
        made = dict(handing.futures)
    else:               # a numpy A's tiles column by column (the factor's order), straight to their owners
        order = [(I, J) for J in range(g.count) for I in range(J, g.count)]
        made = scatter_blocks(client, {(I, J): A[g.span(I), g.span(J)] for I, J in order}, own)  # views of A

    def make(submit, I, J):
        # popped: once its put has run, Dask frees a tile no future holds (A streams onto the GPUs);
        # a file is unlinked by its put
        block = made.pop((I, J))
        if isinstance(block, HandOver):
            block = block.result()                     # a hand of the client's: its file
        return submit(w.put, (I, J), I, J, block, t, method, variant)
    last, sent = {}, {}
    into = local and not lazy      # numpy L here: every tile shared right behind the task finishing it
    copies = None
    try:
        L = np.zeros((g.m, g.m), np.float32) if into else None
        copies = TileCopies(L, g) if into else None
        pivots = factor_tiles(client, g, own, job, method, variant, live, make, last, sent, share,
                              every=into, sent_hook=copies.add if into else None)
        if into:
            checked_pivots(client, live, poll, pivots, g.m)
            copies.finish(sent)
            return L
    finally:
        if copies is not None:
            copies.close()
        if into:
            handing.stop()                 # before the release: no file made after it
    submit = submitter(client, own, job, live)
    # the result's reads queued behind the factor (one wait for both); a tile below the diagonal
    # already read for another worker is that read, not a second one of the same bytes
    parts = {}
    name = f"cholesky-L-{uuid.uuid4().hex}"              # a dask L's name: its tiles' tasks are its keys
    for I, J in g.lower():
        sent_whole = (I, J) in sent and I != J
        key = (name, I, J) if lazy else None
        if sent_whole and share:
            parts[I, J] = submit(w.shared_array, (I, J), I, J, g.size(I), g.size(J), sent[I, J], key=key)
        elif sent_whole and g.size(I) == g.size(J) == t:
            parts[I, J] = sent[I, J]
        else:
            parts[I, J] = submit(w.fetch, (I, J), I, J, t, g.size(I), g.size(J), last[I, J], key=key)
    checked_pivots(client, live, poll, pivots, g.m)
    if lazy:                                          # the result as it came: a dask.array, on the workers
        return _as_dask(parts, g, name)
    L = np.zeros((g.m, g.m), np.float32)
    for (I, J), fut in parts.items():
        L[g.span(I), g.span(J)] = fut.result()
    return L


class TileCopies:
    """L's tiles copied here from their shared-memory files as each share finishes -- on threads,
    while the factor runs (after it, one at a time, the copies of 7 GB took the client 5.5 s at
    60,000): a numpy L on the workers' machine."""

    THREADS = 8

    def __init__(self, L, g):
        self.L, self.g = L, g
        self._pool = ThreadPoolExecutor(self.THREADS, thread_name_prefix="glgpgpu-copy")
        self._lock = threading.Lock()
        self._copies = {}
        self._stop = threading.Event()

    def add(self, tile, fut) -> None:
        """Copy tile (I, K) once its share `fut` is done (a Dask callback: on the client's thread)."""
        fut.add_done_callback(lambda f: self._start(tile, f))

    def _start(self, tile, fut):
        with self._lock:
            if tile not in self._copies and self._pool is not None:
                self._copies[tile] = self._pool.submit(self._copy, tile, fut)
            return self._copies.get(tile)

    def _copy(self, tile, fut) -> None:
        I, J = tile
        g = self.g
        while True:        # a share done can go back to pending when its worker is lost: never wait long
            if self._stop.is_set():
                return
            try:
                handle = w.handle(fut.result(timeout=0.25))
                break
            except TimeoutError:
                continue
        src = shared.read(handle)[:g.size(I), :g.size(J)]
        dst = self.L[g.span(I), g.span(J)]
        if I == J:                     # the diagonal tile whole: its upper part is not L's
            np.copyto(dst, np.tril(src))
        else:
            dst[...] = src

    def finish(self, sent: dict) -> None:
        """Every tile of L copied (their shares all done: the factor's tasks were waited for)."""
        for tile in self.g.lower():
            self._start(tile, sent[tile]).result()

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        self._stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


#: every task's key a serial number of its own: a key the scheduler still holds is answered
#: with that task's old result, not run again (keys counted by len(live) came round again once
#: a solve pruned `live`, and a later solve got an earlier one's substitutions under CPU load)
_SERIAL = itertools.count()


#: the step chain's links that would each wait a round trip through Dask's scheduler done in one
#: task (14 ms a link waited on 4 H100s, the worker's thread taking other tiles' work meanwhile):
#: a tile shared through shared memory by the task that finishes it (potrf_share, trsm_share), and
#: a diagonal tile's last update and its POTRF (update_potrf); False: each a task of its own
FUSE = True

#: each tile's put submitted at the tile's first use by the steps (a numpy A's hands overlap the
#: factor's first steps: at 60,000 in tiles of 8,192 on 4 H100s the first POTRF started 1.7 s into the
#: call, after every hand), else all puts first (round 38 and before; their task streams replay so)
PUTS_AT_FIRST_USE = True

#: the order a worker runs its ready tasks in: "column" (a task on tile (I, J) before those of
#: later block columns -- the next panel's column before the rest of a step's trailing update -- and
#: within a block column by tile row: the step chain's TRSM of L_K+1,K, and the update of (K+1, K+1),
#: first), "row" (by tile row first, then column: a tile row's work is due by its POTRF, so the step
#: chain outranks a far row's TRSMs, shares and updates, which fill the time the chain leaves), or
#: "tied" (by block column only, round 37's: Dask runs equal priorities in the order they reach the
#: worker, and on 4 H100s the chain's TRSM waited up to 230 ms behind its column's other TRSMs)
PRIORITY = "column"


def priority(tile: tuple, count: int) -> int:
    """Dask priority of a task on `tile` = (I, J) of a count x count grid (higher runs first);
    no two tiles tie but with "tied"."""
    I, J = tile
    if PRIORITY == "row":
        return (count - I) * (count + 1) + (count - J)
    if PRIORITY == "tied":
        return count - J
    return (count - J) * (count + 1) + (count - I)


def submitter(client, own, job, live, count: int = 0):
    """submit(fn, tile, *args): fn(job, *args) on the tile's owner only, recorded in `live`,
    under a key no other task of this process has had.  count > 0: a task on tile (I, J)
    gets Dask priority priority(tile, count) -- by default by block column J, then row I, so a
    worker runs the work on the next panel's column before the rest of the trailing update (lookahead):
    tasks submitted in the right-looking order would otherwise run in that order, and the
    next POTRF wait for a whole step."""
    def submit(fn, tile, *args, key=None):
        fut = client.submit(fn, job, *args, workers=[own[tile]], allow_other_workers=False, pure=False,
                            key=key or f"{fn.__name__}-{job}-{next(_SERIAL)}",
                            priority=priority(tile, count) if count else 0)
        live.append((fut, own[tile], tile))
        return fut
    return submit


def factor_tiles(client, g, own, job, method, variant, live, make, last=None, sent=None, share=False,
                 every=False, sent_hook=None) -> list:
    """The tiled Cholesky's tasks on tiles that `make(submit, I, J)` puts on their owners,
    submitted, not waited for; the futures of each diagonal tile's pivots, in order
    (checked_pivots waits and checks them).  last: filled with each tile's latest task;
    sent: with what each finished tile another worker reads is sent as -- the whole t x t
    tile read back (fetch), or with share (every worker on one machine: shared_memory()) its
    shared-memory file (by the task that finishes it: worker.potrf_share, trsm_share).  every: every
    tile shared (a numpy L read by the client on the workers' machine), each future handed to
    sent_hook(tile, future) as it is submitted."""
    t = g.t
    submit = submitter(client, own, job, live, count=g.count)
    made = {} if last is None else last           # (I, J) -> the latest task on that tile

    class Latest(dict):
        """The latest task on each tile, its put submitted at the tile's first use: a put that
        waits for its block (a numpy A's hand into a file) holds back only the tasks after it,
        not the first steps' (the hands go in first_touched order)."""

        def __missing__(self, tile):
            self[tile] = make(submit, *tile)
            return self[tile]
    last = Latest(made)
    if not PUTS_AT_FIRST_USE:                     # every put first, in g.lower() order
        last.update((tile, make(submit, *tile)) for tile in g.lower())
    pivots = {}
    sent = {} if sent is None else sent           # (I, K) -> the fetch or share readers upload from

    def read_elsewhere(I, K) -> bool:
        """Whether finished tile (I, K) is read by another worker (or by the client: every)."""
        return every or bool(readers(own, g.count, I, K) - {own[I, K]})

    def sent_by(I, K, fused: bool) -> None:
        """Tile (I, K), read elsewhere, sent: with shared memory by the task that finished it (fused:
        no round trip through Dask's scheduler between them, in which its worker's thread took other
        tiles' work -- 14 ms a link on 4 H100s) or a share queued right behind it, else a fetch."""
        sent[I, K] = (last[I, K] if fused else
                      submit(w.share, (I, K), I, K, t, last[I, K]) if share or every else
                      submit(w.fetch, (I, K), I, K, t, 0, 0, last[I, K]))
        if sent_hook is not None:
            sent_hook((I, K), sent[I, K])

    def data(I, K, reader):
        """What `reader` needs of finished tile (I, K): None on its owner, else what sent_by() recorded."""
        return None if own[I, K] == reader else sent[I, K]

    fuse = (share or every) and FUSE
    for op, I, J, K in cholesky_steps(g.count):
        mK = g.size(K)
        finished = None                               # the tile this op finishes, if any
        if op == "potrf" and K in pivots:             # done by its last update (update_potrf)
            continue
        if op == "potrf":
            finished, wanted = (K, K), read_elsewhere(K, K)
            pivots[K] = last[K, K] = (submit(w.potrf_share, (K, K), K, mK, t, last[K, K]) if fuse and wanted else
                                      submit(w.potrf, (K, K), K, mK, last[K, K]))
        elif op == "update" and I == J == K + 1 and FUSE:
            finished, wanted = (I, I), read_elsewhere(I, I)
            pivots[I] = last[I, I] = submit(w.update_potrf_share if fuse and wanted else w.update_potrf, (I, I),
                                            I, K, t, g.size(I), mK, data(I, K, own[I, I]), last[I, I], last[I, K])
        elif op == "trsm":
            finished, wanted = (I, K), read_elsewhere(I, K)
            last[I, K] = submit(w.trsm_share if fuse and wanted else w.trsm, (I, K), I, K, mK, g.size(I), t,
                                data(K, K, own[I, K]), last[I, K], last[K, K])
        else:
            last[I, J] = submit(w.update, (I, J), I, J, K, t, g.size(I), g.size(J), mK,
                                data(I, K, own[I, J]), data(J, K, own[I, J]), last[I, J], last[I, K], last[J, K])
        if finished is not None and wanted:
            sent_by(*finished, fused=fuse)
    made.update(last)                             # the caller's dict: every tile's latest task
    return [pivots[K] for K in range(g.count)]


def first_touched(count: int) -> list:
    """The lower tiles of a count x count grid in the order the right-looking steps first touch
    them (cholesky_steps): column 0, then the rest row by row (step 0's updates)."""
    seen = {}
    for op, I, J, K in cholesky_steps(count):
        seen.setdefault((I, K) if op == "trsm" else (I, J), None)
    return list(seen)


def readers(own: dict, count: int, I: int, K: int) -> set:
    """The workers whose tasks read finished tile (I, K) of L: for the diagonal (K, K) the
    owners of its column's TRSMs; below it the owners of the step-K updates of tile row I
    (L_IK as the left factor) and of tile column I (as the right one)."""
    if I == K:
        return {own[R, K] for R in range(K + 1, count)}
    return {own[I, J] for J in range(K + 1, I + 1)} | {own[R, I] for R in range(I, count)}


def checked_pivots(client, live, poll, pivots: list, m: int) -> np.ndarray:
    """Every task in `live` done (_wait), then L's diagonal from the pivot futures;
    NotPositiveDefiniteError naming the first global pivot that is not positive."""
    _wait(client, live, poll)
    d = np.concatenate([getattr(r, "pivots", r) for r in (p.result() for p in pivots)])   # potrf or potrf_share
    if not np.isfinite(d).all() or (d <= 0).any():
        NotPositiveDefiniteError.check(d, m)
    return d


def _wait(client, live, poll) -> None:
    """Until every task is done; WorkerLostError as soon as an owner is gone (a task pinned
    to a lost worker would otherwise wait forever); a task's own error is raised as it is."""
    futures = [f for f, _, _ in live]
    while True:
        try:
            wait(futures, timeout=poll)
        except TimeoutError:
            pass
        done = [f for f in futures if f.done()]
        not_done = {f for f in futures if not f.done()}
        for f in done:
            if f.status == "error":
                f.result()                          # raises the task's exception
        if not not_done:
            return
        present = set(client.scheduler_info()["workers"])
        for f, addr, tile in live:
            if f in not_done and addr not in present:
                raise WorkerLostError(f"worker {addr} left the cluster with tile {tile} of the factorization "
                                      f"unfinished; its tiles lived in that worker's GPU memory -- run the call "
                                      f"again on the workers left")
