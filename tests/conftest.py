"""One headless EGL context for the whole session (as moderngl's own tests do);
every GL test checks that it left no GL error behind."""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import glgpgpu


# Property tests: a fixed, small number of examples in CI (derandomized, so a run
# is repeatable); GLGPGPU_HYPOTHESIS_EXAMPLES=500 (say) searches wider, randomly.
_EXAMPLES = os.environ.get("GLGPGPU_HYPOTHESIS_EXAMPLES")
settings.register_profile("ci", max_examples=12, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
settings.register_profile("wide", max_examples=int(_EXAMPLES or 12), deadline=None,
                          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
settings.load_profile("wide" if _EXAMPLES else "ci")


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
