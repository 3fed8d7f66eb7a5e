"""Every public call works from any thread: each thread computes on a GL context
that is current there (its own), results equal a single-threaded run, and a
context or texture carried into another thread is refused with a clear error."""
import threading
import time

import numpy as np
import pytest

import glgpgpu
from glgpgpu.errors import ContextThreadError
from support import run_in_thread


def spd_sample(m, seed):
    rng = np.random.default_rng(seed)
    X = rng.random((m, m))
    return X @ X.T + m * np.eye(m)


def test_worker_first_then_main_thread(ctx):
    """The first call of a process from a worker, later calls from the main thread:
    correct numbers in both (once silently wrong: the main thread had no current context)."""
    A = np.arange(35, dtype=np.float64).reshape(5, 7) % 4
    d2 = np.ones(7)
    want = np.tril((A * d2) @ A.T).astype(np.float32)
    assert np.array_equal(run_in_thread(glgpgpu.adat, A, d2), want)
    assert np.array_equal(glgpgpu.adat(A, d2), want)
    L = glgpgpu.cholesky(2 * np.eye(3))
    assert np.allclose(L, np.sqrt(2) * np.eye(3))


def _mixed_calls(seed):
    """A few of every public call, deterministic given the seed."""
    rng = np.random.default_rng(seed)
    m = 3 + seed % 5
    A = rng.random((m, 2 * m))
    d2 = rng.random(2 * m) + 0.5
    C = spd_sample(m, seed)
    out = [glgpgpu.adat(A, d2, method="paper"), glgpgpu.adat(A, d2, packed=True, method="paper")]
    for method in ("paper", "blocked", "compute"):
        L = glgpgpu.cholesky(C, method=method)
        out += [L, glgpgpu.cho_solve(L, np.ones(m), method=method),
                glgpgpu.solve_triangular(L, np.ones((m, 2)), trans=True, method=method)]
    out.append(glgpgpu.cholesky(C, packed=True, variant="inner", method="paper"))
    out.append(glgpgpu.wls(A, d2, rng.random(2 * m), method="paper")[0])
    return out


def test_thread_stress_equals_single_thread(ctx):
    """Several threads x many calls at once: every result bit-for-bit equal to
    the same call made alone in the main thread."""
    seeds = list(range(8))
    want = {s: _mixed_calls(s) for s in seeds}
    got, errors = {}, []

    def worker(my_seeds):
        try:
            for _ in range(3):
                for s in my_seeds:
                    got.setdefault(s, []).append(_mixed_calls(s))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(seeds[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not errors, errors
    for s in seeds:
        assert len(got[s]) == 3
        for run in got[s]:
            for a, b in zip(run, want[s]):
                assert np.array_equal(a, b)


def test_two_threads_factor_at_once(ctx):
    C = spd_sample(12, 3)
    want = glgpgpu.cholesky(C, method="paper")
    results = [None, None]
    barrier = threading.Barrier(2)

    def work(i):
        barrier.wait()
        results[i] = [glgpgpu.cholesky(C, method="paper") for _ in range(5)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    for r in results:
        assert r is not None and all(np.array_equal(L, want) for L in r)


def test_a_context_from_another_thread_is_refused(ctx):
    with pytest.raises(ContextThreadError, match="belongs to thread"):
        run_in_thread(lambda: glgpgpu.adat(np.ones((2, 2)), np.ones(2), ctx=ctx))
    tex = ctx.pool.take(2, 2)
    try:
        with pytest.raises(ContextThreadError, match="get_context"):
            run_in_thread(tex.read)
    finally:
        ctx.pool.give(tex)


def test_a_finished_threads_context_goes_to_the_next_thread(ctx, rng):
    """Each thread has its own context; when the thread ends its context is parked (current
    nowhere) and the next new thread adopts it -- a context made per thread leaks in the
    driver -- and what the adopting thread computes is right."""
    from glgpgpu.gl import context as gl_context

    other = run_in_thread(lambda: glgpgpu.get_context())
    for _ in range(200):          # the thread's locals are cleared as it exits, just after join
        if other in gl_context._parked:
            break
        time.sleep(0.01)
    assert other is not ctx and other in gl_context._parked and other.thread is None
    with pytest.raises(ContextThreadError):
        other.make_current()                      # parked: no thread's
    A = rng.standard_normal((5, 7)).astype(np.float32)
    again, C = run_in_thread(lambda: (glgpgpu.get_context(), glgpgpu.adat(A, np.ones(7, np.float32))))
    assert again is other
    assert np.array_equal(C, glgpgpu.adat(A, np.ones(7, np.float32)))


def test_short_lived_threads_do_not_grow_memory(ctx):
    """500 threads with one call each: RSS grows by less than 100 MB (each made its own
    context before, about 6 MB each inside Mesa)."""
    import os

    def rss_mb():
        return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20

    A = np.ones((4, 6), np.float32)
    run_in_thread(lambda: glgpgpu.adat(A, np.ones(6, np.float32)))
    before = rss_mb()
    for _ in range(500):
        t = threading.Thread(target=lambda: glgpgpu.adat(A, np.ones(6, np.float32)))
        t.start()
        t.join()
    assert rss_mb() - before < 100
