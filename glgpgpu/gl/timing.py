"""A small stopwatch for the breakdowns that wls / lp / benchmarks report."""
from __future__ import annotations

import time
from collections import defaultdict
from contextlib import contextmanager


class Stopwatch:
    """Accumulates seconds per phase; `sync=True` waits for the GPU at each phase
    end so GPU work is charged to the phase that issued it."""

    def __init__(self, ctx=None, *, enabled: bool = True, sync: bool = True):
        self.ctx = ctx
        self.enabled = enabled
        self.sync = sync
        self.seconds = defaultdict(float)

    @contextmanager
    def __call__(self, phase: str):
        if not self.enabled:
            yield
            return
        t0 = time.perf_counter()
        try:
            yield
        finally:
            if self.sync and self.ctx is not None:
                self.ctx.finish()
            self.seconds[phase] += time.perf_counter() - t0

    def as_dict(self) -> dict:
        return dict(self.seconds)


class GPUTimer:
    """A GL timer query: `with timer:` brackets draws; `.seconds` is the GPU's own
    time for them (not the host's issue time).  One query object per timer,
    reused (moderngl cannot release queries)."""

    def __init__(self, ctx):
        self._query = ctx.gl.query(time=True)

    def __enter__(self):
        self._query.__enter__()
        return self

    def __exit__(self, *exc):
        self._query.__exit__(*exc)

    @property
    def seconds(self) -> float:
        return self._query.elapsed * 1e-9
