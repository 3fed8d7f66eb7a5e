"""The GL context: headless EGL by default, a glfw window on request.

One `Context` owns one moderngl context plus the few facts every other layer
needs about it (`Capabilities`, read once).  Everything that creates GL objects
asks the context first whether a size fits (`check_size`), so a matrix over the
GPU's texture limit fails with a message instead of a driver error.

Threads: an OpenGL context is current on one thread at a time, and its objects
belong to it.  glgpgpu gives every thread its own default context (created on
the thread's first call, released when the thread ends), so calls from any
thread -- a worker, a thread pool, a web server -- compute on a context that is
current there, and threads run side by side.  A Context (or a texture of it)
used from a thread other than the one that created it raises
ContextThreadError instead of computing on a context that is not current.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import moderngl

from ..errors import ContextThreadError, GLUnavailableError
from . import memory, staging
from .buffers import BufferPool
from .geometry import GeometryStore
from .kernels import Kernels
from .programs import ProgramCache
from .textures import TexturePool

#: What a Debian/Ubuntu machine needs for headless rendering on the CPU.
EGL_PACKAGES = "libegl1 libegl-mesa0 libgl1-mesa-dri"
EGL_HINT = (
    "glgpgpu renders headless through EGL. Install Mesa's EGL and its software "
    f"rasterizer (Debian/Ubuntu: `sudo apt-get install {EGL_PACKAGES}`), or a GPU "
    "driver that ships an EGL vendor library (NVIDIA: libnvidia-egl / the full driver)."
)


#: caps on what every context reports, None: the driver's (glgpgpu.limits names them;
#: tests make them small so a 200-column matrix crosses what a GPU reaches at 16,384)
TEXTURE_SIZE: int | None = None
STORAGE_BLOCK: int | None = None


@dataclass(frozen=True)
class Capabilities:
    """What the driver reports, read once per context."""

    renderer: str
    vendor: str
    version: str
    version_code: int
    max_texture_size: int
    max_viewport: tuple
    float_render_targets: bool
    backend: str
    image_load_store: bool = False     # GL 4.3+: what the blocked kernels need
    max_storage_block: int = 0         # bytes one shader storage block may span (0: none)
    compute_shaders: bool = False      # GL 4.3+: what method="compute" needs
    max_work_groups: tuple = (65535, 65535, 65535)   # workgroups a dispatch may have along x, y, z

    @property
    def software(self) -> bool:
        """A software rasterizer (Mesa's llvmpipe / softpipe): textures in host memory."""
        r = self.renderer.lower()
        return any(s in r for s in ("llvmpipe", "softpipe", "swrast"))


def _probe_float_target(gl: moderngl.Context):
    """Can we render into an R32F texture and read the exact value back?

    Returns (ok, (texture, framebuffer)); the 1x1 pair is kept as the context's
    parking framebuffer (see Context.park)."""
    try:
        tex = gl.texture((1, 1), 1, dtype="f4")
        fbo = gl.framebuffer(color_attachments=[tex])
        fbo.use()
        fbo.clear(red=1.0 / 3.0)
        import numpy as np

        got = np.frombuffer(tex.read(), np.float32)[0]
        return bool(got == np.float32(1.0 / 3.0)), (tex, fbo)
    except moderngl.Error:
        return False, None


#: contexts made in this process (a forked child inherits the count: see _after_fork)
_made = 0
_forked_after_gl = False
FORK_HINT = ("this process was forked from one that had used OpenGL, and a GL driver's state does not "
             "survive fork(): a GL call here could hang. Start worker processes with multiprocessing's "
             "'spawn' or 'forkserver' method (multiprocessing.get_context('spawn')), or make the first "
             "glgpgpu call in the child only.")


def _after_fork() -> None:
    global _forked_after_gl
    if _made:
        _forked_after_gl = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


class Context:
    """A moderngl context plus capabilities and the size limits they imply.

    ``backend="egl"`` (default) needs no display; ``backend="window"`` opens a
    glfw window (used by the interactive demo).  ``max_texture_size`` may be set
    *lower* than the driver's limit, which lets tests exercise the code paths
    for "bigger than one texture" at small sizes.
    """

    def __init__(self, backend: str = "egl", *, max_texture_size: int | None = None,
                 window_size=(800, 800), title: str = "glgpgpu", device: int | None = None):
        global _made
        if _forked_after_gl:
            raise GLUnavailableError(FORK_HINT)
        _made += 1
        self.backend = backend
        self.window = None
        self.thread = threading.get_ident()         # the only thread that may use it
        self.thread_name = threading.current_thread().name
        # which EGL device (GPU): the argument, else GLGPGPU_DEVICE, else the driver's first
        self.device = _device_index(device)
        if backend == "egl":
            self.gl = _create_egl(self.device)
        elif backend == "window":
            self.gl, self.window = _create_window(window_size, title)
        else:
            raise ValueError(f"backend must be 'egl' or 'window', not {backend!r}")
        info = self.gl.info
        float_ok, self._parking = _probe_float_target(self.gl)
        driver_max = int(info["GL_MAX_TEXTURE_SIZE"])
        self.caps = Capabilities(
            renderer=info["GL_RENDERER"],
            vendor=info["GL_VENDOR"],
            version=info["GL_VERSION"],
            version_code=self.gl.version_code,
            max_texture_size=driver_max,
            max_viewport=tuple(info["GL_MAX_VIEWPORT_DIMS"]),
            float_render_targets=float_ok,
            backend=backend,
            image_load_store=self.gl.version_code >= 430,
            max_storage_block=int(info.get("GL_MAX_SHADER_STORAGE_BLOCK_SIZE", 0) or 0),
            compute_shaders=self.gl.version_code >= 430,
            max_work_groups=tuple(int(g) for g in info.get("GL_MAX_COMPUTE_WORK_GROUP_COUNT", (65535,) * 3)),
        )
        if not self.caps.float_render_targets:
            raise GLUnavailableError(
                f"{self.caps.renderer} cannot render into float32 (R32F) textures, "
                "which every kernel here needs.")
        self._texture_cap = max_texture_size
        # bytes a call may allocate; None: ask the driver (gl/memory.py)
        self.memory_budget: int | None = None
        # The engine's parts, side by side: compiled programs, vertex data, the texture
        # pool and the one draw / dispatch call (which uses the first two).
        self.programs = ProgramCache(self.gl)
        self.geometry = GeometryStore(self.gl)
        self.pool = TexturePool(self)
        # the compute method's storage buffers: what waits in their pool bounded (a process that
        # meets hundreds of sizes keeps at most this much of them); on a GPU up to a share of its
        # memory, so a second fit or factor of the same size finds its buffers (new ones cost the
        # driver's first touch); memory.require gives them back before it refuses anything
        self.buffers = BufferPool(self.gl, activate=self.make_current,
                                  keep_bytes=TexturePool.KEEP_BYTES_SOFTWARE if self.caps.software
                                  else max(TexturePool.KEEP_BYTES, (memory.total(self) or 0) // BufferPool.KEEP_SHARE),
                                  fits=lambda nbytes, live, what, new: memory.buffer_fits(self, nbytes, live, what, new))
        self.kernels = Kernels(self, self.programs, self.geometry)
        # transfers through mapped buffers (gl/staging.py): None = on hardware drivers
        # that have GL 4.5; True / False forces it (tests force it on llvmpipe), as does
        # GLGPGPU_STAGING=1 / 0 in the environment
        env = os.environ.get("GLGPGPU_STAGING", "").strip()
        self.staging: bool | None = {"1": True, "0": False}.get(env)
        self._stager = None
        _threads.current = self          # creation made it current on this thread

    def make_current(self) -> "Context":
        """Make this context the current one of the calling thread (a no-op when it
        already is); ContextThreadError if it belongs to another thread."""
        if _forked_after_gl:
            raise GLUnavailableError(FORK_HINT)
        if threading.get_ident() != self.thread:
            raise ContextThreadError(
                f"this GL context belongs to thread {self.thread_name!r}; an OpenGL context is current on "
                f"one thread only, and its textures cannot be used elsewhere. In thread "
                f"{threading.current_thread().name!r} call glgpgpu.get_context() (each thread has its own), "
                "or call glgpgpu from the thread that created this context.")
        if getattr(_threads, "current", None) is not self:
            if self.gl is None:
                raise ContextThreadError("this GL context was released; call glgpgpu.get_context() for a new one")
            self.gl.__enter__()          # moderngl: make this context current
            _threads.current = self
        return self

    def park(self) -> None:
        """Bind a framebuffer of our own.  moderngl re-binds the last used
        framebuffer after some calls; if that one was released meanwhile, GL
        reports GL_INVALID_OPERATION.  Textures park before they release."""
        if self._parking is not None:
            self._parking[1].use()

    # -- limits ----------------------------------------------------------------
    @property
    def max_texture_size(self) -> int:
        """The largest texture side used: the driver's, or less (the constructor's
        max_texture_size, glgpgpu.limits' gl.context.TEXTURE_SIZE)."""
        return min(x for x in (self.caps.max_texture_size, self._texture_cap or None, TEXTURE_SIZE) if x)

    @property
    def max_storage_block(self) -> int:
        """Bytes one shader storage block may span (0: no storage blocks): the driver's,
        or less (glgpgpu.limits' gl.context.STORAGE_BLOCK)."""
        lim = self.caps.max_storage_block
        return min(lim, STORAGE_BLOCK) if lim and STORAGE_BLOCK else lim

    #: the way past the limit for the paper path's square matrices
    TILED_HINT = ("use packed=False: the full layout stores larger matrices as tiles, with every method "
                  "(method='blocked' or 'compute', which 'auto' picks where the GPU has them, are the fast ones)")

    def check_size(self, rows: int, cols: int, what: str, hint: str | None = None) -> None:
        """Raise ValueError if a rows x cols texture does not fit on this GPU; hint:
        what else the caller could do (e.g. TILED_HINT)."""
        lim = self.max_texture_size
        if rows > lim or cols > lim:
            raise ValueError(
                f"{what} needs a {cols}x{rows} (width x height) texture, but this GPU's "
                f"maximum texture size is {lim} ({self.caps.renderer}). Use a smaller "
                "problem (for the packed format, height is m+1 when m is even)"
                + (f", or {hint}." if hint else "."))

    @property
    def stager(self):
        """The mapped transfer buffers (gl/staging.py), or None where transfers go direct."""
        want = (not self.caps.software) if self.staging is None else self.staging
        if not want or not staging.available(self.caps):
            return None
        if self._stager is None:
            self._stager = staging.Stager()
        return self._stager

    def finish(self) -> None:
        """Wait until the GPU has done everything issued so far."""
        self.gl.finish()

    def release(self) -> None:
        if self.gl is None:
            return
        self.make_current()
        for part in (self.kernels, self.geometry, self.programs, self.pool, self.buffers):
            part.release()
        if self._stager is not None:
            self._stager.release()
            self._stager = None
        if self._parking is not None:
            for obj in reversed(self._parking):
                obj.release()
            self._parking = None
        self.gl.release()
        self.gl = None
        if self.window is not None:
            import glfw

            glfw.destroy_window(self.window)
            glfw.terminate()
            self.window = None
        if getattr(_threads, "current", None) is self:
            _threads.current = None
        default = getattr(_threads, "default", None)
        if default is not None and default.ctx is self:
            _threads.default = None
        elif default is not None:
            default.ctx.make_current()      # leave the thread's default context current again


def _device_index(device) -> int:
    """The EGL device a context opens: `device`, else GLGPGPU_DEVICE, else 0."""
    if device is None:
        env = os.environ.get("GLGPGPU_DEVICE", "").strip()
        if not env:
            return 0
        try:
            device = int(env)
        except ValueError:
            raise ValueError(f"GLGPGPU_DEVICE must be a device index (0, 1, ...), got {env!r}") from None
    if isinstance(device, bool) or not isinstance(device, int) or device < 0:
        raise ValueError(f"device must be an EGL device index (0, 1, ...), got {device!r}")
    return device


def devices(most: int = 16) -> list:
    """[(index, renderer, GL version, total memory in bytes or None), ...]: the EGL devices a
    context opens on (each opened once to ask it; NVIDIA's GL_NVX_gpu_memory_info gives the
    memory)."""
    # each probe context is made current as it is created: the thread's own context is made
    # current again afterwards (else its later calls draw into a released context: wrong answers)
    current = getattr(_threads, "current", None)
    try:
        return _probe_devices(most)
    finally:
        if current is not None and current.gl is not None:
            current.gl.__enter__()


def _probe_devices(most: int) -> list:
    found = []
    for index in range(most):
        gl = None
        for version in (460, 430, 330):       # NVIDIA gives exactly the version asked for
            try:
                gl = moderngl.create_standalone_context(require=version, backend="egl", device_index=index)
                break
            except Exception as exc:          # past the last device: glcontext's "found N devices"
                if "requested device index" in str(exc):
                    break
        if gl is None:
            break
        try:
            memory = None
            if "GL_NVX_gpu_memory_info" in (gl.extensions or set()):
                from . import rawgl
                gl.__enter__()
                v = rawgl.get_integers(0x9048, 1)          # GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX, KiB
                memory = v[0] * 1024 if v and v[0] > 0 else None
            found.append((index, gl.info["GL_RENDERER"], gl.info["GL_VERSION"], memory))
        finally:
            gl.release()
    return found


def _create_egl(device: int = 0) -> moderngl.Context:
    # Ask for the newest core profile first: the faithful kernels need 3.3, the
    # blocked ones image load/store (4.3).  Some drivers (NVIDIA) hand out
    # exactly the version requested.
    error = None
    for version in (460, 450, 430, 330):
        try:
            return moderngl.create_standalone_context(require=version, backend="egl", device_index=device)
        except Exception as exc:  # glcontext raises plain Exceptions with driver text
            error = str(exc)     # a string: keeping the exception would keep its frames (and callers) alive
            if "requested device index" in error:      # no such device: name the ones there are
                listed = "; ".join(f"{i}: {r}" for i, r, _, _ in devices()) or "none"
                raise ValueError(f"there is no EGL device {device} (GLGPGPU_DEVICE or Context(device=)); "
                                 f"the devices found: {listed}") from None
    found = _older_gl_version()
    if found:                    # EGL works; the driver's OpenGL is too old for the kernels
        override = os.environ.get("MESA_GL_VERSION_OVERRIDE")
        raise GLUnavailableError(
            f"this driver's OpenGL is {found}, and glgpgpu needs OpenGL 3.3 core (4.3 for method='blocked' and "
            f"'compute')" + (f"; MESA_GL_VERSION_OVERRIDE={override} is set: unset it" if override else
                             "; update the GPU driver or use Mesa's llvmpipe (libgl1-mesa-dri)")) from None
    raise GLUnavailableError(f"could not create a headless EGL context ({error}). {EGL_HINT}") from None


def _older_gl_version() -> str:
    """The OpenGL version string of a context below 3.3, if the driver makes one ('' if not)."""
    for version in (320, 310, 300):
        try:
            gl = moderngl.create_standalone_context(require=version, backend="egl")
        except Exception:
            continue
        try:
            return gl.info["GL_VERSION"]
        finally:
            gl.release()
    return ""


def _create_window(size, title):
    try:
        import glfw
    except ImportError as exc:  # pragma: no cover - glfw is a dependency
        raise GLUnavailableError(f"glfw is not importable ({exc})") from None
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        raise GLUnavailableError(
            "a window needs a display, and DISPLAY is not set. Run headless (the default, "
            "images are written to files) or start a virtual display, e.g. `xvfb-run glgpgpu demo --window`.")
    if not glfw.init():
        raise GLUnavailableError("glfw could not initialise (no display server reachable?)")
    glfw.window_hint(glfw.CONTEXT_VERSION_MAJOR, 3)
    glfw.window_hint(glfw.CONTEXT_VERSION_MINOR, 3)
    glfw.window_hint(glfw.OPENGL_PROFILE, glfw.OPENGL_CORE_PROFILE)
    glfw.window_hint(glfw.OPENGL_FORWARD_COMPAT, True)
    win = glfw.create_window(int(size[0]), int(size[1]), title, None, None)
    if not win:
        glfw.terminate()
        raise GLUnavailableError("glfw could not open an OpenGL 3.3 core window")
    glfw.make_context_current(win)
    return moderngl.create_context(require=330), win


class _ThreadDefault:
    """A thread's default context; parked for the next new thread when the thread ends
    (CPython clears a thread's locals on that thread as it exits, where the context is
    current): a context made and released per thread leaks inside the EGL driver (Mesa:
    about 6 MB each), so finished threads hand theirs on.  Past PARKED_MAX waiting, released."""

    def __init__(self, ctx: Context, owned: bool = True):
        self.ctx, self.owned = ctx, owned        # owned: created here, so parked or released here

    def __del__(self):
        ctx = self.ctx
        if self.owned and ctx.gl is not None and threading.get_ident() == ctx.thread:
            try:
                _park(ctx)
            except Exception:       # a dying thread must not raise; the driver frees it with the process
                pass


_threads = threading.local()        # .default (_ThreadDefault), .current (Context)
_parked: list = []                  # contexts of finished threads, current nowhere, for new threads
_parked_lock = threading.Lock()
PARKED_MAX = 4


def _park(ctx: Context) -> None:
    with _parked_lock:
        keep = len(_parked) < PARKED_MAX and ctx.window is None
    if not keep:
        ctx.release()
        return
    ctx.make_current().gl.finish()
    ctx.buffers.release()                   # a parked context keeps no free storage buffers ...
    ctx.pool.trim()                         # ... nor free textures: a finished thread's memory goes back
    ctx.gl.__exit__(None, None, None)       # current on no thread now
    _threads.current = None
    _release_egl_thread()
    ctx.thread, ctx.thread_name = None, ""
    with _parked_lock:
        _parked.append(ctx)


def _release_egl_thread() -> None:
    """eglReleaseThread: the EGL state the driver keeps per thread (NVIDIA's, about 0.7 MB)
    goes with the thread, not with the process."""
    import ctypes
    try:
        ctypes.CDLL("libEGL.so.1").eglReleaseThread()
    except (OSError, AttributeError):       # no libEGL of that name: nothing to release
        pass


def _adopt() -> Context | None:
    """A parked context, now this thread's (None if none waits)."""
    with _parked_lock:
        ctx = _parked.pop() if _parked else None
    if ctx is not None:
        ctx.thread, ctx.thread_name = threading.get_ident(), threading.current_thread().name
    return ctx


def resolve(ctx: Context | None = None) -> Context:
    """`ctx`, or the calling thread's default context, made current on this thread:
    for the public entry points only (internal functions take their engine: `engine`)."""
    return (ctx or get_context()).make_current()


def engine(ctx: Context) -> Context:
    """The context an internal function was given, made current on this thread.  Only the
    public entry points turn None into the thread's default context (`resolve`)."""
    if ctx is None:
        raise TypeError("internal glgpgpu functions need the context (ctx=...); the public functions "
                        "(glgpgpu.cholesky, ...) find the thread's default one themselves")
    return ctx.make_current()


def get_context() -> Context:
    """The calling thread's default headless context (created on its first call)."""
    default = getattr(_threads, "default", None)
    if default is None or default.ctx.gl is None:
        default = _threads.default = _ThreadDefault(_adopt() or Context("egl"))
    return default.ctx.make_current()


def set_context(ctx: Context | None) -> None:
    """Make `ctx` the calling thread's default context (None drops it; the next
    call creates a new one).  The context must belong to this thread."""
    if ctx is None:
        _threads.default = None
        return
    _threads.default = _ThreadDefault(ctx.make_current(), owned=False)
