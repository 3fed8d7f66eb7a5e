"""Tiles handed between the processes of one machine -- a cluster's workers, and a client
on their machine -- through shared memory.

A tile another worker reads goes from its owner's GPU into a file in /dev/shm (pages of
the host's memory, mapped by both processes), and Dask moves only the file's name: the
reader maps it and uploads from it.  So do a dask.array's blocks held by a worker other than
their owner, a numpy A's tiles written by the client, and L's tiles read back by it.  As
task results and scatters instead, every 64 MB tile crossed a TCP connection between two
processes (about 2 GB/s on the H100 hosts: benchmarks/RESULTS.md, round 36), which held every
step of a factor on two GPUs.

A new file's pages cost their first touch (the kernel allocates and zeroes each), so a
process makes the next few files ahead on threads of its own while its GPU works.  The
files are the job's (named by it) and unlinked at release(job) or once uploaded; the arrays
mapped from them (the result's tiles) keep their pages until they are dropped.  A process's
files that outlive it (a killed worker) are removed by the next process that makes any,
by the process number in their names, and by the release of a call that such a loss ended."""
from __future__ import annotations

import errno
import mmap
import os
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor, wait
from typing import NamedTuple

import numpy as np

from ..errors import HostMemoryError
from ..gl.staging import copy_rows

#: where the files go: a memory file system on Linux; elsewhere (or where it is too small)
#: the tiles go as task results instead
DIRECTORY = "/dev/shm"
PREFIX = "glgpgpu-tile-"
#: files made ahead of their use by each worker, per tile shape, on THREADS threads (a 64 MB
#: file's pages take the kernel tens of ms to make; a worker hands or shares tiles faster)
AHEAD = 6
THREADS = 4


class SharedTile(NamedTuple):
    """What Dask moves instead of a tile: its file and shape (float32, C order)."""
    path: str
    rows: int
    cols: int


def machine() -> tuple:
    """(this machine's identity, bytes free under DIRECTORY or 0): processes with one identity
    see the same files there.  The identity is the host's name, the kernel's boot id and the
    directory's device and inode (containers of one host mount their own /dev/shm)."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip()
    except OSError:
        boot = ""
    try:
        free = os.statvfs(DIRECTORY)
        room = free.f_bavail * free.f_frsize
        where = os.stat(DIRECTORY)
        mount = f"{where.st_dev}:{where.st_ino}"
    except OSError:
        room, mount = 0, ""
    return f"{os.uname().nodename}/{boot}/{mount}", int(room)


def _mapped(path: str, nbytes: int, create: bool) -> mmap.mmap:
    """The file mapped shared: made, its pages allocated and this mapping's pages touched if
    create (on a shelf thread ahead of use, or on the caller's where none is ready), else
    opened read-only.  Every
    step that takes long releases the GIL (posix_fallocate, numpy's fill): mmap's own
    MAP_POPULATE held it ~45 ms a 64 MB file and stalled the worker's task thread and event loop."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL if create else os.O_RDONLY
    fd = os.open(path, flags, 0o600)
    try:
        if create and nbytes:
            if hasattr(os, "posix_fallocate"):
                os.posix_fallocate(fd, 0, nbytes)
            else:
                os.ftruncate(fd, nbytes)
        prot = mmap.PROT_READ | mmap.PROT_WRITE if create else mmap.PROT_READ
        mm = mmap.mmap(fd, nbytes, flags=mmap.MAP_SHARED, prot=prot)
    finally:
        os.close(fd)
    if create and nbytes >= mmap.PAGESIZE:
        pages = np.ndarray((nbytes // mmap.PAGESIZE, mmap.PAGESIZE), np.uint8, buffer=mm)
        np.copyto(pages[:, 0], 0)                           # one write a page: its entry made now
        del pages
    return mm


class Shelf:
    """One process's files: new ones (made ahead) to read tiles into, by job."""

    def __init__(self):
        self._lock = threading.Lock()
        self._ahead: dict = {}          # (job, shape) -> futures of (path, mmap) made ahead
        self._files: dict = {}          # job -> [paths], unlinked at release
        self._pool = None
        self.made = 0                   # files made in all (what the tests count)
        remove_stale()

    def _make(self, job, shape) -> tuple:
        path = os.path.join(DIRECTORY, f"{PREFIX}{os.getpid()}-{job}-{uuid.uuid4().hex[:12]}")
        with self._lock:
            self._files.setdefault(job, []).append(path)
            self.made += 1
        nbytes = 4 * shape[0] * shape[1]
        try:
            return path, _mapped(path, nbytes, create=True)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.ENOMEM):
                raise
            raise HostMemoryError(
                f"{DIRECTORY} has no room for a tile of {nbytes} bytes handed between processes (something else "
                f"filled it during the call); free it, or send tiles over TCP: "
                f"glgpgpu.distributed.schedule.SHARED_MEMORY = False") from exc

    def take(self, job, shape, ahead: bool = True) -> tuple:
        """(a SharedTile, the float32 array of `shape` mapped from its file, to write into);
        ahead: make the next AHEAD files of this shape now, on the shelf's thread (for the
        shape that recurs: whole tiles)."""
        shape = (int(shape[0]), int(shape[1]))
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(THREADS, thread_name_prefix="glgpgpu-shelf")
            made = self._ahead.setdefault((job, shape), [])
            ready = made.pop(0) if made else None
            while ahead and len(made) < AHEAD:
                made.append(self._pool.submit(self._make, job, shape))
        path, mm = ready.result() if ready is not None else self._make(job, shape)
        return SharedTile(path, *shape), np.ndarray(shape, np.float32, buffer=mm)

    def release(self, job) -> int:
        """Unlink the job's files (their pages stay while arrays map them), on the shelf's
        threads; files made ahead and not started are not made; how many files there were."""
        with self._lock:
            ahead = [f for key, fs in self._ahead.items() if key[0] == job for f in fs]
            self._ahead = {key: fs for key, fs in self._ahead.items() if key[0] != job}
        wait([f for f in ahead if not f.cancel()])         # made or failed: its path is listed
        with self._lock:
            paths = self._files.pop(job, [])
        for path in paths:
            retire(path)
        return len(paths)

    def files(self) -> int:
        """Files this process made and has not unlinked (every retirement waited for first)."""
        settle()
        with self._lock:
            return sum(len(v) for v in self._files.values())


_PROCESS: list = []      # this process's Shelf, made at its first use


def shelf() -> Shelf:
    """This process's shelf (a worker's, or the client's for a numpy input), made at first use."""
    if not _PROCESS:
        _PROCESS.append(Shelf())
    return _PROCESS[0]


def made_shelf():
    """This process's shelf if it made one, else None."""
    return _PROCESS[0] if _PROCESS else None


def hand(job, block: np.ndarray, t: int) -> SharedTile:
    """`block` (at most t x t) copied into a new file of this process's shelf, on the host's
    threads (files of whole tiles made ahead): its handle, for a process of this machine to
    map (the reader unlinks it once uploaded)."""
    handle, out = shelf().take(job, block.shape, ahead=block.shape == (t, t))
    copy_rows(out, np.asarray(block, np.float32))
    return handle


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


#: threads a client hands a numpy A's tiles over on (each makes files too where none is ready)
HAND_THREADS = 4


class Handing:
    """Blocks handed into files on HAND_THREADS threads of their own (not the shelf's: a hand waits
    for the shelf's files), in the order given -- a numpy A's 7 GB below the diagonal at 60,000 took
    the client 2.4 s one tile after another, and the factor's other tasks were submitted only after
    the last.  `futures`: {key: a concurrent future of the SharedTile}; stop() before the job's
    files are released (a hand still running would make a file after it)."""

    def __init__(self, job, blocks, t: int):
        self._pool = ThreadPoolExecutor(HAND_THREADS, thread_name_prefix="glgpgpu-hand")
        self.futures = {key: self._pool.submit(hand, job, block, t) for key, block in blocks}

    def stop(self) -> None:
        """No hand left to start, and the running ones finished."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def unlink(tile: SharedTile) -> None:
    """Remove the tile's file (its pages go once no process maps them)."""
    _unlink(tile.path)


_RETIRING: list = []                   # [the executor], made at first use
_PENDING: list = []                    # retirements not yet waited for
_RETIRE_LOCK = threading.Lock()


def retire(path: str | None, *arrays) -> None:
    """Drop `arrays` (mapped from shared files: their unmapping frees page tables) and unlink
    `path`, on a thread of the process's own, off the caller's: a 64 MB file's pages freed
    took milliseconds of a worker's task thread, once for every tile it uploaded or shared."""
    with _RETIRE_LOCK:
        if not _RETIRING:
            _RETIRING.append(ThreadPoolExecutor(2, thread_name_prefix="glgpgpu-retire"))
        _PENDING[:] = [f for f in _PENDING if not f.done()]
        _PENDING.append(_RETIRING[0].submit(_retire, path, list(arrays)))


def _retire(path, arrays) -> None:
    arrays.clear()
    if path is not None:
        _unlink(path)


def settle() -> None:
    """Every retirement this process asked for done."""
    with _RETIRE_LOCK:
        pending = list(_PENDING)
    wait(pending)


def read(tile: SharedTile) -> np.ndarray:
    """The tile another process put in shared memory, mapped read-only (no copy)."""
    mm = _mapped(tile.path, 4 * tile.rows * tile.cols, create=False)
    return np.ndarray((tile.rows, tile.cols), np.float32, buffer=mm)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale() -> None:
    """Files of processes that are gone (a worker killed before its release)."""
    try:
        names = os.listdir(DIRECTORY)
    except OSError:
        return
    for name in names:
        if not name.startswith(PREFIX):
            continue
        pid = name[len(PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            try:
                os.unlink(os.path.join(DIRECTORY, name))
            except OSError:
                pass
