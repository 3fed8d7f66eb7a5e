"""Matrices as float32 textures.

A matrix of shape (rows, cols) is an R32F texture of width = cols and
height = rows, with a framebuffer so kernels can render into it.  Texel (x, y)
holds element (row y, column x); an array read back has shape (rows, cols), so
numpy and the texture agree with no flips.  Upload and readback are exact
float32 (moderngl's default read is 8-bit: never used here).
"""
from __future__ import annotations

import numpy as np
import moderngl

from ..errors import GLResourceError
from . import rawgl, staging
from .scopes import FailureScope


#: row bands of MatrixTexture.write_lower (H100, m = 4096, R32F: 16 bands 11 ms for 34 MiB,
#: 4 bands 16 ms, the whole square 20 ms; benchmarks/gpu_lower_upload.py)
LOWER_BANDS = 16


def _staged(ctx, transfer, *args) -> bool:
    """Run a transfer through the context's mapped buffers; False (and staging off for
    this context from then on) where the driver will not map one -- the caller then
    goes the direct way, nothing lost."""
    try:
        transfer(*args)
        return True
    except staging.StagingUnavailable:
        ctx.staging = False
        return False


class MatrixTexture:
    """One float32 matrix on the GPU: an R32F texture plus its framebuffer."""

    def __init__(self, ctx, rows: int, cols: int, data=None, *, components: int = 1,
                 what: str = "matrix"):
        if rows < 1 or cols < 1:
            raise ValueError(f"{what} must have at least one row and one column, got {rows}x{cols}")
        if ctx is None:
            raise TypeError("MatrixTexture needs a Context: pass glgpgpu.get_context()")
        ctx.make_current()
        ctx.check_size(rows, cols, what)
        self.ctx = ctx
        self.rows, self.cols, self.components = int(rows), int(cols), components
        self.tex = self.fbo = None
        try:
            self.tex = ctx.gl.texture((self.cols, self.rows), components, dtype="f4")
            # NEAREST + texelFetch: a texel is a number, never a blend of neighbours.
            self.tex.filter = (moderngl.NEAREST, moderngl.NEAREST)
            self.tex.repeat_x = self.tex.repeat_y = False
            self.fbo = ctx.gl.framebuffer(color_attachments=[self.tex])
        except moderngl.Error as exc:
            if self.tex is not None:
                self.tex.release()
            self.tex = None
            raise GLResourceError(
                f"the GPU could not allocate a {self.cols}x{self.rows} float32 texture for {what} ({exc}). "
                "It may be out of memory: free other GPU work or solve a smaller problem.") from None
        if data is not None:
            self.write(data)

    @property
    def shape(self):
        return (self.rows, self.cols)

    def write(self, data) -> None:
        """Upload a (rows, cols[, components]) array, converted to float32.  A float32
        C-contiguous array goes to the driver as it is (buffer protocol, no host copy)."""
        self.ctx.make_current()
        arr = np.ascontiguousarray(data, dtype=np.float32)
        want = self.shape if self.components == 1 else self.shape + (self.components,)
        if arr.shape != want and arr.size == int(np.prod(want)) and arr.ndim <= 1:
            arr = arr.reshape(want)
        if arr.shape != want:
            raise ValueError(f"array of shape {arr.shape} does not fit a texture holding {want}")
        self.upload(arr)

    def write_rows(self, data: np.ndarray, y0: int) -> None:
        """Upload whole rows y0 .. y0 + len(data) - 1 (a contiguous float32 band of the
        caller's array goes as it is): the banded uploads that overlap with drawing."""
        self.ctx.make_current()
        arr = np.ascontiguousarray(data, dtype=np.float32)
        tail = (self.cols,) if self.components == 1 else (self.cols, self.components)
        if arr.shape[1:] != tail or not 0 <= y0 <= y0 + arr.shape[0] <= self.rows:
            raise ValueError(f"rows of shape {arr.shape} at row {y0} do not fit a texture holding "
                             f"{(self.rows,) + tail}")
        self.upload(arr, y0)

    def write_lower(self, data) -> None:
        """Upload the lower triangle of a square float32 matrix into a one-component
        texture -- about half the bytes of `write`: LOWER_BANDS row bands of its lower
        trapezoid, each straight from the caller's array (GL_UNPACK_ROW_LENGTH: no host
        copy).  What lies above the bands keeps the texture's old contents (a pooled
        texture's last matrix, or anything, NaN included): for kernels that read only
        i >= j, whose results are read back through a pass that zeroes the rest
        (paper/packing.py; tests/api/test_stale_upper.py holds them to it).  Zeroing it
        on the GPU cost more than the bytes saved (H100, m = 4096: 23 ms against 12 ms;
        a clear before the upload, 119 ms).  Anything else -- not C-contiguous float32
        of exactly the texture's size, or RGBA, whose narrow sub-rectangle uploads the
        H100's driver runs 5x slower than a whole one -- goes whole through `write`."""
        arr = data if isinstance(data, np.ndarray) else np.asarray(data)
        m = self.rows
        if (self.components != 1 or arr.dtype != np.float32 or not arr.flags.c_contiguous
                or arr.shape != (m, self.cols) or m != self.cols or not rawgl.has("glTexSubImage2D", "glPixelStorei")):
            return self.write(data)
        self.ctx.make_current()
        stager = self.ctx.stager
        bound = False
        cuts = np.linspace(0, m, LOWER_BANDS + 1).astype(int).tolist()
        for r0, r1 in zip(cuts[:-1], cuts[1:]):
            if r1 <= r0:
                continue
            if stager is not None and _staged(self.ctx, stager.upload, self.tex.glo, arr[r0:r1, :r1], 0, r0, 1):
                continue
            stager = None                                 # refused once: the rest goes direct
            if not bound:
                self.tex.use(location=0)
                bound = True
            rawgl.sub_image_rows(r0, r1, r1 - r0, arr.ctypes.data + r0 * m * 4, m)

    def upload(self, arr: np.ndarray, y0: int = 0) -> None:
        """The one place texels cross to the GPU (tests watch it for copies): through
        the context's mapped buffers where it has them (gl/staging.py), else moderngl."""
        stager = self.ctx.stager
        if stager is not None and _staged(self.ctx, stager.upload, self.tex.glo, arr.reshape(arr.shape[0], -1),
                                          0, y0, self.components):
            return
        if y0 == 0 and arr.shape[0] == self.rows:
            self.tex.write(arr)
        else:
            self.tex.write(arr, viewport=(0, y0, self.cols, arr.shape[0]))

    def read(self, out: np.ndarray | None = None) -> np.ndarray:
        """Exact float32 copy of the texture, shape (rows, cols[, components]), read
        straight into `out` (or a new array): one host copy, the driver's."""
        self.ctx.make_current()
        shape = (self.rows, self.cols) if self.components == 1 else (self.rows, self.cols, self.components)
        if out is None:
            out = np.empty(shape, np.float32)
        elif out.shape != shape or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"read(out=) needs a C-contiguous float32 array of shape {shape}")
        stager = self.ctx.stager
        # through the mapped buffers: on the H100 a texture the GPU wrote (a clear,
        # image stores) reads 1.7-2x slower straight than an uploaded one
        # (benchmarks/read_after.py), and 4-5x slower than this way at 256 MiB
        if stager is None or not _staged(self.ctx, stager.read, self.tex.glo, out.reshape(self.rows, -1), 0, 0,
                                         self.components):
            self.tex.read_into(out, alignment=4)
        return out

    def read_region(self, x: int, y: int, w: int, h: int) -> np.ndarray:
        """Read a w x h block whose lower-left texel is (x, y) -> array (h, w)."""
        self.ctx.make_current()
        data = self.fbo.read(viewport=(x, y, w, h), components=self.components, dtype="f4",
                             alignment=4)
        return np.frombuffer(data, np.float32).reshape(h, w, -1).squeeze(-1).copy() \
            if self.components == 1 else np.frombuffer(data, np.float32).reshape(h, w, -1).copy()

    def read_region_into(self, out: np.ndarray, x: int, y: int) -> np.ndarray:
        """Read the (h, w[, components]) block at texel (x, y) straight into `out`
        (C-contiguous float32 of that shape): the driver's copy only."""
        self.ctx.make_current()
        h, w = out.shape[:2]
        stager = self.ctx.stager
        if stager is None or not out.flags.c_contiguous or not _staged(
                self.ctx, stager.read, self.tex.glo, out.reshape(h, -1), x, y, self.components):
            self.fbo.read_into(out, viewport=(x, y, w, h), components=self.components, dtype="f4", alignment=4)
        return out

    def copy_into_buffer(self, buffer) -> None:
        """GPU-side copy of the texels into a storage buffer (row-major), no host trip."""
        self.tex.read_into(buffer, alignment=4)

    def clear(self, value: float = 0.0) -> None:
        self.ctx.make_current()
        self.fbo.use()
        self.fbo.clear(red=float(value), green=float(value), blue=float(value), alpha=float(value))

    def release(self) -> None:
        if self.fbo is not None:
            self.ctx.make_current()
            if self.ctx.gl.fbo is self.fbo:
                self.ctx.park()
            self.fbo.release()
            self.tex.release()
            self.fbo = self.tex = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __repr__(self):
        return f"MatrixTexture({self.rows}x{self.cols})"


class GridTarget:
    """A framebuffer with no attachments: it only sets how many fragments a draw
    creates (one per block); the blocked kernels write through image stores."""

    def __init__(self, ctx, cols: int, rows: int, name="grid"):
        self.fbo = ctx.gl.empty_framebuffer((cols, rows))
        self.cols, self.rows, self.name = cols, rows, name

    def release(self):
        self.fbo.release()


class PingPong:
    """Two same-sized textures: kernels read `source`, write `target`, then `swap()`.

    Reading a texture while rendering into it is undefined in OpenGL, so every
    multipass algorithm here alternates between the two (the papers' S and T).
    """

    def __init__(self, a: MatrixTexture, b: MatrixTexture):
        if a.shape != b.shape:
            raise ValueError(f"ping-pong textures must match: {a.shape} vs {b.shape}")
        self.source, self.target = a, b

    def swap(self) -> None:
        """Exchange roles; the names (C_S / C_T, L_S / L_T) follow the roles."""
        self.source, self.target = self.target, self.source
        self.source.name, self.target.name = self.target.__dict__.get("name", "S"), \
            self.source.__dict__.get("name", "T")

    def release(self) -> None:
        self.source.release()
        self.target.release()


class TexturePool:
    """Reuses released textures of the same shape instead of allocating anew.

    `take(rows, cols)` hands out a texture (contents undefined); `give(tex)`
    returns it.  Algorithms called in a loop (adat a thousand times, one LP
    iteration after another) therefore allocate nothing after the first call.
    What waits in the pool is bounded: at most `keep` textures of one shape and
    `keep_bytes` in all, the least recently given back released first (a process
    that sees a thousand sizes does not keep a thousand textures).

    `with pool.scope():` around a public call gives back, if the call fails
    midway (a driver out of memory, a bad pivot), every texture taken inside it
    and not yet given back: an error leaves no texture behind.
    """

    #: bytes of free textures kept (a hardware driver's; a software renderer's are host memory)
    KEEP_BYTES = 512 << 20
    KEEP_BYTES_SOFTWARE = 64 << 20

    def __init__(self, ctx, keep: int = 4, keep_bytes: int | None = None):
        self.ctx = ctx
        self.keep = keep
        self.keep_bytes = keep_bytes
        self._free: dict = {}
        self._lru: dict = {}          # id -> texture waiting in the pool, least recently given first
        self._held = 0
        self._out: dict = {}          # id -> texture handed out and not given back
        self._scopes: list = []       # one set of ids per open scope

    def _budget(self) -> int:
        if self.keep_bytes is None:
            caps = getattr(self.ctx, "caps", None)
            self.keep_bytes = self.KEEP_BYTES_SOFTWARE if caps is not None and caps.software else self.KEEP_BYTES
        return self.keep_bytes

    @staticmethod
    def _bytes(tex) -> int:
        return 4 * tex.rows * tex.cols * tex.components

    def take(self, rows: int, cols: int, what: str = "matrix", components: int = 1) -> MatrixTexture:
        free = self._free.get((rows, cols, components))
        if free:
            tex = free.pop()
            self._lru.pop(id(tex), None)
            self._held -= self._bytes(tex)
        else:
            tex = MatrixTexture(self.ctx, rows, cols, what=what, components=components)
        self._out[id(tex)] = tex
        for scope in self._scopes:
            scope.add(id(tex))
        return tex

    def give(self, *textures: MatrixTexture) -> None:
        for tex in textures:
            if tex is None or tex.tex is None:
                continue
            if self._out.pop(id(tex), None) is None and id(tex) in self._lru:
                continue              # given twice: keep one copy in the pool
            bucket = self._free.setdefault((tex.rows, tex.cols, tex.components), [])
            if len(bucket) >= self.keep:
                tex.release()
                continue
            bucket.append(tex)
            self._lru[id(tex)] = tex
            self._held += self._bytes(tex)
            self._shrink(keep=tex)

    def _shrink(self, keep=None) -> None:
        """Release the least recently given textures until the pool holds keep_bytes
        (the one just given back stays: a loop over one large matrix still reuses it)."""
        budget = self._budget()
        while self._held > budget and len(self._lru) > (1 if keep is not None else 0):
            i, old = next(iter(self._lru.items()))
            if old is keep:
                break
            del self._lru[i]
            self._free[(old.rows, old.cols, old.components)].remove(old)
            self._held -= self._bytes(old)
            old.release()

    @property
    def held_bytes(self) -> int:
        """Bytes of the textures waiting in the pool."""
        return self._held

    @property
    def outstanding(self) -> int:
        """Textures handed out and not given back (a leak if it grows across calls)."""
        return len(self._out)

    def scope(self) -> FailureScope:
        """Context manager: on an exception, give back what was taken inside."""
        return FailureScope(self, self.give)

    def trim(self) -> None:
        """Release the textures waiting in the pool (those handed out stay)."""
        for tex in self._lru.values():
            tex.release()
        self._free.clear()
        self._lru.clear()
        self._held = 0

    def release(self) -> None:
        self.trim()
        for tex in self._out.values():
            tex.release()
        self._out.clear()

    def __len__(self):
        return len(self._lru)
