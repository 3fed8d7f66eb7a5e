"""One headless EGL context for the whole session (as moderngl's own tests do);
every GL test checks that it left no GL error behind."""
import numpy as np
import pytest

import glgpgpu

# float32 unit roundoff: every tolerance below is a multiple of it.
U32 = 2.0 ** -24


@pytest.fixture(scope="session")
def ctx():
    c = glgpgpu.get_context()
    print(f"\nGL: {c.caps.renderer} | {c.caps.version} | max texture {c.caps.max_texture_size}")
    return c


@pytest.fixture(autouse=True)
def _no_gl_error(request):
    if "ctx" not in request.fixturenames:
        yield
        return
    c = request.getfixturevalue("ctx")
    assert c.gl.error == "GL_NO_ERROR"
    yield
    assert c.gl.error == "GL_NO_ERROR"


@pytest.fixture
def rng():
    return np.random.default_rng(20081)


def gamma(n):
    """Higham's gamma_n = n u / (1 - n u) for float32."""
    return n * U32 / (1 - n * U32)


def spd(m, cond, rng):
    """A random symmetric positive definite matrix with 2-norm condition `cond`."""
    q, _ = np.linalg.qr(rng.standard_normal((m, m)))
    ev = np.logspace(0, -np.log10(cond), m) if m > 1 else np.ones(1)
    return (q * ev) @ q.T
