"""How fast one tile gets from one Dask worker to another on the same machine: by Dask's own
transfer of a task's result (TCP between the worker processes: what glgpgpu.distributed's
finished tiles take today), and by a shared-memory hand-off (the owner writes the tile into a
named segment and returns its name; the reader maps it and copies it out -- where a GL upload
would read it straight), and by glgpgpu's shelf (files made ahead, pages made without the GIL:
glgpgpu/distributed/shared.py); then from this process (a numpy call's client) to a worker, by
Dask's scatter and by a file of this process's shelf.  Each time is a round of: the owner makes
the tile, the reader has it in its own memory; best of --repeat.  The task stream of the distributed factor on two
H100s showed 32-58 ms a 64 MB tile for the TCP leg (benchmarks/RESULTS.md, round 35).

    python experiments/dask_transfer.py [--mb 16,64,256] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np


def make(nbytes: int) -> np.ndarray:
    """The owner's tile: a fresh float32 array of nbytes."""
    return np.full(nbytes // 4, 1.5, np.float32)


def checksum(a: np.ndarray) -> float:
    """What the reader does with it: reads it all (one pass, as an upload would)."""
    return float(a[:: 1024].sum())


def make_shared(nbytes: int) -> str:
    """The owner's tile written into a shared-memory segment; its name."""
    from multiprocessing import resource_tracker, shared_memory
    shm = shared_memory.SharedMemory(create=True, size=nbytes)
    np.ndarray((nbytes // 4,), np.float32, buffer=shm.buf)[:] = 1.5
    resource_tracker.unregister(shm._name, "shared_memory")   # the reader unlinks it, not this process's exit
    name = shm.name
    shm.close()
    return name


def read_shared(name: str, nbytes: int) -> float:
    """The reader maps the segment, copies the tile out, unlinks the segment."""
    from multiprocessing import resource_tracker, shared_memory
    shm = shared_memory.SharedMemory(name=name)
    try:
        mine = np.array(np.ndarray((nbytes // 4,), np.float32, buffer=shm.buf))
    finally:
        shm.close()
        shm.unlink()                       # unlink unregisters it from this process's tracker too
    del resource_tracker
    return checksum(mine)


def make_shelved(nbytes: int, job: str) -> tuple:
    """The owner's tile copied into a file of glgpgpu's shelf (files made ahead, pages made
    without the GIL: glgpgpu/distributed/shared.py); the file's handle."""
    from glgpgpu.distributed import shared
    side = int(np.sqrt(nbytes // 4))
    return shared.hand(job, make(nbytes).reshape(side, side), side)     # a whole tile: files made ahead


def read_shelved(handle) -> float:
    """The reader maps the shelf's file, reads it all, unlinks it (as a put does after its upload)."""
    from glgpgpu.distributed import shared
    a = shared.read(handle)
    try:
        return checksum(a)                      # one read a page: each mapped page faulted in
    finally:
        shared.unlink(handle)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", default="16,64,256")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    from distributed import Client, LocalCluster

    from glgpgpu.distributed import shared
    free = os.statvfs("/dev/shm")
    print(f"/dev/shm free: {free.f_bavail * free.f_frsize / 2**30:.1f} GiB")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        owner, reader = sorted(client.scheduler_info()["workers"])
        for mb in (int(v) for v in a.mb.split(",")):
            nbytes = mb << 20
            best = {"dask": np.inf, "shared memory": np.inf, "glgpgpu shelf": np.inf, "client scatter": np.inf,
                    "client shelf": np.inf}
            for _ in range(a.repeat):
                t = time.perf_counter()
                tile = client.submit(make, nbytes, workers=[owner], pure=False)
                client.submit(checksum, tile, workers=[reader], pure=False).result()
                best["dask"] = min(best["dask"], time.perf_counter() - t)
                del tile
                t = time.perf_counter()
                name = client.submit(make_shared, nbytes, workers=[owner], pure=False)
                client.submit(read_shared, name, nbytes, workers=[reader], pure=False).result()
                best["shared memory"] = min(best["shared memory"], time.perf_counter() - t)
                t = time.perf_counter()
                handle = client.submit(make_shelved, nbytes, "transfer", workers=[owner], pure=False)
                client.submit(read_shelved, handle, workers=[reader], pure=False).result()
                best["glgpgpu shelf"] = min(best["glgpgpu shelf"], time.perf_counter() - t)
                # from this process (a numpy call's client): Dask's scatter, or a file of this process's shelf
                mine = make(nbytes)
                t = time.perf_counter()
                [fut] = client.scatter([mine], workers=[reader], hash=False)
                client.submit(checksum, fut, workers=[reader], pure=False).result()
                best["client scatter"] = min(best["client scatter"], time.perf_counter() - t)
                del fut
                t = time.perf_counter()
                side = int(np.sqrt(nbytes // 4))
                handle = shared.hand("transfer", mine.reshape(side, side), side)
                client.submit(read_shelved, handle, workers=[reader], pure=False).result()
                best["client shelf"] = min(best["client shelf"], time.perf_counter() - t)
            alone = np.inf                                       # making and reading it on one worker
            for _ in range(a.repeat):
                t = time.perf_counter()
                tile = client.submit(make, nbytes, workers=[owner], pure=False)
                client.submit(checksum, tile, workers=[owner], pure=False).result()
                alone = min(alone, time.perf_counter() - t)
                del tile
            print(f"{mb:5d} MB: on one worker {1e3 * alone:7.1f} ms; " + "; ".join(
                f"{k} {1e3 * v:7.1f} ms ({nbytes / max(v - alone, 1e-9) / 1e9:5.2f} GB/s beyond it)"
                for k, v in best.items()), flush=True)


if __name__ == "__main__":
    main()
