"""Transfers through persistently mapped pixel buffers (GL 4.4 buffer storage, GL 4.5
direct state access).

moderngl hands a numpy array to glTexSubImage / glGetTexImage, and the driver copies
it through pageable memory on one thread.  Here the host side of a transfer is a copy
into (or out of) a buffer the driver mapped once and keeps mapped, split over the
host's cores (parallel.py; numpy's copies release the GIL), and the GPU side is the
driver's DMA between that buffer and the texture.  A transfer larger than half the
buffer goes in row bands that alternate between its two halves, so the host fills one
half while the GPU drains the other; a fence per half says when it may be reused.

H100 (benchmarks/staged_transfers.py): uploads 2-7x faster than moderngl's (8 MiB
0.9-1.2 ms against 2.0-2.6; 256 MiB 10-12 ms, ~23 GB/s, against 72-86), reads of a
texture the GPU wrote as fast or up to 5x faster (256 MiB 11-13 ms against 54-68).
Every MatrixTexture upload and read goes this way on hardware drivers
(Context.stager); a software renderer keeps its textures in host memory, where the
direct path is one copy and this one two.  The raw entry points come from rawgl.py."""
from __future__ import annotations

import ctypes

import numpy as np

from .. import parallel
from . import rawgl

PIXEL_PACK_BUFFER, PIXEL_UNPACK_BUFFER = 0x88EB, 0x88EC
MAP_READ, MAP_WRITE, MAP_PERSISTENT, MAP_COHERENT = 0x1, 0x2, 0x40, 0x80
CLIENT_STORAGE = 0x200
SYNC_GPU_COMMANDS_COMPLETE, SYNC_FLUSH_COMMANDS = 0x9117, 0x1
WAIT_FAILED = 0x911D
RED, RGBA, FLOAT = 0x1903, 0x1908, 0x1406
PACK_ALIGNMENT, UNPACK_ALIGNMENT = 0x0D05, 0x0CF5

#: bytes of each direction's mapped buffer (two halves of 32 MiB): a transfer up to
#: one half is a single copy plus a single DMA; larger ones alternate halves
STAGING_BYTES = 64 << 20
#: host copies split over threads from this many bytes.  H100 host, staged transfer of
#: 16 MiB: 1.2-1.7 ms threaded against 1.7-2.4 ms on one thread; 1-4 MiB: waking the pool
#: costs ~0.35 ms more than it saves (benchmarks/staged_transfers.py)
THREADED_COPY_FROM = 12 << 20

ENTRY_POINTS = ("glGenBuffers", "glBindBuffer", "glBufferStorage", "glMapBufferRange", "glUnmapBuffer",
                "glDeleteBuffers", "glFenceSync", "glClientWaitSync", "glDeleteSync", "glTextureSubImage2D",
                "glGetTextureSubImage", "glPixelStorei")

_SIGNATURES = {
    "glMapBufferRange": (ctypes.c_void_p, [ctypes.c_uint, ctypes.c_ssize_t, ctypes.c_ssize_t, ctypes.c_uint]),
    "glBufferStorage": (None, [ctypes.c_uint, ctypes.c_ssize_t, ctypes.c_void_p, ctypes.c_uint]),
    "glFenceSync": (ctypes.c_void_p, [ctypes.c_uint, ctypes.c_uint]),
    "glClientWaitSync": (ctypes.c_uint, [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint64]),
    "glDeleteSync": (None, [ctypes.c_void_p]),
    "glTextureSubImage2D": (None, [ctypes.c_uint, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                   ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p]),
    "glGetTextureSubImage": (None, [ctypes.c_uint, ctypes.c_int] + [ctypes.c_int] * 6
                             + [ctypes.c_uint, ctypes.c_uint, ctypes.c_int, ctypes.c_void_p]),
}


class StagingUnavailable(MemoryError):
    """The driver would not give a mapped buffer: transfers go the direct way instead."""


def _gl(name: str):
    fn = rawgl.function(name)
    if name in _SIGNATURES and fn.argtypes is None:
        fn.restype, fn.argtypes = _SIGNATURES[name]
    return fn


def available(caps) -> bool:
    """Can this context stage transfers?  GL 4.5 (buffer storage, and the direct-state
    texture calls that name a texture instead of binding it) and the entry points."""
    return caps.version_code >= 450 and rawgl.has(*ENTRY_POINTS)


class MappedBuffer:
    """One buffer object, mapped for good, seen as two halves each with its fence."""

    def __init__(self, nbytes: int, target: int, access: int):
        self.nbytes, self.target = int(nbytes), target
        name = ctypes.c_uint(0)
        _gl("glGenBuffers")(1, ctypes.byref(name))
        self.name = name.value
        flags = access | MAP_PERSISTENT | MAP_COHERENT
        _gl("glBindBuffer")(target, self.name)
        try:
            _gl("glBufferStorage")(target, self.nbytes, None, flags | CLIENT_STORAGE)
            address = _gl("glMapBufferRange")(target, 0, self.nbytes, flags)
        finally:
            _gl("glBindBuffer")(target, 0)
        if not address:
            _gl("glDeleteBuffers")(1, ctypes.byref(name))
            while rawgl.function("glGetError")():              # leave no error behind for moderngl
                pass
            raise StagingUnavailable(f"the driver could not map a {self.nbytes >> 20} MiB transfer buffer")
        self.bytes = np.ctypeslib.as_array((ctypes.c_ubyte * self.nbytes).from_address(address))
        self.fences = [None, None]

    def half(self, k: int) -> np.ndarray:
        """Half k's bytes, once the GPU is done with what was last queued from or into it."""
        self.wait(k)
        h = self.nbytes // 2
        return self.bytes[k * h:(k + 1) * h]

    def fence(self, k: int) -> None:
        self.fences[k] = _gl("glFenceSync")(SYNC_GPU_COMMANDS_COMPLETE, 0)

    def wait(self, k: int) -> None:
        sync = self.fences[k]
        if sync is None:
            return
        self.fences[k] = None
        try:
            while True:                                    # 1 s per try; a long queue can take longer
                status = _gl("glClientWaitSync")(sync, SYNC_FLUSH_COMMANDS, 1_000_000_000)
                if status == WAIT_FAILED:
                    raise RuntimeError("glClientWaitSync failed while waiting for a transfer")
                if status != 0x911B:                      # not GL_TIMEOUT_EXPIRED
                    return
        finally:
            _gl("glDeleteSync")(sync)

    def release(self) -> None:
        if self.name:
            for k in (0, 1):
                self.wait(k)
            _gl("glBindBuffer")(self.target, self.name)
            _gl("glUnmapBuffer")(self.target)
            _gl("glBindBuffer")(self.target, 0)
            _gl("glDeleteBuffers")(1, ctypes.byref(ctypes.c_uint(self.name)))
            self.name = 0
            self.bytes = None


def copy_rows(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src for two 2-D arrays of one shape (src may be a strided view),
    split by rows over threads when it is large."""
    n = parallel.workers()
    if dst.nbytes < THREADED_COPY_FROM or n < 2 or dst.shape[0] < 2:
        np.copyto(dst, src)
        return
    cuts = np.linspace(0, dst.shape[0], n + 1).astype(np.int64).tolist()
    parallel.map_pieces(lambda ab: np.copyto(dst[ab[0]:ab[1]], src[ab[0]:ab[1]]),
                        [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a])


def _bands(rows: int, row_bytes: int, half_bytes: int):
    """Row bands [r0, r1) of at most one half's bytes each."""
    per = max(1, half_bytes // row_bytes)
    return [(r0, min(rows, r0 + per)) for r0 in range(0, rows, per)]


class Stager:
    """A context's two mapped buffers, one per direction, each made on first use.
    Arrays are 2-D float32, h rows of w * components floats (rows may lie apart: a
    view into a larger array); the texture is named, never bound (GL 4.5)."""

    def __init__(self, nbytes: int | None = None):
        self.nbytes = int(nbytes or STAGING_BYTES)
        self.up = self.down = None
        self.turn = 0                                      # the half the next upload band takes

    def upload(self, tex_glo: int, arr: np.ndarray, x: int, y: int, components: int) -> None:
        """arr into texture tex_glo's h x w rectangle whose first texel is (x, y)."""
        row = arr.shape[1]
        up = self._fit("up", row, PIXEL_UNPACK_BUFFER, MAP_WRITE)
        fmt = RED if components == 1 else RGBA
        _gl("glPixelStorei")(UNPACK_ALIGNMENT, 4)
        half_bytes = up.nbytes // 2
        for r0, r1 in _bands(arr.shape[0], row * 4, half_bytes):
            k = self.turn
            self.turn ^= 1
            dst = up.half(k)[:(r1 - r0) * row * 4].view(np.float32).reshape(r1 - r0, row)
            copy_rows(dst, arr[r0:r1])
            _gl("glBindBuffer")(PIXEL_UNPACK_BUFFER, up.name)
            try:
                _gl("glTextureSubImage2D")(tex_glo, 0, x, y + r0, row // components, r1 - r0, fmt, FLOAT,
                                           k * half_bytes)
            finally:
                _gl("glBindBuffer")(PIXEL_UNPACK_BUFFER, 0)    # moderngl's uploads pass host pointers
            up.fence(k)

    def read(self, tex_glo: int, out: np.ndarray, x: int, y: int, components: int) -> None:
        """Texture tex_glo's h x w rectangle at (x, y) into `out`: band j is copied out
        of its half while the GPU writes band j + 1 into the other."""
        row = out.shape[1]
        down = self._fit("down", row, PIXEL_PACK_BUFFER, MAP_READ)
        fmt = RED if components == 1 else RGBA
        _gl("glPixelStorei")(PACK_ALIGNMENT, 4)
        half_bytes = down.nbytes // 2
        bands = _bands(out.shape[0], row * 4, half_bytes)

        def queue(j):
            r0, r1 = bands[j]
            k = j & 1
            down.wait(k)
            _gl("glBindBuffer")(PIXEL_PACK_BUFFER, down.name)
            try:
                _gl("glGetTextureSubImage")(tex_glo, 0, x, y + r0, 0, row // components, r1 - r0, 1, fmt,
                                            FLOAT, (r1 - r0) * row * 4, k * half_bytes)
            finally:
                _gl("glBindBuffer")(PIXEL_PACK_BUFFER, 0)
            down.fence(k)

        queue(0)
        for j, (r0, r1) in enumerate(bands):
            if j + 1 < len(bands):
                queue(j + 1)
            src = down.half(j & 1)[:(r1 - r0) * row * 4].view(np.float32).reshape(r1 - r0, row)
            copy_rows(out[r0:r1], src)

    def _fit(self, slot: str, row_floats: int, target: int, access: int) -> MappedBuffer:
        """The buffer in `slot` ("up" / "down"), new where it is missing or a half cannot
        hold one row."""
        need = max(self.nbytes, 2 * 4 * row_floats)
        buf = getattr(self, slot)
        if buf is not None and buf.nbytes >= need:
            return buf
        if buf is not None:
            buf.release()
            setattr(self, slot, None)
        buf = MappedBuffer(need, target, access)
        setattr(self, slot, buf)
        return buf

    def release(self) -> None:
        for buf in (self.up, self.down):
            if buf is not None:
                buf.release()
        self.up = self.down = None
