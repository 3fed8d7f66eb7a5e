"""glgpgpu.distributed.cholesky on 1, 2, ... GPUs of this machine (a LocalGLCluster per
count), beside the one-process tiled factor (`glgpgpu.cholesky`, same tile order), one
run; every row with its answer's error and whether it equals the one-process factor bit
for bit.  Writes distributed-cholesky-<device>-<date>[-<tag>].csv, and with --stream the
Dask task stream of every timed factor (one row per compute or transfer interval:
worker, task, start, stop) for `experiments/distributed_stream.py`.

A: B B^T / 64 + I, B (m x 64) of standard normals, made tile by tile (the same bits on the
client and on the workers).  Input forms:
  default     A as numpy on the client, L back as numpy (the user's numpy call);
  --dask      A as a dask.array on the workers (from the client's numpy, before the clock),
              L left there as a dask.array (persisted: the clock stops when its tiles exist);
  --generate  as --dask, but A's chunks are made on the workers from B (B B^T / 64 + I
              chunk by chunk): no m x m array on the client, so m = 120,000 fits;
  --placed    as --generate, each lower chunk made on the worker that owns its tile (as
              distributed.kernel_matrix and adat leave their tiles): no block moves.

Errors: `error` is max |tril(L L^T - A)| / max |A| (float64 products; the factor reads A's lower
triangle) where m <= --dense-most;
`probe` is |L (L^T x) - S x| / |S x| for 4 random x, S A's lower triangle made symmetric (float64
products from the lower tiles where they lie, O(m^2), every size).

    python benchmarks/distributed_cholesky.py [--sizes 16384,32768] [--tile 8192] [--gpus 1,2]
        [--dask | --generate] [--one-process-most M] [--stream] [--tag T]
"""
import argparse
import csv
import datetime
import os
import time

import numpy as np


def factor_B(m, seed):
    """B of A = B B^T / 64 + I: the same numbers for numpy and the workers."""
    return np.random.default_rng(seed).standard_normal((m, 64)).astype(np.float32)


def spd_block(BI, BJ, diagonal):
    """Block (I, J) of A = B B^T / 64 + I from B's rows of I and of J (B_J^T copied: numpy
    takes X @ X.T of one buffer to SYRK, whose bits differ from the GEMM a worker runs on
    its own two copies)."""
    block = (BI @ np.ascontiguousarray(BJ.T)) / np.float32(64)
    if diagonal:
        block[np.diag_indices_from(block)] += np.float32(1)
    return block


def spd(m, seed, t):
    """A, made block by block as the workers make it (--generate): the same bits, with BLAS
    on one thread as on a Dask worker (its nanny sets OPENBLAS_NUM_THREADS=1; the products'
    bits depend on the thread count)."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits
    B = factor_B(m, seed)
    A = np.empty((m, m), np.float32)

    def block(ij):
        i, j = ij
        A[i:i + t, j:j + t] = spd_block(B[i:i + t], B[j:j + t], i == j)
    with threadpool_limits(1), ThreadPoolExecutor(os.cpu_count()) as pool:
        list(pool.map(block, [(i, j) for i in range(0, m, t) for j in range(0, m, t)]))
    return A


def digest(block):
    """A tile's bytes as a short hash: L compared with the one-process factor tile by tile
    where it lies, not sent to the client."""
    import hashlib
    return hashlib.sha1(np.ascontiguousarray(block).tobytes()).hexdigest()


def equal_tiles(L, ref, client):
    """L (a dask.array on the workers) equals ref (numpy) bit for bit, compared by the digests
    of the lower tiles (the upper ones are made as zeros)."""
    import dask
    chunks = L.to_delayed()
    want = {}
    keys, jobs = [], []
    r0 = 0
    for I, rows in enumerate(L.chunks[0]):
        c0 = 0
        for J, cols in enumerate(L.chunks[1][:I + 1]):
            want[I, J] = digest(ref[r0:r0 + rows, c0:c0 + cols])
            keys.append((I, J))
            jobs.append(dask.delayed(digest)(chunks[I][J]))
            c0 += cols
        r0 += rows
    got = client.compute(jobs, sync=True)
    return all(want[k] == g for k, g in zip(keys, got))


def spd_on_workers(client, m, seed, t, placed=False):
    """A as a dask.array whose lower t x t chunks are made on the workers from B's row blocks --
    with placed, each on the worker that owns its tile in the factor (as distributed.kernel_matrix
    and adat leave theirs), else where Dask puts it; an upper chunk is its mirror's transpose,
    made where it is read (the factor reads none)."""
    from glgpgpu.distributed import owners
    from glgpgpu.distributed.schedule import array_of
    B = factor_B(m, seed)
    starts = list(range(0, m, t))
    parts = [client.scatter(B[i:i + t], broadcast=True) for i in starts]
    own = owners(len(starts), sorted(client.scheduler_info()["workers"]))
    lower = {(I, J): client.submit(spd_block, parts[I], parts[J], I == J, workers=[own[I, J]] if placed else None,
                                   pure=False)
             for I in range(len(starts)) for J in range(I + 1)}
    blocks = {(I, J): lower[I, J] if J <= I else (np.transpose, lower[J, I])
              for I in range(len(starts)) for J in range(len(starts))}
    sizes = tuple(len(B[i:i + t]) for i in starts)
    return array_of(blocks, (sizes, sizes), "A")


def probe_error(L, A, rng, tile):
    """|L (L^T x) - S x| / |S x| (2-norms, float64 products) for 4 random x, S the symmetric
    matrix of A's lower triangle (what the factor reads: A made tile by tile is not exactly
    symmetric in float32); L, A numpy or dask.arrays, read by tiles (`tile_probe`)."""
    import dask.array as da
    x = rng.standard_normal((L.shape[0], 4))
    if not hasattr(L, "compute"):
        L, A = da.from_array(L, chunks=tile), da.from_array(A, chunks=tile)
    r, Sx = tile_probe(L, A, x)
    return float(np.linalg.norm(r) / np.linalg.norm(Sx))


#: rows of a tile converted to float64 at a time: a band stays in cache (a whole 64 MB tile made
#: float64 went to memory and back; the probe took 35 s of a one-GPU run at 60,000)
PROBE_ROWS = 256


def _products(tile, right=None, left=None):
    """(T right, T^T left) of a float32 tile in float64, a band of rows converted at a time
    (either may be None: not computed)."""
    T = np.asarray(tile)
    out_r = None if right is None else np.empty((T.shape[0],) + right.shape[1:])
    out_l = None if left is None else np.zeros((T.shape[1],) + left.shape[1:])
    for r0 in range(0, T.shape[0], PROBE_ROWS):
        band = T[r0:r0 + PROBE_ROWS].astype(np.float64)
        if right is not None:
            out_r[r0:r0 + PROBE_ROWS] = band @ right
        if left is not None:
            out_l += band.T @ left[r0:r0 + PROBE_ROWS]
    return out_r, out_l


def _lower_products(tile, xs_col, xs_row, diagonal):
    """(T x_J, T^T x_I) of a lower tile in float64; a diagonal tile of A is taken as its lower
    triangle made symmetric, and gives only the first."""
    if diagonal:
        T = np.asarray(tile, np.float64)
        return (np.tril(T) + np.tril(T, -1).T) @ xs_col, None
    return _products(tile, xs_col, xs_row)


def tile_probe(L, A, x):
    """r = L (L^T x) - S x and S x (S: A's lower triangle made symmetric) from the lower tiles of
    L and A where they lie, each tile converted to float64 a band at a time (_products): dask's own
    L @ (L^T @ x) read L's zero upper tiles too and converted every tile per product (70-100 s at
    60,000 on 2 workers)."""
    import dask
    from dask import delayed
    cuts = np.cumsum((0,) + L.chunks[0])
    xs = [x[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    Lt, At = L.to_delayed(), A.to_delayed()
    n = len(xs)
    # pass 1: z_J = sum over I >= J of L_IJ^T x_I; A x's sums beside it
    first = {(I, J): delayed(_lower_products)(Lt[I][J], xs[J], xs[I], False)[1] for I in range(n) for J in range(I)}
    diag = {J: delayed(lambda T, v: _products(T, left=v)[1])(Lt[J][J], xs[J]) for J in range(n)}
    z = [delayed(sum)([diag[J]] + [first[I, J] for I in range(J + 1, n)]) for J in range(n)]
    ax = {(I, J): delayed(_lower_products)(At[I][J], xs[J], xs[I], I == J) for I in range(n) for J in range(I + 1)}
    Ax = [delayed(sum)([ax[I, J][0] for J in range(I + 1)] + [ax[J, I][1] for J in range(I + 1, n)])
          for I in range(n)]
    # pass 2: y_I = sum over J <= I of L_IJ z_J
    y = [delayed(sum)([delayed(lambda T, v: _products(T, right=v)[0])(Lt[I][J], z[J]) for J in range(I + 1)])
         for I in range(n)]
    y, Ax = dask.compute(y, Ax)
    Ax = np.concatenate(Ax)
    return np.concatenate(y) - Ax, Ax


def _queue_depth(n):
    from glgpgpu.distributed import worker
    worker.QUEUE_DEPTH = n


def stream_rows(records, m, gpus, t0):
    """The task stream's intervals as rows (seconds from the clock's start)."""
    from dask.utils import key_split
    out = []
    for r in records:
        for ss in r.get("startstops", ()):
            out.append(dict(m=m, gpus=gpus, worker=r.get("worker"), task=key_split(r["key"]), key=str(r["key"]),
                            action=ss["action"], source=ss.get("source", ""),
                            start=round(ss["start"] - t0, 6), stop=round(ss["stop"] - t0, 6)))
    return out


def save(args, ctx, rows, stream) -> str:
    """The rows so far (and the task stream): written after every row, so a run cut off by
    its time limit keeps what it measured."""
    from glgpgpu.bench import device_slug
    os.makedirs(args.out, exist_ok=True)
    tag = f"-{args.tag}" if args.tag else ""
    path = os.path.join(args.out, f"distributed-cholesky-{device_slug(ctx)}-{datetime.date.today()}{tag}.csv")
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys + ["device"])
        w.writeheader()
        for r in rows:
            w.writerow(dict(r, device=ctx.caps.renderer))
    if stream:
        with open(path.replace(".csv", "-stream.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(stream[0]))
            w.writeheader()
            w.writerows(stream)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="16384,32768")
    ap.add_argument("--tile", type=int, default=8192)
    ap.add_argument("--gpus", default="1,2")
    ap.add_argument("--method", default="compute")
    ap.add_argument("--dask", action="store_true", help="A a dask.array on the workers, L left there")
    ap.add_argument("--generate", action="store_true", help="as --dask, A's chunks made on the workers from B")
    ap.add_argument("--one-process-most", type=int, default=65536,
                    help="the one-process factor (and the bit-for-bit check) only up to this m")
    ap.add_argument("--dense-most", type=int, default=16384)
    ap.add_argument("--stream", action="store_true", help="write the Dask task stream of each timed factor")
    ap.add_argument("--placed", action="store_true",
                    help="as --generate, each lower chunk made on its tile's owner (no block moves)")
    ap.add_argument("--tcp", action="store_true",
                    help="finished tiles as task results over TCP, not through shared memory (SHARED_MEMORY False)")
    ap.add_argument("--grid-rows", type=int, default=0,
                    help="rows of the grid of workers that owns the tiles (schedule.GRID_ROWS; 0: the default)")
    ap.add_argument("--priority", default="column", choices=("column", "row", "tied"),
                    help="the order a worker runs its ready tasks in (schedule.PRIORITY)")
    ap.add_argument("--unfused", action="store_true",
                    help="a tile shared by a task of its own behind the one that finished it (FUSE False)")
    ap.add_argument("--queue-depth", type=int, default=None,
                    help="updates each worker lets queue on its GPU (worker.QUEUE_DEPTH; 0: no limit; "
                         "default: the library's)")
    ap.add_argument("--layout", default="block-cyclic", choices=("block-cyclic", "symmetric"),
                    help="how the tiles are dealt to the workers (schedule.LAYOUT; symmetric: 4 GPUs only)")
    ap.add_argument("--puts-first", action="store_true",
                    help="every tile's put submitted before the steps (PUTS_AT_FIRST_USE False: round 38's order)")
    ap.add_argument("--tag", default="")
    ap.add_argument("--out", default=os.environ.get("OUT", "benchmarks/results"))
    args = ap.parse_args()
    import glgpgpu
    from glgpgpu.distributed import LocalGLCluster, cholesky
    lazy = args.dask or args.generate or args.placed
    from glgpgpu.distributed import schedule
    if args.tcp:
        schedule.SHARED_MEMORY = False
    schedule.GRID_ROWS = args.grid_rows or None
    schedule.PRIORITY = args.priority
    schedule.FUSE = not args.unfused
    schedule.PUTS_AT_FIRST_USE = not args.puts_first
    schedule.LAYOUT = args.layout
    from glgpgpu.distributed import worker
    depth = worker.QUEUE_DEPTH if args.queue_depth is None else args.queue_depth
    rows, stream = [], []
    ctx = glgpgpu.Context(max_texture_size=args.tile)
    found = [d[0] for d in glgpgpu.gl.devices()]
    for m in (int(v) for v in args.sizes.split(",")):
        ref, A, one, ref_err, ref_probe = None, None, float("nan"), float("nan"), float("nan")
        if m <= args.one_process_most:
            t = time.perf_counter()
            A = spd(m, m, args.tile)
            print(f"A on the client in {time.perf_counter() - t:.1f} s", flush=True)
            t = time.perf_counter()
            ref = glgpgpu.cholesky(A, method=args.method, ctx=ctx)
            one = time.perf_counter() - t
            err = float(np.abs(np.tril(ref.astype(np.float64) @ ref.T.astype(np.float64) - A)).max() / np.abs(A).max()) \
                if m <= args.dense_most else float("nan")
            ref_err = err
            ref_probe = probe_error(ref, A, np.random.default_rng(0), args.tile)
            rows.append(dict(m=m, tile=args.tile, gpus="one process", seconds=round(one, 3), error=err,
                             probe=ref_probe, equal=True))
            print(rows[-1], flush=True)
            save(args, ctx, rows, stream)
        for g in (int(v) for v in args.gpus.split(",")):
            with LocalGLCluster(devices=found[:g], n_workers=g, memory_limit=0) as cluster, \
                    cluster.get_client() as client:
                from distributed import get_task_stream, wait
                # each worker's kernels compiled and its buffers made first, at the run's tile order
                # (4 x 4 tiles: every worker of a 2 x 2 grid runs every kind of task)
                if args.queue_depth is not None:
                    client.run(_queue_depth, args.queue_depth)
                cholesky(spd(3 * args.tile + args.tile // 2, 1, args.tile), client=client, tile=args.tile,
                         method=args.method)
                if lazy:
                    import dask.array as da
                    if args.generate or args.placed:
                        Ad = spd_on_workers(client, m, m, args.tile, placed=args.placed)
                    else:
                        Ad = da.from_array(A, chunks=(args.tile, args.tile))
                    t = time.perf_counter()
                    Ad = client.persist(Ad.astype(np.float32))
                    wait(Ad)                      # A on the workers before the clock starts
                    print(f"A on {g} workers in {time.perf_counter() - t:.1f} s", flush=True)
                with get_task_stream(client=client) as ts:
                    t = time.perf_counter()
                    t_wall = time.time()
                    if lazy:
                        L = client.persist(cholesky(Ad, client=client, tile=args.tile, method=args.method))
                        wait(L)
                    else:
                        L = cholesky(A, client=client, tile=args.tile, method=args.method)
                    sec = time.perf_counter() - t
                if args.stream:
                    stream += stream_rows(ts.data, m, g, t_wall)
                row = dict(m=m, tile=args.tile, gpus=g, devices=len(found[:g]),
                           input="placed" if args.placed else "generate" if args.generate else "dask" if args.dask
                           else "numpy",
                           tiles_sent="tcp" if args.tcp else "shared memory where one machine",
                           grid=("symmetric" if schedule.LAYOUT == "symmetric" and g == 4 else
                                 f"{schedule.GRID_ROWS} rows" if schedule.GRID_ROWS else "default"),
                           queue_depth=depth or "no limit", priority=args.priority,
                           shares="separate" if args.unfused else "by the finishing task",
                           puts="all first" if args.puts_first else "at first use",
                           seconds=round(sec, 3), speedup_vs_one_process=round(one / sec, 2),
                           error=float("nan"), probe=float("nan"), equal=None)
                rows.append(row)
                print(row, "(the checks follow)", flush=True)
                save(args, ctx, rows, stream)           # the time kept even if the checks run out of time
                t = time.perf_counter()
                if ref is not None:
                    row["equal"] = equal_tiles(L, ref, client) if lazy else bool(np.array_equal(L, ref))
                    row["error"] = ref_err if row["equal"] else float("nan")
                # the same bits as the one-process factor: its probe (a minute or two at 60,000)
                row["probe"] = ref_probe if row["equal"] else \
                    probe_error(L, Ad if lazy else A, np.random.default_rng(0), args.tile)
            print(row, f"(checks {time.perf_counter() - t:.1f} s)", flush=True)
            save(args, ctx, rows, stream)
            del L
    path = save(args, ctx, rows, stream)
    from glgpgpu.bench.common import write_provenance
    print("wrote", path, "and", write_provenance(path))


if __name__ == "__main__":
    main()
