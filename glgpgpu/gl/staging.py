"""Transfers through persistently mapped pixel buffers (GL 4.4 buffer storage, GL 4.5
direct state access).

moderngl hands a numpy array to glTexSubImage / glGetTexImage, and the driver copies
it through pageable memory on one thread.  Here the host side of a transfer is a copy
into (or out of) a buffer the driver mapped once and keeps mapped, split over the
host's cores (parallel.py; numpy's copies release the GIL), and the GPU side is the
driver's DMA between that buffer and the texture.  The buffer is a ring of regions,
each fenced when its transfer is queued, so uploads queue behind running work without
waiting for it; a transfer larger than half the ring goes in row bands, so the host
copies one band while the GPU moves the next.

H100 (benchmarks/staged_transfers.py): uploads 2-7x faster than moderngl's (8 MiB
0.9-1.2 ms against 2.0-2.6; 256 MiB 10-12 ms, ~23 GB/s, against 72-86), reads of a
texture the GPU wrote as fast or up to 5x faster (256 MiB 11-13 ms against 54-68).
Every MatrixTexture upload and read goes this way on hardware drivers
(Context.stager); a software renderer keeps its textures in host memory, where the
direct path is one copy and this one two.  The raw entry points come from rawgl.py."""
from __future__ import annotations

import collections
import ctypes

import numpy as np

from .. import parallel
from . import rawgl

PIXEL_PACK_BUFFER, PIXEL_UNPACK_BUFFER = 0x88EB, 0x88EC
MAP_READ, MAP_WRITE, MAP_PERSISTENT, MAP_COHERENT = 0x1, 0x2, 0x40, 0x80
CLIENT_STORAGE = 0x200
SYNC_GPU_COMMANDS_COMPLETE, SYNC_FLUSH_COMMANDS = 0x9117, 0x1
ALREADY_SIGNALED, TIMEOUT_EXPIRED, CONDITION_SATISFIED, WAIT_FAILED = 0x911A, 0x911B, 0x911C, 0x911D
#: fences a ring keeps at most (small uploads would otherwise pile up thousands of sync
#: objects before the ring comes round)
MAX_INFLIGHT = 64
RETIRE = True             # also retire fences already passed (asks the driver each take)
FORMATS = {1: 0x1903, 2: 0x8227, 3: 0x1907, 4: 0x1908}     # GL_RED, GL_RG, GL_RGB, GL_RGBA by components
FLOAT, PACK_ALIGNMENT, UNPACK_ALIGNMENT = rawgl.FLOAT, rawgl.PACK_ALIGNMENT, rawgl.UNPACK_ALIGNMENT

#: bytes of each direction's mapped ring: a transfer up to half of it is a single copy
#: plus a single DMA; larger ones go in bands of at most half
STAGING_BYTES = 64 << 20
#: host copies split over threads from this many bytes.  H100 host, staged transfer of
#: 16 MiB: 1.2-1.7 ms threaded against 1.7-2.4 ms on one thread; 1-4 MiB: waking the pool
#: costs ~0.35 ms more than it saves (benchmarks/staged_transfers.py)
THREADED_COPY_FROM = 12 << 20

ENTRY_POINTS = ("glGenBuffers", "glBindBuffer", "glBufferStorage", "glMapBufferRange", "glUnmapBuffer",
                "glDeleteBuffers", "glFenceSync", "glClientWaitSync", "glDeleteSync", "glTextureSubImage2D",
                "glGetTextureSubImage", "glPixelStorei", "glCopyNamedBufferSubData")

class StagingUnavailable(MemoryError):
    """The driver would not give a mapped buffer: transfers go the direct way instead."""


_gl = rawgl.function


def available(caps) -> bool:
    """Can this context stage transfers?  GL 4.5 (buffer storage, and the direct-state
    texture calls that name a texture instead of binding it) and the entry points."""
    return caps.version_code >= 450 and rawgl.has(*ENTRY_POINTS)


#: offsets of the regions handed out are multiples of this (GL wants the type's size;
#: the DMA engines like larger)
ALIGN = 256


def _wait(sync) -> None:
    """Block until the GPU passed `sync`, then delete it."""
    try:
        while True:                                        # 1 s per try; a long queue can take longer
            status = _gl("glClientWaitSync")(sync, SYNC_FLUSH_COMMANDS, 1_000_000_000)
            if status == WAIT_FAILED:
                raise RuntimeError("glClientWaitSync failed while waiting for a transfer")
            if status != TIMEOUT_EXPIRED:
                return
    finally:
        _gl("glDeleteSync")(sync)


def _passed(sync) -> bool:
    """Has the GPU passed `sync`?  (Asks without waiting.)"""
    return _gl("glClientWaitSync")(sync, 0, 0) in (ALREADY_SIGNALED, CONDITION_SATISFIED)


class MappedBuffer:
    """One buffer object, mapped for good, handed out as a ring of regions: each
    transfer takes the next free region and leaves a fence behind it, and a region is
    waited for only when the ring comes round to it again.  So an upload queued behind
    a long chain of draws does not make the next upload wait for that chain (two fixed
    halves would), and a large transfer's bands (each at most half the ring) alternate
    without waiting for each other."""

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
            while _gl("glGetError")():              # leave no error behind for moderngl
                pass
            raise StagingUnavailable(f"the driver could not map a {self.nbytes >> 20} MiB transfer buffer")
        self.bytes = np.ctypeslib.as_array((ctypes.c_ubyte * self.nbytes).from_address(address))
        self.head = 0
        self.inflight = collections.deque()                # (start, end, fence), oldest first

    def take(self, nbytes: int) -> int:
        """The offset of a free region of nbytes (at most the buffer's size), waiting
        for the GPU only where the ring has come round to regions it still uses."""
        while self.inflight and (len(self.inflight) > MAX_INFLIGHT or (RETIRE and _passed(self.inflight[0][2]))):
            _wait(self.inflight.popleft()[2])             # retire what is done; never too many fences
        start = self.head if self.head + nbytes <= self.nbytes else 0
        end = start + nbytes
        while any(a < end and start < b for a, b, _ in self.inflight):
            _wait(self.inflight.popleft()[2])             # in order: the GPU runs them in order
        self.head = -(-end // ALIGN) * ALIGN
        return start

    def fence(self, start: int, nbytes: int):
        """The GPU's use of [start, start + nbytes) is queued: mark when it is done."""
        sync = _gl("glFenceSync")(SYNC_GPU_COMMANDS_COMPLETE, 0)
        self.inflight.append((start, start + nbytes, sync))
        return sync

    def wait_for(self, sync) -> None:
        """Until the GPU passed `sync` (and so everything fenced before it)."""
        while self.inflight:
            _, _, first = self.inflight.popleft()
            _wait(first)
            if first == sync:
                return

    def wait_all(self) -> None:
        while self.inflight:
            _wait(self.inflight.popleft()[2])

    def release(self) -> None:
        if self.name:
            self.wait_all()
            _gl("glBindBuffer")(self.target, self.name)
            _gl("glUnmapBuffer")(self.target)
            _gl("glBindBuffer")(self.target, 0)
            _gl("glDeleteBuffers")(1, ctypes.byref(ctypes.c_uint(self.name)))
            self.name = 0
            self.bytes = None


def copy_rows(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src for two 2-D arrays of one shape (src may be a strided view),
    split by rows over threads when it is large."""
    copy_parts([(dst, src)])


def copy_parts(parts) -> None:
    """dst[...] = src for each (dst, src) pair of 2-D arrays of one shape, split by rows
    into about one share of the bytes per thread when they are large together."""
    total = sum(dst.nbytes for dst, _ in parts)
    n = parallel.workers()
    if total < THREADED_COPY_FROM or n < 2:
        for dst, src in parts:
            np.copyto(dst, src)
        return
    share = -(-total // n)
    chunks = []
    for dst, src in parts:
        step = max(1, share // max(1, dst.nbytes // max(1, dst.shape[0])))
        chunks += [(dst[a:a + step], src[a:a + step]) for a in range(0, dst.shape[0], step)]
    parallel.map_pieces(lambda ds: np.copyto(ds[0], ds[1]), chunks)


def _pieces(blocks, most: int):
    """The transfers of read_blocks / write_blocks: [buffer byte, bytes, [(r0, r1, cols, byte
    in the piece)]] -- runs of whole rows of the blocks (r0, r1, cols, buffer byte), those
    that follow one another in the buffer together, at most `most` bytes a piece."""
    pieces = []
    for r0, r1, cols, at in blocks:
        for a, b in _bands(r1 - r0, cols * 4, most):
            start, nbytes = at + a * cols * 4, (b - a) * cols * 4
            last = pieces[-1] if pieces else None
            if last is not None and last[0] + last[1] == start and last[1] + nbytes <= most:
                last[2].append((r0 + a, r0 + b, cols, last[1]))
                last[1] += nbytes
            else:
                pieces.append([start, nbytes, [(r0 + a, r0 + b, cols, 0)]])
    return pieces


def _bands(rows: int, row_bytes: int, half_bytes: int):
    """Row bands [r0, r1) of at most half_bytes each (one row at least)."""
    per = max(1, half_bytes // row_bytes)
    return [(r0, min(rows, r0 + per)) for r0 in range(0, rows, per)]


class Stager:
    """A context's two mapped buffers, one per direction, each made on first use.
    Arrays are 2-D float32, h rows of w * components floats (rows may lie apart: a
    view into a larger array); the texture is named, never bound (GL 4.5)."""

    def __init__(self, nbytes: int | None = None):
        self.nbytes = int(nbytes or STAGING_BYTES)
        self.up = self.down = None

    def upload(self, tex_glo: int, arr: np.ndarray, x: int, y: int, components: int) -> None:
        """arr into texture tex_glo's h x w rectangle whose first texel is (x, y)."""
        row = arr.shape[1]
        up = self._fit("up", row, PIXEL_UNPACK_BUFFER, MAP_WRITE)
        fmt = FORMATS[components]
        _gl("glPixelStorei")(UNPACK_ALIGNMENT, 4)
        for r0, r1 in _bands(arr.shape[0], row * 4, up.nbytes // 2):
            nbytes = (r1 - r0) * row * 4
            at = up.take(nbytes)
            copy_rows(up.bytes[at:at + nbytes].view(np.float32).reshape(r1 - r0, row), arr[r0:r1])
            _gl("glBindBuffer")(PIXEL_UNPACK_BUFFER, up.name)
            try:
                _gl("glTextureSubImage2D")(tex_glo, 0, x, y + r0, row // components, r1 - r0, fmt, FLOAT, at)
            finally:
                _gl("glBindBuffer")(PIXEL_UNPACK_BUFFER, 0)    # moderngl's uploads pass host pointers
            up.fence(at, nbytes)

    def read(self, tex_glo: int, out: np.ndarray, x: int, y: int, components: int) -> None:
        """Texture tex_glo's h x w rectangle at (x, y) into `out`: band j is copied out
        of its region while the GPU writes band j + 1 into the next."""
        row = out.shape[1]
        down = self._fit("down", row, PIXEL_PACK_BUFFER, MAP_READ)
        fmt = FORMATS[components]
        _gl("glPixelStorei")(PACK_ALIGNMENT, 4)
        bands = _bands(out.shape[0], row * 4, down.nbytes // 2)
        queued = collections.deque()                       # (r0, r1, offset, fence), oldest first
        # a read's bands are the host's until copied out, not only until their fence: start
        # the ring at 0, so band j + 1 (at most half the ring, aligned) never lands on band j
        down.wait_all()
        down.head = 0

        def queue(r0, r1):
            nbytes = (r1 - r0) * row * 4
            at = down.take(nbytes)
            _gl("glBindBuffer")(PIXEL_PACK_BUFFER, down.name)
            try:
                _gl("glGetTextureSubImage")(tex_glo, 0, x, y + r0, 0, row // components, r1 - r0, 1, fmt,
                                            FLOAT, nbytes, at)
            finally:
                _gl("glBindBuffer")(PIXEL_PACK_BUFFER, 0)
            queued.append((r0, r1, at, down.fence(at, nbytes)))

        queue(*bands[0])
        for j in range(len(bands)):
            if j + 1 < len(bands):
                queue(*bands[j + 1])
            r0, r1, at, sync = queued.popleft()
            nbytes = (r1 - r0) * row * 4
            down.wait_for(sync)
            copy_rows(out[r0:r1], down.bytes[at:at + nbytes].view(np.float32).reshape(r1 - r0, row))

    def upload_buffer(self, dst_glo: int, arr: np.ndarray) -> None:
        """A 2-D float32 array (rows may lie apart) into buffer dst_glo from offset 0,
        row-major and compact: the host copy into the mapped ring, then the GPU's copy
        (glCopyNamedBufferSubData), band by band."""
        self.write_blocks(dst_glo, arr, [(0, arr.shape[0], arr.shape[1], 0)])

    def read_buffer(self, src_glo: int, out: np.ndarray) -> None:
        """Buffer src_glo's first out.size floats (row-major, compact) into `out`: band
        j copied out of its region while the GPU copies band j + 1 into the next."""
        self.read_blocks(src_glo, out, [(0, out.shape[0], out.shape[1], 0)])

    def read_blocks(self, src_glo: int, out: np.ndarray, blocks) -> None:
        """Compact row-major blocks of buffer src_glo into parts of `out`: for each
        (r0, r1, cols, at) of blocks, the (r1 - r0) x cols floats from byte `at` into
        out[r0:r1, :cols] (a packed lower triangle's row bands, say).  Blocks that follow
        one another in src travel together, in pieces of whole rows of at most half the
        ring; the host copies piece j out of its region (over threads, however many
        blocks it holds) while the GPU copies piece j + 1 into the next."""
        down = self._fit("down", max(cols for _, _, cols, _ in blocks), PIXEL_PACK_BUFFER, MAP_READ)
        half = down.nbytes // 2                            # a multiple of ALIGN (_fit)
        pieces = _pieces(blocks, half)
        queued = collections.deque()                       # (parts, offset, fence), oldest first
        # a read's pieces are the host's until copied out, not only until their fence: piece j
        # goes to half j % 2 of the ring, so the GPU fills one half while the host empties the
        # other (the ring's own placement wraps piece j + 1 onto piece j when pieces differ in size)
        down.wait_all()
        down.head = 0

        def queue(j):
            src_at, nbytes, parts = pieces[j]
            at = (j % 2) * half
            _gl("glCopyNamedBufferSubData")(src_glo, down.name, src_at, at, nbytes)
            queued.append((parts, at, down.fence(at, nbytes)))

        queue(0)
        for j in range(len(pieces)):
            if j + 1 < len(pieces):
                queue(j + 1)
            parts, at, sync = queued.popleft()
            down.wait_for(sync)
            copy_parts([(out[r0:r1, :cols],
                         down.bytes[at + p:at + p + (r1 - r0) * cols * 4].view(np.float32).reshape(r1 - r0, cols))
                        for r0, r1, cols, p in parts])

    def write_blocks(self, dst_glo: int, arr: np.ndarray, blocks) -> None:
        """read_blocks the other way: for each (r0, r1, cols, at) of blocks, arr[r0:r1, :cols]
        into buffer dst_glo from byte `at`, compact and row-major; blocks that follow one
        another in dst in one host copy (over threads) and one GPU copy a piece."""
        up = self._fit("up", max(cols for _, _, cols, _ in blocks), PIXEL_UNPACK_BUFFER, MAP_WRITE)
        for dst_at, nbytes, parts in _pieces(blocks, up.nbytes // 2):
            at = up.take(nbytes)             # waits only for the GPU's copies out of that region
            copy_parts([(up.bytes[at + p:at + p + (r1 - r0) * cols * 4].view(np.float32).reshape(r1 - r0, cols),
                         arr[r0:r1, :cols]) for r0, r1, cols, p in parts])
            _gl("glCopyNamedBufferSubData")(up.name, dst_glo, at, dst_at, nbytes)
            up.fence(at, nbytes)

    def _fit(self, slot: str, row_floats: int, target: int, access: int) -> MappedBuffer:
        """The buffer in `slot` ("up" / "down"), new where it is missing or half of it
        cannot hold one row."""
        need = max(self.nbytes, -(-2 * 4 * row_floats // (2 * ALIGN)) * 2 * ALIGN)
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
