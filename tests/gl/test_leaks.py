"""Nothing created in a loop stays behind: after a warm-up call, repeated calls
create no GL objects (textures come from the pool, vertex data from the cached
store) and host memory does not grow."""
import numpy as np
import pytest

import glgpgpu


class CreationCounter:
    """Counts GL object creations on a moderngl context while installed."""

    KINDS = ("texture", "framebuffer", "buffer", "vertex_array", "program", "query")

    def __init__(self, gl):
        self.gl, self.counts, self.saved = gl, {}, {}

    def __enter__(self):
        for kind in self.KINDS:
            orig = getattr(self.gl, kind)
            self.saved[kind] = orig

            def wrapped(*a, _orig=orig, _kind=kind, **k):
                self.counts[_kind] = self.counts.get(_kind, 0) + 1
                return _orig(*a, **k)

            setattr(self.gl, kind, wrapped)
        return self

    def __exit__(self, *exc):
        for kind, orig in self.saved.items():
            setattr(self.gl, kind, orig)


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def test_adat_1000_times_allocates_nothing(ctx, rng):
    A = rng.random((6, 9))
    d2 = rng.random(9)
    configs = [("paper", False), ("paper", True), ("blocked", False), ("blocked", True)]
    refs = [glgpgpu.adat(A, d2, method=m, packed=p) for m, p in configs]
    before = rss_kib()
    with CreationCounter(ctx.gl) as cc:
        for i in range(1000):
            m, p = configs[i % 4]
            C = glgpgpu.adat(A, d2, packed=p, method=m)
            assert np.array_equal(C, refs[i % 4])
    assert cc.counts == {}, f"GL objects created inside the loop: {cc.counts}"
    grown = rss_kib() - before
    assert grown < 20_000, f"host memory grew by {grown} KiB over 1000 calls"


def test_cholesky_and_solve_repeat_without_allocating(ctx, rng):
    X = rng.random((7, 7))
    C = X @ X.T + 7 * np.eye(7)
    runs = [dict(variant="outer", method="paper"), dict(variant="inner"), dict(method="blocked"), dict(method="compute")]
    for kw in runs:
        glgpgpu.cholesky(C, **kw)
    L = glgpgpu.cholesky(C)
    for method in ("paper", "blocked", "compute"):
        glgpgpu.cho_solve(L, np.ones(7), method=method)
    with CreationCounter(ctx.gl) as cc:
        for _ in range(50):
            for kw in runs:
                glgpgpu.cholesky(C, **kw)
            for method in ("paper", "blocked", "compute"):
                glgpgpu.cho_solve(L, np.ones(7), method=method)
    assert cc.counts == {}, f"GL objects created inside the loop: {cc.counts}"


def test_the_pool_stays_bounded_over_many_sizes(rng):
    """Hundreds of distinct sizes in one process: the pool keeps at most its byte budget
    of free textures, the least recently given back released first, and the process's
    memory does not grow with the number of sizes."""
    c = glgpgpu.Context()
    try:
        c.pool.keep_bytes = 1 << 20
        for m in range(3, 43):                        # warm up: programs compiled, driver pools filled
            glgpgpu.cholesky(np.eye(m) * 2, method="paper", ctx=c)
        before = rss_kib()
        for m in range(43, 163):
            glgpgpu.cholesky(np.eye(m) * 2, method="paper", ctx=c)
            assert c.pool.held_bytes <= max(1 << 20, 4 * 4 * m * m)
        assert len(c.pool) < 30
        assert c.pool.outstanding == 0
        assert rss_kib() - before < 100 * 1024, "memory grew with the number of sizes"
    finally:
        c.release()


def test_compute_buffers_stay_bounded_and_finished_threads_give_theirs_back(ctx):
    """The storage-buffer pool keeps at most the texture pool's budget of free buffers (64 MiB
    on a software renderer) over many shapes; a thread's context parked when the thread ends
    keeps no free buffers or textures."""
    import threading

    import glgpgpu
    from glgpgpu.gl import context as gl_context
    rng = np.random.default_rng(0)
    for _ in range(60):
        m, n = (int(v) for v in rng.integers(20, 260, 2))
        glgpgpu.qr(rng.standard_normal((m, n)), method="compute")
    assert ctx.buffers._held <= ctx.buffers.keep_bytes

    def work():
        for _ in range(5):
            m = int(rng.integers(20, 200))
            glgpgpu.cholesky(np.eye(m) * 2.0, method="compute")
    t = threading.Thread(target=work)
    t.start()
    t.join()
    import gc
    gc.collect()
    assert all(c.buffers._held == 0 and c.pool.held_bytes == 0 for c in gl_context._parked)


def test_a_memory_check_gives_back_what_the_pools_keep_before_it_refuses(ctx, monkeypatch):
    """The driver counts the pools' free buffers and textures as used: memory.require gives
    them back and asks again before it refuses (so a pool that keeps a share of the GPU never
    turns a request away), refuses what does not fit even then, and with a memory_budget
    (live bytes only) leaves the pools alone."""
    from glgpgpu.errors import GPUMemoryError
    from glgpgpu.gl import memory
    budget, saved = ctx.memory_budget, ctx.buffers.keep_bytes
    try:
        ctx.memory_budget, ctx.buffers.keep_bytes = None, 64 << 20
        ctx.buffers.take(256, 256, "a probe").give()            # 256 KiB waiting in the pool
        assert memory.pooled(ctx) >= 256 << 10
        free = 1 << 20                                          # the driver's free memory, less what the pools hold
        monkeypatch.setattr(memory, "available", lambda c: (c.memory_budget, "the budget") if c.memory_budget
                            else (free - memory.pooled(c), "the test's driver"))
        with pytest.raises(GPUMemoryError, match="needs about"):
            memory.require(ctx, free + 1, "more than the GPU has")
        ctx.buffers.take(256, 256, "a probe").give()
        memory.require(ctx, free - 1024, "what fits once the pools are empty")
        assert memory.pooled(ctx) == 0
        ctx.buffers.take(256, 256, "a probe").give()
        ctx.memory_budget = free
        memory.require(ctx, free - 1024, "what fits the budget")
        assert ctx.buffers.held_bytes >= 256 << 10               # a budget's check leaves the pools as they are
    finally:
        ctx.memory_budget, ctx.buffers.keep_bytes = budget, saved
