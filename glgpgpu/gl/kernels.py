"""Kernels: the program cache of a context and the one place that issues draw calls.

Programs (programs.py) are compiled once per context and cached by name.
`Kernels.draw` binds the target framebuffer (which sets the viewport to the
target's size), sets the orthographic projection, binds the input textures and
draws the triangles.  Geometry is either a `figures.Geometry` (any object with
corners, triangles, label, names, vertices; uploaded to a scratch buffer) or a
`Span` of a `VertexStore`, where an algorithm puts all of its vertex tables once, before
its loop, so the loop itself uploads and allocates nothing.

An optional `Recorder` keeps every draw: kernel, target, vertices, and the
number of fragments generated (an occlusion query, samples passed).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import moderngl

from .programs import Program, VERTEX_FORMAT, VERTEX_FLOATS
from .textures import GridTarget, TexturePool


@dataclass
class Span:
    """A geometry placed in a VertexStore: draw `count` vertices from `first`."""

    store: "VertexStore"
    first: int
    count: int
    geometry: object        # a figures.Geometry


class VertexStore:
    """All vertex tables of one algorithm run in one GL buffer, uploaded once."""

    def __init__(self, kernels: "Kernels", geometries):
        self.kernels = kernels
        tables, spans, first = [], [], 0
        for g in geometries:
            v = g.vertices
            tables.append(v)
            spans.append(Span(self, first, len(v), g))
            first += len(v)
        data = np.concatenate(tables) if tables else np.zeros((3, VERTEX_FLOATS), np.float32)
        self.buffer = kernels.gl.buffer(np.ascontiguousarray(data, np.float32).tobytes())
        self.spans = spans
        self._vaos: dict = {}

    def vao(self, program: moderngl.Program):
        vao = self._vaos.get(id(program))
        if vao is None:
            vao = self.kernels.gl.vertex_array(program, [(self.buffer,) + VERTEX_FORMAT],
                                               skip_errors=True)
            self._vaos[id(program)] = vao
        return vao

    def release(self) -> None:
        for vao in self._vaos.values():
            vao.release()
        self._vaos.clear()
        if self.buffer is not None:
            self.buffer.release()
            self.buffer = None

    def __getitem__(self, i) -> Span:
        return self.spans[i]

    def __len__(self):
        return len(self.spans)


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


@dataclass
class Recorder:
    """Collects a DrawRecord per draw while attached (`with kernels.recording()`)."""

    draws: list = field(default_factory=list)
    snapshots: bool = False          # also keep a copy of the target after each draw
    images: list = field(default_factory=list)

    def fragments(self, kernel: str | None = None) -> int:
        return sum(d.fragments for d in self.draws if kernel is None or d.kernel == kernel)

    def count(self, kernel: str | None = None) -> int:
        return sum(1 for d in self.draws if kernel is None or d.kernel == kernel)


class Kernels:
    """Program cache + draw call for one Context."""

    #: texels of render targets drawn before draw() waits for the GPU (see __init__)
    QUEUE_LIMIT = 1 << 29

    def __init__(self, ctx):
        self.ctx = ctx
        self.gl = ctx.gl
        self._programs: dict = {}
        self._scratch = None
        self._scratch_vaos: dict = {}
        self.recorder: Recorder | None = None
        self._stores: dict = {}
        self._step_stores: dict = {}           # cached_steps: apart from _stores
        self._query = None
        # False: upload every draw's vertices anew (the naive way), to measure
        # what keeping the figures' tables in one static buffer saves.
        self.static_geometry = True
        self.pool = TexturePool(ctx)
        # Target texels drawn since the GPU last caught up.  The H100's GL driver
        # returned wrong results, silently, when long chains of dependent passes
        # were queued without a wait (the blocked substitution with 8192 unknowns
        # and 1024 right-hand sides: ~4e9 fragments queued; 2e9 was still right;
        # benchmarks/debug_solve.py).  Waiting every QUEUE_LIMIT texels bounds it.
        self.queued = 0
        # which writes a memory barrier after an image-storing draw covers (GL's
        # barrier bits; all by default -- benchmarks/qr_draw_costs.py measures fewer)
        self.barrier_bits = 0xFFFFFFFF

    def program(self, name: str, defines: dict | None = None) -> Program:
        key = (name, tuple(sorted(defines.items()))) if defines else name   # plain name: the common, fast case
        p = self._programs.get(key)
        if p is None:
            p = self._programs[key] = Program(self.gl, name, defines)
        return p

    # -- storage buffers (blocked path) ------------------------------------------------
    def scratch_buffer(self, slot: str, nbytes: int):
        """A storage buffer of at least nbytes, kept per slot and reused across calls.
        The caller is about to overwrite it: queued draws may still read it through
        the storage-buffer path, so wait for them first (a GB-sized operand's copy
        raced ahead of the draws before it on the H100: the 32768 L L^T's tile (3, 1)
        came back wrong; see benchmarks/debug_thesis.py)."""
        self.wait()
        cache = self.__dict__.setdefault("_buffers", {})
        buf = cache.get(slot)
        if buf is None or buf.size < nbytes:
            if buf is not None:
                buf.release()
            buf = cache[slot] = self.gl.buffer(reserve=nbytes)
        return buf

    def wait(self) -> None:
        """Let the GPU catch up with everything queued (glFinish)."""
        if self.queued:
            self.gl.finish()
            self.queued = 0

    def grid(self, cols: int, rows: int) -> GridTarget:
        """An attachment-less target of cols x rows fragments, kept per size."""
        cache = self.__dict__.setdefault("_grids", {})
        g = cache.get((cols, rows))
        if g is None:
            g = cache[(cols, rows)] = GridTarget(self.ctx, cols, rows, f"block grid {cols}x{rows}")
        return g

    # -- vertex data ---------------------------------------------------------------
    def store(self, geometries) -> VertexStore:
        return VertexStore(self, list(geometries))

    def cached_store(self, key, build):
        """A VertexStore kept across calls (e.g. one LP iteration after another).

        `build()` returns the geometries; a few recent keys are kept."""
        st = self._stores.pop(key, None)
        if st is None:
            st = self.store(build())
        self._stores[key] = st
        while len(self._stores) > 32:         # an LP iteration or a public call uses a dozen or so
            old = next(iter(self._stores))
            self._stores.pop(old).release()
        return st

    def cached_steps(self, key, build):
        """An algorithm's per-step tables, uploaded once and kept across calls:
        `build()` returns a list of steps, each a tuple of geometries (or None for
        a draw the step skips); returned with Spans in place of geometries.
        `build` runs only when the key is not cached -- for long loops making the
        tables costs more host time than drawing them."""
        made = {}

        def flat():
            made["steps"] = build()
            return [g for st in made["steps"] for g in st if g is not None]

        # kept apart from cached_store's entries: the draws inside the loop that uses
        # these steps make cached stores of their own, which must not evict them
        store = self._step_stores.pop(key, None) or self.store(flat())
        self._step_stores[key] = store
        while len(self._step_stores) > 8:
            self._step_stores.pop(next(iter(self._step_stores))).release()
        if not hasattr(store, "steps"):
            spans = iter(store.spans)
            store.steps = [tuple(None if g is None else next(spans) for g in st) for st in made["steps"]]
        return store.steps

    def _scratch_span(self, geom, program: Program):
        data = geom.vertices
        if self._scratch is None or self._scratch.size < data.nbytes:
            for vao in self._scratch_vaos.values():
                vao.release()
            self._scratch_vaos.clear()
            if self._scratch is not None:
                self._scratch.release()
            self._scratch = self.gl.buffer(reserve=max(4096, 2 * data.nbytes))
        self._scratch.write(data.tobytes())
        vao = self._scratch_vaos.get(id(program))
        if vao is None:
            vao = self.gl.vertex_array(program.prog, [(self._scratch,) + VERTEX_FORMAT], skip_errors=True)
            self._scratch_vaos[id(program)] = vao
        return vao, 0, len(data)

    # -- the draw call ----------------------------------------------------------------
    def draw(self, kernel: str, target, geometry, inputs=None, uniforms=None, images=None,
             defines=None, buffers=None, weight: int = 1, barrier: bool = True) -> None:
        """Run `kernel` over the fragments `geometry` covers in `target`.

        inputs: {sampler name: MatrixTexture}; uniforms: {name: value};
        images: {image name: MatrixTexture} for kernels that load/store (blocked
        path), after which a memory barrier makes the stores visible to the next draw;
        buffers: {binding: moderngl.Buffer} read as shader storage buffers.
        weight: the work of one target texel relative to a light pass (e.g. the
        inner-loop length of a product), so heavy draws count fully toward QUEUE_LIMIT.
        barrier=False: no memory barrier after an image-storing draw -- for a run of
        draws that store to disjoint places and read nothing the others store (the
        caller calls `barrier()` after the run).
        """
        self.ctx.make_current()         # never draw on a context that is not current here
        prog = self.program(kernel, defines)
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
                tex.tex.bind_to_image(prog.images[name], read=True, write=True)
        if buffers:
            for binding, buf in buffers.items():
                buf.bind_to_storage_buffer(binding)
        target.fbo.use()   # also sets the viewport to the whole target
        prog.set_projection((target.cols, target.rows))
        if isinstance(geometry, Span) and self.static_geometry:
            vao, first, count = geometry.store.vao(prog.prog), geometry.first, geometry.count
            geom = geometry.geometry
        elif isinstance(geometry, Span):
            geom = geometry.geometry
            vao, first, count = self._scratch_span(geom, prog)
        else:
            vao, first, count = self._scratch_span(geometry, prog)
            geom = geometry
        self.queued += target.cols * target.rows * max(1, int(weight))
        if self.queued > self.QUEUE_LIMIT:
            self.wait()
        rec = self.recorder
        if rec is None:
            vao.render(moderngl.TRIANGLES, vertices=count, first=first)
            if images and barrier:
                self.gl.memory_barrier(self.barrier_bits)
            return
        if self._query is None:       # one query object, reused (moderngl cannot release queries)
            self._query = self.gl.query(samples=True)
        query = self._query
        with query:
            vao.render(moderngl.TRIANGLES, vertices=count, first=first)
        if images and barrier:
            self.gl.memory_barrier(self.barrier_bits)
        rec.draws.append(DrawRecord(kernel, getattr(target, "name", "?"), (target.cols, target.rows),
                                    geom.label, geom.corners.copy(), tuple(geom.triangles),
                                    geom.names, int(query.samples)))
        if rec.snapshots:
            rec.images.append(target.read())

    def barrier(self) -> None:
        """Make every image store so far visible to later draws and transfers (after a
        run of draw(..., barrier=False))."""
        self.gl.memory_barrier(self.barrier_bits)

    def recording(self, snapshots: bool = False):
        """Context manager: record every draw issued inside it."""
        kernels = self

        class _Rec:
            def __enter__(self):
                self.prev = kernels.recorder
                kernels.recorder = Recorder(snapshots=snapshots)
                return kernels.recorder

            def __exit__(self, *exc):
                kernels.recorder = self.prev

        return _Rec()

    def release(self) -> None:
        for buf in self.__dict__.get("_buffers", {}).values():
            buf.release()
        for g in self.__dict__.get("_grids", {}).values():
            g.release()
        for st in (*self._stores.values(), *self._step_stores.values()):
            st.release()
        self._stores.clear()
        self._step_stores.clear()
        for vao in self._scratch_vaos.values():
            vao.release()
        self._scratch_vaos.clear()
        if self._scratch is not None:
            self._scratch.release()
            self._scratch = None
        for p in self._programs.values():
            p.prog.release()
        self._programs.clear()
        self.pool.release()
