"""Choosing the EGL device: listing them leaves the thread's own context current (the
probe contexts are made current as they are created: without restoring it, the next
call's uploads went to a released context and the factor was wrong -- found on the H100
as 'pivot 0 not positive' after LocalGLCluster listed the devices)."""
import numpy as np
import pytest

import glgpgpu
from bounds import spd


@pytest.mark.parametrize("method", ["paper", "blocked", "compute"])
def test_listing_devices_leaves_the_context_current(ctx, method):
    A = spd(130, 1e2, np.random.default_rng(0))
    before = glgpgpu.cholesky(A, method=method, ctx=ctx)
    found = glgpgpu.gl.devices()
    assert found and found[0][0] == 0 and isinstance(found[0][1], str)
    assert np.array_equal(glgpgpu.cholesky(A, method=method, ctx=ctx), before)


def test_a_missing_device_is_named(monkeypatch):
    n = len(glgpgpu.gl.devices())
    with pytest.raises(ValueError, match=f"no EGL device {n}.*devices found: 0: "):
        glgpgpu.Context(device=n)
    with pytest.raises(ValueError, match="device index"):
        glgpgpu.Context(device=-1)
    monkeypatch.setenv("GLGPGPU_DEVICE", str(n))
    with pytest.raises(ValueError, match="GLGPGPU_DEVICE"):
        glgpgpu.Context()
