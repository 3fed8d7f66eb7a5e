"""Vertex data on the GPU: the figures' tables, uploaded once and drawn by span.

A `figures.Geometry` (corners, triangles, label, names, vertices) is uploaded
either into a `VertexStore` -- all the tables of one algorithm run in one buffer,
placed before the loop so the loop itself uploads nothing -- or, for a one-off
draw, into a scratch buffer.  `GeometryStore` is the context's keeper of both.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .programs import VERTEX_FLOATS, VERTEX_FORMAT


@dataclass
class Span:
    """A geometry placed in a VertexStore: draw `count` vertices from `first`."""

    store: "VertexStore"
    first: int
    count: int
    geometry: object        # a figures.Geometry


class VertexStore:
    """All vertex tables of one algorithm run in one GL buffer, uploaded once."""

    def __init__(self, gl, geometries):
        self.gl = gl
        tables, spans, first = [], [], 0
        for g in geometries:
            v = g.vertices
            tables.append(v)
            spans.append(Span(self, first, len(v), g))
            first += len(v)
        data = np.concatenate(tables) if tables else np.zeros((0, VERTEX_FLOATS), np.float32)
        if not len(data):                  # GL buffers cannot be empty; nothing draws from this one
            data = np.zeros((3, VERTEX_FLOATS), np.float32)
        self.buffer = gl.buffer(np.ascontiguousarray(data, np.float32).tobytes())
        self.spans = spans
        self.steps = None            # cached_steps: the spans grouped per step
        self._vaos: dict = {}

    def vao(self, program):
        """The vertex array binding this buffer to a compiled program (one per program)."""
        vao = self._vaos.get(id(program))
        if vao is None:
            vao = self.gl.vertex_array(program, [(self.buffer,) + VERTEX_FORMAT], skip_errors=True)
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


class GeometryStore:
    """A context's vertex data: cached stores (kept across calls, most recent
    first to stay), per-step tables of long loops, and the scratch buffer of
    one-off draws."""

    #: cached stores kept (an LP iteration or a public call uses a dozen or so)
    KEEP_STORES = 32
    #: per-step tables kept (one per algorithm run shape)
    KEEP_STEPS = 8

    def __init__(self, gl):
        self.gl = gl
        self._stores: dict = {}
        self._step_stores: dict = {}           # cached_steps: apart from _stores
        self._scratch = None
        self._scratch_vaos: dict = {}

    def store(self, geometries) -> VertexStore:
        """A new VertexStore holding `geometries` (the caller releases it)."""
        return VertexStore(self.gl, list(geometries))

    def cached_store(self, key, build) -> VertexStore:
        """A VertexStore kept across calls (e.g. one LP iteration after another);
        `build()` returns the geometries and runs only when `key` is not cached."""
        st = self._stores.pop(key, None)
        if st is None:
            st = self.store(build())
        self._stores[key] = st
        while len(self._stores) > self.KEEP_STORES:
            self._stores.pop(next(iter(self._stores))).release()
        return st

    def cached_steps(self, key, build):
        """An algorithm's per-step tables, uploaded once and kept across calls:
        `build()` returns a list of steps, each a tuple of geometries (or None for
        a draw the step skips); returned with Spans in place of geometries.
        `build` runs only when the key is not cached -- for long loops making the
        tables costs more host time than drawing them."""
        store = self._step_stores.pop(key, None)
        if store is None:
            steps = build()
            store = self.store([g for st in steps for g in st if g is not None])
            spans = iter(store.spans)
            store.steps = [tuple(None if g is None else next(spans) for g in st) for st in steps]
        # kept apart from cached_store's entries: the draws inside the loop that uses
        # these steps make cached stores of their own, which must not evict them
        self._step_stores[key] = store
        while len(self._step_stores) > self.KEEP_STEPS:
            self._step_stores.pop(next(iter(self._step_stores))).release()
        return store.steps

    def scratch(self, geom, program):
        """(vao, first, count) of a one-off geometry written to the scratch buffer."""
        data = geom.vertices
        if self._scratch is None or self._scratch.size < data.nbytes:
            self._release_scratch()
            self._scratch = self.gl.buffer(reserve=max(4096, 2 * data.nbytes))
        self._scratch.write(data.tobytes())
        vao = self._scratch_vaos.get(id(program))
        if vao is None:
            vao = self.gl.vertex_array(program, [(self._scratch,) + VERTEX_FORMAT], skip_errors=True)
            self._scratch_vaos[id(program)] = vao
        return vao, 0, len(data)

    def _release_scratch(self) -> None:
        for vao in self._scratch_vaos.values():
            vao.release()
        self._scratch_vaos.clear()
        if self._scratch is not None:
            self._scratch.release()
            self._scratch = None

    def release(self) -> None:
        for st in (*self._stores.values(), *self._step_stores.values()):
            st.release()
        self._stores.clear()
        self._step_stores.clear()
        self._release_scratch()
