"""Matrices in shader storage buffers: the compute method's storage.

A `MatrixBuffer` holds a float32 matrix row-major with a leading dimension `ld`
(row stride in floats, a multiple of 4 so rows start on 16-byte boundaries);
compute kernels address element (i, j) as `data[off + i * ld + j]`.  Buffers come
from the context's `BufferPool`, reused by size, least recently used trimmed
past a byte budget.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import moderngl

from ..errors import GLResourceError, GPUMemoryError
from .scopes import FailureScope


def leading(cols: int) -> int:
    """The row stride of a matrix with `cols` columns: cols rounded up to 4, and 4 more
    where that is a multiple of 256 floats (a power-of-two stride puts a column's
    entries in one memory partition)."""
    ld = max(4, -(-int(cols) // 4) * 4)
    return ld + 4 if ld % 256 == 0 else ld


class MatrixBuffer:
    """A float32 matrix (rows x cols, row stride ld) in a storage buffer of the pool."""

    def __init__(self, pool: "BufferPool", buf, rows: int, cols: int, ld: int):
        self.pool, self.buf = pool, buf
        self.rows, self.cols, self.ld = int(rows), int(cols), int(ld)

    @property
    def shape(self):
        return (self.rows, self.cols)

    @property
    def nbytes(self) -> int:
        return 4 * self.rows * self.ld if self.ld >= self.cols else 4 * self.rows * self.cols

    def write(self, arr: np.ndarray) -> "MatrixBuffer":
        """Upload a (rows, cols) array (converted to float32, zero padded to ld on the
        host; compute.blas.upload pads on the GPU instead)."""
        a = np.asarray(arr, np.float32)
        if a.shape != (self.rows, self.cols):
            a = a.reshape(self.rows, self.cols)
        if self.ld != self.cols:
            padded = np.zeros((self.rows, self.ld), np.float32)
            padded[:, :self.cols] = a
            a = padded
        self.buf.write(np.ascontiguousarray(a))
        return self

    def read(self, out: np.ndarray | None = None) -> np.ndarray:
        """The (rows, cols) float32 matrix, exactly as stored (a host copy drops the
        padding; compute.blas.download drops it on the GPU)."""
        whole = np.empty((self.rows, self.ld), np.float32)
        self.buf.read_into(whole, size=self.nbytes)
        if out is not None:
            out[...] = whole[:, :self.cols]
            return out
        return np.ascontiguousarray(whole[:, :self.cols]) if self.ld != self.cols else whole

    def clear(self) -> "MatrixBuffer":
        self.buf.clear(size=self.nbytes)
        return self

    def give(self) -> None:
        """Back to the pool (safe to call twice)."""
        if self.buf is not None:
            self.pool.give_buffer(self.buf, self)
            self.buf = None

    release = give


class BufferPool:
    """Storage buffers reused by byte size; what waits in the pool is trimmed, least
    recently given first, past `keep_bytes`."""

    #: a new buffer at least this large asks gl/memory.py first (small ones are not worth the query)
    ASK_BYTES = 64 << 20
    #: on a GPU whose memory the driver reports, free buffers are kept up to 1 / KEEP_SHARE of it
    KEEP_SHARE = 4

    def __init__(self, gl, keep_bytes: int = 1 << 30, activate=lambda: None, fits=None):
        self.gl = gl
        # fits(nbytes, live_bytes, what, new): raises GPUMemoryError when a buffer will not fit
        self.fits = fits
        self._live = 0                                 # bytes of the buffers handed out
        self.activate = activate          # makes the owning context current (GL objects belong to it)
        self.keep_bytes = keep_bytes
        self._free: OrderedDict = OrderedDict()       # id -> buffer, oldest first
        self._sizes: dict = {}                         # bytes -> ids of free buffers that size (newest last)
        self._held = 0
        self._out: dict = {}                           # id -> MatrixBuffer handed out
        self._scopes: list = []

    def take(self, rows: int, cols: int, what: str = "matrix", ld: int | None = None) -> MatrixBuffer:
        ld = leading(cols) if ld is None else ld
        nbytes = max(16, -(-4 * int(rows) * ld // 16) * 16)
        buf = None
        same = self._sizes.get(nbytes)
        if self.fits is not None and same:
            self.fits(nbytes, self._live, what, False)      # a budget counts reused buffers too
        if same:
            buf = self._free.pop(same.pop())
            self._held -= nbytes
        else:
            if self.fits is not None:
                try:
                    self.fits(nbytes, self._live, what, True)
                except GPUMemoryError:
                    if not self._free:
                        raise
                    self.release()                         # what waits in the pool first, then ask again
                    self.fits(nbytes, self._live, what, True)
            try:
                buf = self.gl.buffer(reserve=nbytes)
            except moderngl.Error as exc:
                raise GLResourceError(f"the GPU could not allocate {nbytes} bytes for {what} ({exc}); "
                                      "it may be out of memory") from None
        mb = MatrixBuffer(self, buf, rows, cols, ld)
        self._out[id(mb)] = mb
        self._live += buf.size
        for scope in self._scopes:
            scope.add(id(mb))
        return mb

    @property
    def held_bytes(self) -> int:
        """Bytes of the free buffers waiting for reuse."""
        return self._held

    @property
    def outstanding(self) -> int:
        """Buffers handed out and not given back (a leak if it grows across calls)."""
        return len(self._out)

    def scope(self) -> FailureScope:
        """Context manager: on an exception, give back every buffer taken inside and
        not given back (a failure midway leaves nothing behind)."""
        return FailureScope(self, lambda mb: mb.give())

    def give_buffer(self, buf, mb=None) -> None:
        if mb is not None and self._out.pop(id(mb), None) is not None:
            self._live -= buf.size
        self._free[id(buf)] = buf
        self._sizes.setdefault(buf.size, []).append(id(buf))
        self._held += buf.size
        if self._held > self.keep_bytes:
            self.activate()
        while self._held > self.keep_bytes and self._free:
            key, old = self._free.popitem(last=False)
            self._sizes[old.size].remove(key)
            self._held -= old.size
            old.release()

    def release(self) -> None:
        """Free what waits in the pool (buffers handed out stay theirs until given back)."""
        self.activate()
        for b in self._free.values():
            b.release()
        self._free.clear()
        self._sizes.clear()
        self._held = 0
