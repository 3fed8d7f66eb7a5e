"""glgpgpu.distributed.cholesky on 1, 2, ... GPUs of this machine (a LocalGLCluster per
count), beside the one-process tiled factor (`glgpgpu.cholesky`, same tile order), one
run; every row with its answer's error (max |L L^T - A| / max |A|, float64 products on
the host) and whether it equals the one-process factor bit for bit.
Writes distributed-cholesky-<device>-<date>.csv.

    python benchmarks/distributed_cholesky.py [--sizes 16384,32768] [--tile 8192] [--gpus 1,2]
"""
import argparse
import csv
import datetime
import os
import time

import numpy as np


def spd(m, rng):
    """A well-conditioned SPD matrix made cheaply at large m: B B^T / m + I, B of rank 64."""
    B = rng.standard_normal((m, 64)).astype(np.float32)
    A = (B @ B.T) / 64
    A[np.diag_indices(m)] += 1.0
    return A


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="16384,32768")
    ap.add_argument("--tile", type=int, default=8192)
    ap.add_argument("--gpus", default="1,2")
    ap.add_argument("--method", default="compute")
    ap.add_argument("--dask", action="store_true",
                    help="A made on the workers as a dask.array (B B^T / 64 + I) and L left there: no client traffic")
    ap.add_argument("--out", default=os.environ.get("OUT", "benchmarks/results"))
    args = ap.parse_args()
    import glgpgpu
    from glgpgpu.bench import device_slug
    from glgpgpu.distributed import LocalGLCluster, cholesky
    rows = []
    ctx = glgpgpu.Context(max_texture_size=args.tile)
    for m in (int(v) for v in args.sizes.split(",")):
        A = spd(m, np.random.default_rng(m))
        t = time.perf_counter()
        ref = glgpgpu.cholesky(A, method=args.method, ctx=ctx)
        one = time.perf_counter() - t
        err = float(np.abs(ref.astype(np.float64) @ ref.T.astype(np.float64) - A).max() / np.abs(A).max()) \
            if m <= 16384 else float("nan")
        rows.append(dict(m=m, tile=args.tile, gpus="one process", seconds=round(one, 3), error=err, equal=True))
        print(rows[-1], flush=True)
        for g in (int(v) for v in args.gpus.split(",")):
            found = [d[0] for d in glgpgpu.gl.devices()]          # g workers over the devices there are
            with LocalGLCluster(devices=found[:g], n_workers=g) as cluster, cluster.get_client() as client:
                cholesky(A[:args.tile // 2, :args.tile // 2], client=client, tile=args.tile // 4,
                         method=args.method)                      # each worker's kernels compiled first
                if args.dask:                 # A built on the workers from the same numbers, L kept there
                    import dask.array as da
                    from distributed import wait
                    Ad = client.persist(da.from_array(A, chunks=(args.tile, args.tile)))
                    wait(Ad)                      # A on the workers before the clock starts
                    t = time.perf_counter()
                    Ld = client.persist(cholesky(Ad, client=client, tile=args.tile, method=args.method))
                    wait(Ld)
                    sec = time.perf_counter() - t
                    L = Ld.compute()
                else:
                    t = time.perf_counter()
                    L = cholesky(A, client=client, tile=args.tile, method=args.method)
                    sec = time.perf_counter() - t
            rows.append(dict(m=m, tile=args.tile, gpus=g, devices=len(found[:g]), dask=args.dask,
                             seconds=round(sec, 3),
                             speedup_vs_one_process=round(one / sec, 2),
                             error=err if np.array_equal(L, ref) else float(np.abs(
                                 L.astype(np.float64) @ L.T.astype(np.float64) - A).max() / np.abs(A).max()),
                             equal=bool(np.array_equal(L, ref))))
            print(rows[-1], flush=True)
            del L
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"distributed-cholesky-{device_slug(ctx)}-{datetime.date.today()}.csv")
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys + ["device"])
        w.writeheader()
        for r in rows:
            w.writerow(dict(r, device=ctx.caps.renderer))
    from glgpgpu.bench.common import write_provenance
    print("wrote", path, "and", write_provenance(path))


if __name__ == "__main__":
    main()
