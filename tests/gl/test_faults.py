"""Texture allocation failing midway (a driver out of memory): every public call
raises a clear GLResourceError, gives back every texture it had taken, and the
next call computes the right answer."""
import moderngl
import numpy as np
import pytest

import glgpgpu
from glgpgpu.errors import GLResourceError
from support import run_in_thread


class FailingAllocator:
    """ctx.gl.texture that succeeds `budget` times, then fails like a driver out of memory."""

    def __init__(self, gl, budget):
        self.gl, self.budget, self.calls = gl, budget, 0
        self.orig = gl.texture

    def __enter__(self):
        def texture(*a, **k):
            self.calls += 1
            if self.calls > self.budget:
                raise moderngl.Error("GL_OUT_OF_MEMORY (simulated)")
            return self.orig(*a, **k)

        self.gl.texture = texture
        return self

    def __exit__(self, *exc):
        self.gl.texture = self.orig


def _spd(m):
    X = np.arange(m * m, dtype=np.float64).reshape(m, m) % 5
    return X @ X.T + m * np.eye(m)


# Each call uses shapes no other test uses, so its textures are new allocations.
CALLS = {
    "adat paper": lambda m: glgpgpu.adat(np.ones((m, m + 2)), np.ones(m + 2), method="paper"),
    "adat blocked packed": lambda m: glgpgpu.adat(np.ones((m, m + 2)), np.ones(m + 2), packed=True, method="blocked"),
    "cholesky packed": lambda m: glgpgpu.cholesky(_spd(m), packed=True, method="paper"),
    "cholesky inner": lambda m: glgpgpu.cholesky(_spd(m), variant="inner", method="paper"),
    "cholesky blocked": lambda m: glgpgpu.cholesky(_spd(m), method="blocked"),
    "cho_solve": lambda m: glgpgpu.cho_solve(np.eye(m) * 2, np.ones((m, 3)), method="paper"),
    "wls": lambda m: glgpgpu.wls(np.eye(m, 2 * m) + 1, np.ones(2 * m), np.ones(2 * m), method="paper")[0],
    "linprog": lambda m: glgpgpu.linprog(np.arange(1.0, m + 1), A_ub=-np.ones((1, m)), b_ub=[-1.0],
                                         method="paper", device="gpu").x,
    # the sparse QR's drawn front store: atlases, column maps and block textures mid-factorization
    "sparse_qr blocked": lambda m: _sparse_r(m, "blocked"),
    "sparse_qr paper": lambda m: _sparse_r(m, "paper"),
}


def _sparse_r(m, method):
    from glgpgpu.bench.matrices import grid
    A = grid(m // 6, 2)
    return glgpgpu.sparse_qr(A, method=method, tol=-1).R.toarray()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_allocation_failure_midway_is_clean(ctx, name):
    call = CALLS[name]
    m = 37 + sorted(CALLS).index(name)          # a size of its own
    pool = ctx.pool
    failures = 0
    for budget in range(0, 12):
        pool.trim()                             # so that the call must allocate
        before = pool.outstanding
        with FailingAllocator(ctx.gl, budget) as alloc:
            try:
                call(m)
            except GLResourceError as exc:
                failures += 1
                assert "could not allocate" in str(exc) and "out of memory" in str(exc)
            else:
                break
            finally:
                assert ctx.gl.error == "GL_NO_ERROR"
        assert pool.outstanding == before, f"{name}: textures not given back after a failure at {budget}"
        assert alloc.calls > budget            # it did fail where we said
    assert failures >= 1, f"{name}: never allocated anything new (the test tests nothing)"
    # the next call is right: bit for bit what a fresh context (another thread's) computes
    assert np.array_equal(call(m), run_in_thread(call, m))


class FailingBuffers(FailingAllocator):
    """ctx.gl.buffer that succeeds `budget` times, then fails (the compute method's storage)."""

    def __init__(self, gl, budget):
        self.gl, self.budget, self.calls = gl, budget, 0
        self.orig = gl.buffer

    def __enter__(self):
        def buffer(*a, **k):
            self.calls += 1
            if self.calls > self.budget:
                raise moderngl.Error("GL_OUT_OF_MEMORY (simulated)")
            return self.orig(*a, **k)

        self.gl.buffer = buffer
        return self

    def __exit__(self, *exc):
        self.gl.buffer = self.orig


COMPUTE_CALLS = {
    "adat": lambda m: glgpgpu.adat(np.ones((m, m + 2)), np.ones(m + 2), method="compute"),
    "cholesky": lambda m: glgpgpu.cholesky(_spd(m), method="compute"),
    "cho_solve": lambda m: glgpgpu.cho_solve(np.eye(m) * 2, np.ones((m, 3)), method="compute"),
    "qr": lambda m: glgpgpu.qr(_spd(m)[:, :m - 3], method="compute")[1],
    "wls": lambda m: glgpgpu.wls(np.eye(m, 2 * m) + 1, np.ones(2 * m), np.ones(2 * m), method="compute")[0],
    "kernel_matrix": lambda m: glgpgpu.kernel_matrix(np.ones((m, 3)) * np.arange(m)[:, None], method="compute"),
}


@pytest.mark.parametrize("name", sorted(COMPUTE_CALLS))
def test_compute_allocation_failure_midway_is_clean(ctx, name):
    """The same for method='compute': every buffer taken is given back after a failure
    at any allocation, and the next call is right."""
    call = COMPUTE_CALLS[name]
    m = 57 + sorted(COMPUTE_CALLS).index(name)
    failures = 0
    for budget in range(0, 12):
        ctx.buffers.release()                   # so that the call must allocate
        before = ctx.buffers.outstanding
        with FailingBuffers(ctx.gl, budget) as alloc:
            try:
                call(m)
            except GLResourceError as exc:
                failures += 1
                assert "could not allocate" in str(exc)
            else:
                break
            finally:
                assert ctx.gl.error == "GL_NO_ERROR"
        assert ctx.buffers.outstanding == before, f"{name}: buffers not given back after a failure at {budget}"
        assert alloc.calls > budget
    assert failures >= 1
    assert np.array_equal(call(m), run_in_thread(call, m))
