"""What runs inside a Dask worker: its GPU's tiles, kept between tasks.

A worker process has one thread (LocalGLCluster, or `dask worker --nthreads 1`), so
its tasks run one at a time on that thread's GL context -- the GPU the worker's
GLDevicePlugin chose.  A factorization's tiles live in `_TILES` under the job's key
until `release(job)`; a tile another worker owns arrives as the shared-memory file its
owner's `share` wrote (a worker of the same machine maps it), or as the numpy array its
owner's `fetch` returned (Dask moves it over TCP), and is uploaded once per job.
Every tile operation is the method's TileKernels -- the one-process tile algorithms'
own -- so a distributed factor has the same bits as glgpgpu.tiled's."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..dispatch import choose, implementation
from ..gl import get_context, rawgl, staging
from ..layouts.tiles import tile_order
from ..parallel import Prefaulted
from . import shared

_TILES: dict = {}       # (job, I, J) -> this worker's tile (a texture or buffer of its context)
_COPIES: dict = {}      # (job, I, J) -> an uploaded copy of a tile another worker owns
_OPS: dict = {}         # (job) -> the TileKernels the job runs with, and its -1 row
_SHARED: dict = {}      # (job, I, J) -> a finished tile read into shared memory (share)

#: updates a worker lets queue on its GPU behind its task thread (0: no limit): a readback on
#: the critical path (a share, a POTRF's pivots) waits for everything queued before it, and a
#: thread that has queued a step's worth of trailing updates makes the next panel wait for them
#: (3, in tiles of 4,096 on 4 H100s: 14% quicker on 1 GPU, -9% to +3% on 2 and 4 GPUs; untimed
#: beside no limit in the default tiles of 8,192, so not the default: benchmarks/RESULTS.md, round 38)
QUEUE_DEPTH = 0
_QUEUED: list = []      # fences behind the latest updates, oldest first


def _kernels(job, method, variant):
    if job not in _OPS:
        ctx = get_context()
        ops = implementation(choose(method, ctx)).tile_kernels(ctx, variant=variant)
        _OPS[job] = (ops, None)
    return _OPS[job][0]


def plan(m: int, tile: int | None, method: str, variant: str) -> tuple:
    """(method's name, tile order) for an m x m matrix on this worker's GPU: the order the
    one-process code picks under the same texture limit (tile, or the driver's)."""
    ctx = get_context()
    impl = implementation(choose(method, ctx))
    ops = impl.tile_kernels(ctx, variant=variant)
    limit = min(ctx.max_texture_size, ops.max_order(ctx), tile or ctx.max_texture_size)
    return impl.name, tile_order(m, limit, multiple=ops.multiple)


def put(job, I: int, J: int, block, t: int, method: str, variant: str) -> tuple:
    """Tile (I, J) of the job uploaded from `block` (float32, at most t x t), or from the
    shared-memory file another process of this machine handed it in (shared.hand: a worker
    holding a dask.array's block, or the client for a numpy A), then unlinked."""
    ops = _kernels(job, method, variant)
    if isinstance(block, shared.SharedTile):
        mapped = shared.read(block)
        _TILES[job, I, J] = ops.upload(mapped, t, diagonal=I == J)
        shared.retire(block.path, mapped)              # unmapped and unlinked off this thread
        del mapped
    else:
        _TILES[job, I, J] = ops.upload(np.asarray(block, np.float32), t, diagonal=I == J)
    return ("tile", I, J, -1)


def _tile(job, I, J, data, t):
    """Tile (I, J): this worker's own, or its copy uploaded from `data` (the owner's fetch,
    or the shared-memory file of its share)."""
    if (job, I, J) in _TILES:
        return _TILES[job, I, J]
    if (job, I, J) not in _COPIES:
        data = handle(data)
        block = shared.read(data) if isinstance(data, shared.SharedTile) else data
        _COPIES[job, I, J] = _OPS[job][0].upload(block, t, diagonal=I == J)
        if isinstance(data, shared.SharedTile):
            shared.retire(None, block)                 # unmapped off this thread (the owner unlinks)
        del block
    return _COPIES[job, I, J]


class Pivoted(NamedTuple):
    """What potrf_share returns: the pivots, and the factored tile's shared-memory file."""
    pivots: np.ndarray
    tile: shared.SharedTile


def handle(value):
    """The shared tile (or array) a finished tile was sent as: potrf_share's comes with pivots."""
    return value.tile if isinstance(value, Pivoted) else value


def potrf_share(job, K: int, size: int, t: int, *after) -> Pivoted:
    """potrf, then share: tile (K, K) factored and read into a shared-memory file for the workers
    that read it, in one task."""
    return Pivoted(potrf(job, K, size), share(job, K, K, t))


def trsm_share(job, I: int, K: int, size: int, rows: int, t: int, l_kk, *after) -> shared.SharedTile:
    """trsm, then share, in one task."""
    trsm(job, I, K, size, rows, t, l_kk)
    return share(job, I, K, t)


def update_potrf(job, I: int, K: int, t: int, size: int, k_end: int, l_ik, *after) -> np.ndarray:
    """Diagonal tile (I, I)'s last update (step K = I - 1), then its POTRF, in one task; the pivots."""
    update(job, I, I, K, t, size, size, k_end, l_ik, l_ik)
    return potrf(job, I, size)


def update_potrf_share(job, I: int, K: int, t: int, size: int, k_end: int, l_ik, *after) -> Pivoted:
    """update_potrf, then share."""
    return Pivoted(update_potrf(job, I, K, t, size, k_end, l_ik), share(job, I, I, t))


def potrf(job, K: int, size: int, *after) -> np.ndarray:
    """Tile (K, K) factored in place; its pivots (L's diagonal there)."""
    ops = _OPS[job][0]
    _TILES[job, K, K], d = ops.potrf(_TILES[job, K, K], size)
    return np.asarray(d, np.float32)


def trsm(job, I: int, K: int, size: int, rows: int, t: int, l_kk, *after) -> tuple:
    """Tile (I, K) := tile (I, K) L_KK^-T."""
    ops = _OPS[job][0]
    _TILES[job, I, K] = ops.trsm(_tile(job, K, K, l_kk, t), size, _TILES[job, I, K], t, rows=rows)
    return ("tile", I, K, K)


def update(job, I: int, J: int, K: int, t: int, rows: int, cols: int, k_end: int, l_ik, l_jk, *after) -> tuple:
    """Tile (I, J) -= L_IK L_JK^T (a SYRK when I == J)."""
    ops, neg = _OPS[job]
    if neg is None:
        neg = ops.d_row(np.full(t, -1.0, np.float32))
        _OPS[job] = (ops, neg)
    _TILES[job, I, J] = ops.downdate(_TILES[job, I, J], _tile(job, I, K, l_ik, t), _tile(job, J, K, l_jk, t), neg,
                                     t=t, diagonal=I == J, rows=rows, cols=cols, k_end=k_end)
    _bound_queue()
    return ("tile", I, J, K)


def _bound_queue() -> None:
    """A fence behind the update just queued; with QUEUE_DEPTH, wait until no more than that
    many updates are queued (the fences come from the GL the transfers use)."""
    if not QUEUE_DEPTH or not rawgl.has("glFenceSync", "glClientWaitSync", "glDeleteSync"):
        return
    _QUEUED.append(rawgl.function("glFenceSync")(staging.SYNC_GPU_COMMANDS_COMPLETE, 0))
    while len(_QUEUED) > QUEUE_DEPTH:
        staging._wait(_QUEUED.pop(0))


def fetch(job, I: int, J: int, t: int, size_i: int, size_j: int, *after) -> np.ndarray:
    """Tile (I, J) as numpy: the whole t x t tile (what another worker uploads), or with
    size_i, size_j > 0 the matrix's part of it, a diagonal tile's upper part zero (the result).
    Read straight into a new array whose pages the host's threads fault in first (a fresh
    64 MB array faulted one page at a time by the copy, then copied again, took most of a
    fetch's time)."""
    ops = _OPS[job][0]
    if size_i > 0 and I == J:
        return ops.read_lower(_TILES[job, I, I], size_i, upper_zero=False)
    rows, cols = (t, t) if size_i <= 0 else (size_i, size_j)
    out = Prefaulted((rows, cols)).array
    if (rows, cols) == (t, t):
        return ops.read(_TILES[job, I, J], t, out)
    ops.read_into(_TILES[job, I, J], t, out)
    return out


def share(job, I: int, J: int, t: int, *after) -> shared.SharedTile:
    """Tile (I, J), finished, read whole into a shared-memory file for the processes of this
    machine that read it -- other workers, or the client for a numpy L (they map the file: Dask
    moves its name, not 64 MB); the file's name."""
    handle, out = shared.shelf().take(job, (t, t))
    got = _OPS[job][0].read(_TILES[job, I, J], t, out)
    if got is not out:
        out[...] = got
    _SHARED[job, I, J] = out
    return handle


def shared_array(job, I: int, J: int, rows: int, cols: int, *after) -> np.ndarray:
    """The matrix's part (rows x cols) of tile (I, J) as share() read it: a result's tile,
    a view of the file's mapping (a copy of a partial tile faulted its pages in one at a time:
    16 ms for one of the last row's, on the critical path's end)."""
    return _SHARED[job, I, J][:rows, :cols]


def release(job) -> int:
    """Give back every tile and copy of the job (safe to call twice), unlink its shared-memory
    files (the arrays mapped from them stay valid); how many tiles and copies there were."""
    while _QUEUED:                            # the fences of the job's last updates
        staging._wait(_QUEUED.pop(0))
    tiles = [store.pop(k) for store in (_TILES, _COPIES) for k in [k for k in store if k[0] == job]]
    for k in [k for k in _SHARED if k[0] == job]:
        del _SHARED[k]
    if shared.made_shelf() is not None:
        shared.made_shelf().release(job)
    shared.remove_stale()                     # a lost worker's files, where the call ended for it
    ops, neg = _OPS.pop(job, (None, None))
    if ops is not None:                       # every tile of a job was made by its ops
        ops.give(*tiles, neg)
    return len(tiles)


def held() -> int:
    """Tiles, copies and shared-memory files this worker holds (a leak if it stays above zero
    after a call)."""
    files = shared.made_shelf().files() if shared.made_shelf() is not None else 0
    return len(_TILES) + len(_COPIES) + len(_SHARED) + files



def kernel_tile(job, I: int, J: int, XI: np.ndarray, XJ: np.ndarray, t: int, method: str, kernel: str,
                gamma: float, degree: int, coef0: float, diag: float) -> tuple:
    """Tile (I, J) of H = K + diag I made here from the points of its rows and columns: X
    travels, not H.  On this worker's GPU where the method's tile kernels form kernel tiles
    (the compute method: as its one-process kernel_tiles, the same bits); else in float64
    on this worker's host, then float32 into its GPU."""
    tile = _kernels(job, method, "outer").kernel_tile(
        np.ascontiguousarray(XI, np.float32), np.ascontiguousarray(XJ, np.float32), t, I == J, kernel=kernel,
        gamma=gamma, degree=degree, coef0=coef0, diag=diag)
    if tile is not None:
        _TILES[job, I, J] = tile
        return ("tile", I, J, -1)
    from ..kernel_functions import kernel64
    block = kernel64(XI, XJ, kernel, gamma, degree, coef0)
    if I == J:
        block[np.diag_indices_from(block)] += diag
    return put(job, I, J, block.astype(np.float32), t, method, "outer")


def row_products(job, K: int, Js: list, t: int, rows: int, backward: bool, *ys) -> np.ndarray:
    """sum over this worker's tiles of tile row K (L_KJ y_J, J < K) -- or, backward, of tile
    column K below the diagonal transposed (L_JK^T y_J, J > K): rows x nrhs float32."""
    ops = _OPS[job][0]
    if backward:
        tiles = [ops.transpose(_TILES[job, J, K], t) for J in Js]
    else:
        tiles = [_TILES[job, K, J] for J in Js]
    try:
        ys = [np.asarray(solution(y), np.float32) for y in ys]
        return ops.products(tiles, ys, t, rows, ys[0].shape[1])
    finally:
        if backward:
            ops.give(*tiles)


def solution(value) -> np.ndarray:
    """A step's solution block: solve_step returns it alone, or with the next row's partial."""
    return value[0] if isinstance(value, tuple) else value


def solve_step(job, K: int, size: int, t: int, rhs: np.ndarray, backward: bool, mine: list, ahead: list,
               next_rows: int, carried: bool, *values):
    """One tile row of a substitution on the owner of L_KK: y_K = L_KK^-1 (rhs - the partial
    products), or with L_KK^T backward (size x nrhs float32).  The partials are this worker's own
    tiles of the row (`mine`: their products made here, with no task between), the one the step
    before made for this row (carried: the second part of the first value), and other workers'.
    ahead: the Js (K among them) of row K + 1 this worker owns, whose partial it makes here once y_K
    is known -- returned beside y_K, so the next step waits one hop for it, not two.
    values: the ys of `mine`, then those of `ahead` but K, then the carried step, then the partials."""
    ops = _OPS[job][0]
    values = list(values)
    ys_mine = [solution(v) for v in values[:len(mine)]]
    del values[:len(mine)]
    others = [J for J in ahead if J != K]
    ys_ahead = dict(zip(others, (solution(v) for v in values[:len(others)])))
    del values[:len(others)]
    partials = [values.pop(0)[1]] if carried else []
    partials += values
    b = np.array(solution(rhs), np.float32, copy=True)       # backward: the forward step's result
    if mine:
        b -= row_products(job, K, mine, t, size, backward, *ys_mine)
    for p in partials:
        b -= p
    y = ops.substitute(_TILES[job, K, K], size, t, b, (backward,))
    if not ahead:
        return y
    ys_ahead[K] = y
    return y, row_products(job, K + 1, ahead, t, next_rows, False, *[ys_ahead[J] for J in ahead])


def adat_tile(job, I: int, J: int, AI: np.ndarray, AJ: np.ndarray, d2: np.ndarray, t: int, method: str) -> tuple:
    """Tile (I, J) of A diag(d2) A^T made here from A's row bands I and J, as the one-process
    tiled.adat_tiled makes each tile: from zero, one `update` a column chunk of the band's width,
    a band's zero trailing columns skipped -- so the same bits."""
    ops = _kernels(job, method, "outer")
    width = ops.band_columns(t)
    tile = ops.zeros(t)
    _TILES[job, I, J] = tile                       # released with the job, even if a chunk fails
    for c0 in range(0, AI.shape[1], width):
        c1 = min(AI.shape[1], c0 + width)
        parts = [AI[:, c0:c1]] if I == J else [AI[:, c0:c1], AJ[:, c0:c1]]
        ends = []
        for band in parts:
            nz = np.flatnonzero(band.any(axis=0))
            ends.append(int(nz[-1]) + 1 if nz.size else 0)
        k1 = min(ends)
        if not k1:
            continue
        d_tex = ops.d_row(np.asarray(d2[c0:c1], np.float32))
        bands = [ops.upload_band(np.ascontiguousarray(band, np.float32), t) for band in parts]
        try:
            tile = ops.update(tile, bands[0], bands[-1], d_tex, t=t, diagonal=I == J, rows=AI.shape[0],
                              cols=AJ.shape[0], k_end=k1)
            _TILES[job, I, J] = tile
        finally:
            ops.give(d_tex, *bands)
    return ("tile", I, J, -1)
