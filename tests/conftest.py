"""One headless EGL context for the whole session (as moderngl's own tests do);
every GL test checks that it left no GL error behind."""
import numpy as np
import pytest

import glgpgpu


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
