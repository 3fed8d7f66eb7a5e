"""Kernels: the one place that issues draw calls (and compute dispatches).

`Kernels.draw` binds the target framebuffer (which sets the viewport to the
target's size), sets the orthographic projection, binds the input textures and
draws the triangles.  Geometry is either a `figures.Geometry` (uploaded to the
geometry store's scratch buffer) or a `Span` of a `VertexStore`, where an
algorithm puts all of its vertex tables once, before its loop, so the loop
itself uploads and allocates nothing.  `Kernels.dispatch` runs a compute kernel
over a grid of workgroups with the same bindings, recorder and debug checks.

An optional `Recorder` keeps every draw: kernel, target, vertices, and the
number of fragments generated (an occlusion query, samples passed).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import moderngl

from ..errors import GLDebugError
from .geometry import GeometryStore, Span
from .programs import ProgramCache, debug_enabled
from .textures import GridTarget


@dataclass
class DrawRecord:
    kernel: str
    target: str
    size: tuple             # (width, height) of the target
    label: str
    corners: np.ndarray     # the figure's vertices with T0, T1
    triangles: tuple
    names: tuple
    fragments: int = -1     # samples passed, from an occlusion query
    inputs: dict = field(default_factory=dict)     # {sampler: (Recorder.key, its name then)}
    uniforms: dict = field(default_factory=dict)   # {name: value} set for this draw
    target_key: int = -1
    primitive: str = "triangles"    # or "points" (figures.points)
    blend: bool = False             # added to the target (additive blending), not written


@dataclass
class Recorder:
    """Collects a DrawRecord per draw while attached (`with kernels.recording()`)."""

    draws: list = field(default_factory=list)
    snapshots: bool = False          # also keep a copy of the target after each draw
    images: list = field(default_factory=list)
    dispatches: list = field(default_factory=list)   # (kernel, workgroups) of compute dispatches
    contents: bool = False           # also keep each texture's contents when a draw first touches it
    textures: dict = field(default_factory=dict)     # id(texture) -> (key, texture, name, contents or None)

    def key(self, tex) -> int:
        """A small stable number for `tex` within this recording (names change: L_S and
        L_T swap roles); with `contents`, the texture is read when first seen, so a
        replay (the web page) starts from exactly what the first draw found."""
        entry = self.textures.get(id(tex))
        if entry is None:
            data = tex.read().copy() if self.contents and hasattr(tex, "read") else None
            entry = self.textures[id(tex)] = (len(self.textures), tex, getattr(tex, "name", "?"), data)
        return entry[0]

    def fragments(self, kernel: str | None = None) -> int:
        return sum(d.fragments for d in self.draws if kernel is None or d.kernel == kernel)

    def count(self, kernel: str | None = None) -> int:
        return sum(1 for d in self.draws if kernel is None or d.kernel == kernel)


class Kernels:
    """The draw call (and compute dispatch) of one context, beside its program
    cache and geometry store; also the attachment-less grid targets and the
    storage buffers the blocked kernels read."""

    #: texels of render targets drawn before draw() waits for the GPU (see __init__)
    QUEUE_LIMIT = 1 << 29

    def __init__(self, ctx, programs: ProgramCache, geometry: GeometryStore):
        self.ctx = ctx
        self.gl = ctx.gl
        self.programs = programs
        self.geometry = geometry
        self.recorder: Recorder | None = None
        self.debug = debug_enabled()
        self._query = None
        self._buffers: dict = {}
        self._grids: dict = {}
        # Target texels drawn since the GPU last caught up: the H100's GL driver
        # returned wrong results, silently, when long chains of dependent passes were
        # queued without a wait (benchmarks/RESULTS.md, "driver hazards"), so draw()
        # waits every QUEUE_LIMIT texels.
        self.queued = 0
        # which writes a memory barrier after an image-storing draw covers (GL's barrier bits)
        self.barrier_bits = 0xFFFFFFFF

    def program(self, name: str, defines: dict | None = None):
        return self.programs.get(name, defines)

    # -- storage buffers (blocked path) ------------------------------------------------
    def scratch_buffer(self, slot: str, nbytes: int):
        """A storage buffer of at least nbytes, kept per slot and reused across calls.
        The caller is about to overwrite it: queued draws may still read it through
        the storage-buffer path, so wait for them first (a GB-sized operand's copy
        raced ahead of the draws before it on the H100: benchmarks/RESULTS.md)."""
        self.wait()
        buf = self._buffers.get(slot)
        if buf is None or buf.size < nbytes:
            if buf is not None:
                buf.release()
            buf = self._buffers[slot] = self.gl.buffer(reserve=nbytes)
        return buf

    def wait(self) -> None:
        """Let the GPU catch up with everything queued (glFinish)."""
        if self.queued:
            self.gl.finish()
            self.queued = 0

    def grid(self, cols: int, rows: int) -> GridTarget:
        """An attachment-less target of cols x rows fragments, kept per size."""
        g = self._grids.get((cols, rows))
        if g is None:
            g = self._grids[(cols, rows)] = GridTarget(self.ctx, cols, rows, f"block grid {cols}x{rows}")
        return g

    def _bind(self, prog, kernel, target, inputs, uniforms, images, buffers):
        inputs = inputs or {}
        for unit, name in enumerate(prog.samplers):
            tex = inputs.get(name)
            if tex is None:
                raise ValueError(f"kernel {kernel} needs input texture {name!r}")
            if tex is target:
                raise ValueError(f"kernel {kernel}: {name} is also the target; "
                                 "reading and writing one texture at once is undefined (ping-pong instead)")
            tex.tex.use(location=unit)
        if uniforms:
            for name, value in uniforms.items():
                prog.set_uniform(name, value)
        if images:
            for name, tex in images.items():
                if name not in prog.images:
                    raise KeyError(f"kernel {kernel} declares no image {name!r} (its images: {sorted(prog.images)})")
                tex.tex.bind_to_image(prog.images[name], read=True, write=True)
        if buffers:
            for binding, buf in buffers.items():
                buf.bind_to_storage_buffer(binding)

    def _check(self, prog, kernel: str) -> None:
        """GLGPGPU_DEBUG=1: a GL error or a declared uniform never set is named at once."""
        err = self.gl.error
        if err != "GL_NO_ERROR":
            raise GLDebugError(f"{err} after kernel {kernel}")
        unset = prog.unset_uniforms()
        if unset:
            raise GLDebugError(f"kernel {kernel} ran with uniforms never set: {unset}")

    # -- the draw call ----------------------------------------------------------------
    def draw(self, kernel: str, target, geometry, inputs=None, uniforms=None, images=None,
             defines=None, buffers=None, weight: int = 1, barrier: bool = True, blend: bool = False) -> None:
        """Run `kernel` over the fragments `geometry` covers in `target` (triangles, or
        one fragment per vertex for a geometry whose `primitive` is "points").

        inputs: {sampler name: MatrixTexture}; uniforms: {name: value};
        images: {image name: MatrixTexture} for kernels that load/store (blocked
        path), after which a memory barrier makes the stores visible to the next draw;
        buffers: {binding: moderngl.Buffer} read as shader storage buffers.
        weight: the work of one target texel relative to a light pass (e.g. the
        inner-loop length of a product), so heavy draws count fully toward QUEUE_LIMIT.
        barrier=False: no memory barrier after an image-storing draw -- for a run of
        draws that store to disjoint places and read nothing the others store (the
        caller calls `barrier()` after the run).
        blend=True: the kernel's output is added to the target (additive blending), not
        written -- for draws whose fragments land on a texel more than once.
        """
        self.ctx.make_current()         # never draw on a context that is not current here
        rec = self.recorder
        if rec is not None:       # keyed (with contents: read) before anything is bound or drawn
            keys = {name: (rec.key(tex), getattr(tex, "name", "?")) for name, tex in (inputs or {}).items()}
            rec.key(target)
        prog = self.programs.get(kernel, defines)
        self._bind(prog, kernel, target, inputs, uniforms, images, buffers)
        target.fbo.use()   # also sets the viewport to the whole target
        prog.set_projection((target.cols, target.rows))
        if isinstance(geometry, Span):
            vao, first, count = geometry.store.vao(prog.prog), geometry.first, geometry.count
            geom = geometry.geometry
        else:
            vao, first, count = self.geometry.scratch(geometry, prog.prog)
            geom = geometry
        self.queued += target.cols * target.rows * max(1, int(weight))
        if self.queued > self.QUEUE_LIMIT:
            self.wait()
        mode = moderngl.POINTS if getattr(geom, "primitive", "triangles") == "points" else moderngl.TRIANGLES
        if blend:
            self.gl.enable(moderngl.BLEND)
            self.gl.blend_func = moderngl.ONE, moderngl.ONE
        if rec is None:
            vao.render(mode, vertices=count, first=first)
        else:
            if self._query is None:       # one query object, reused (moderngl cannot release queries)
                self._query = self.gl.query(samples=True)
            with self._query:
                vao.render(mode, vertices=count, first=first)
        if blend:
            self.gl.disable(moderngl.BLEND)
        if images and barrier:
            self.gl.memory_barrier(self.barrier_bits)
        if self.debug:
            self._check(prog, kernel)
        if rec is not None:
            rec.draws.append(DrawRecord(kernel, getattr(target, "name", "?"), (target.cols, target.rows),
                                        geom.label, geom.corners.copy(), tuple(map(tuple, np.asarray(geom.triangles).tolist())),
                                        geom.names, int(self._query.samples), keys, dict(uniforms or {}),
                                        rec.key(target), getattr(geom, "primitive", "triangles"), bool(blend)))
            if rec.snapshots:
                rec.images.append(target.read())

    # -- the compute dispatch -----------------------------------------------------------
    def dispatch(self, kernel: str, groups, inputs=None, uniforms=None, images=None, buffers=None,
                 defines=None, barrier: bool = True, work: int = 1) -> None:
        """Run compute kernel `kernel` (shaders/compute/<kernel>.comp) over `groups`
        = (x, y, z) workgroups; the bindings as in draw().  barrier=True: a memory
        barrier after it, so its stores are visible to whatever comes next.
        work: threads x inner-loop length, counted toward QUEUE_LIMIT like a draw."""
        self.ctx.make_current()
        prog = self.programs.get(kernel, defines, compute=True)
        self._bind(prog, kernel, None, inputs, uniforms, images, buffers)
        gx, gy, gz = (tuple(groups) + (1, 1))[:3]
        most = self.ctx.caps.max_work_groups
        if gx > most[0] or gy > most[1] or gz > most[2]:
            # past the driver's limit GL drops the dispatch with an error nobody reads: a wrong answer
            raise ValueError(f"internal error: {kernel} asks for {(gx, gy, gz)} workgroups; this driver allows "
                             f"{most} ({self.ctx.caps.renderer})")
        self._launch(prog, kernel, (int(gx), int(gy), int(gz)), work, barrier)

    def _launch(self, prog, kernel: str, groups: tuple, work: int, barrier: bool = True) -> None:
        """One launch of a bound compute program: counted toward QUEUE_LIMIT, run, the memory
        barrier after it, checked (GLGPGPU_DEBUG) and recorded."""
        self.queued += max(1, int(work))
        if self.queued > self.QUEUE_LIMIT:
            self.wait()
        prog.prog.run(*groups)
        if barrier:
            self.gl.memory_barrier(self.barrier_bits)
        if self.debug:
            self._check(prog, kernel)
        if self.recorder is not None:
            self.recorder.dispatches.append((kernel, groups))

    def dispatch_steps(self, kernel: str, groups, step: str, values, uniforms=None, buffers=None,
                       defines=None, work: int = 1) -> None:
        """dispatch(kernel, groups, ...) once for each of `values`, uniform `step` set to it,
        everything else bound once: a chain of one kernel's steps (the QR's column steps)
        issued at the driver's pace rather than at dispatch()'s Python cost per launch.
        Each launch is followed by the memory barrier, as dispatch()'s."""
        values = list(values)
        if not values:
            return
        self.dispatch(kernel, groups, uniforms={**(uniforms or {}), step: values[0]}, buffers=buffers,
                      defines=defines, work=work)
        prog = self.programs.get(kernel, defines, compute=True)
        groups = tuple(int(g) for g in (tuple(groups) + (1, 1))[:3])
        for value in values[1:]:
            prog.set_uniform(step, value)
            self._launch(prog, kernel, groups, work)

    def barrier(self) -> None:
        """Make every image store so far visible to later draws and transfers (after a
        run of draw(..., barrier=False))."""
        self.gl.memory_barrier(self.barrier_bits)

    def recording(self, snapshots: bool = False, contents: bool = False):
        """Context manager: record every draw issued inside it (`contents`: and what
        each texture held when a draw first touched it)."""
        kernels = self

        class _Rec:
            def __enter__(self):
                self.prev = kernels.recorder
                kernels.recorder = Recorder(snapshots=snapshots, contents=contents)
                return kernels.recorder

            def __exit__(self, *exc):
                kernels.recorder = self.prev

        return _Rec()

    def release(self) -> None:
        for buf in self._buffers.values():
            buf.release()
        self._buffers.clear()
        for g in self._grids.values():
            g.release()
        self._grids.clear()
