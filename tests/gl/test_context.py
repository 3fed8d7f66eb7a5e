"""Context, capabilities, textures and the clear errors around them."""
import re
import numpy as np
import pytest

import glgpgpu
from glgpgpu import figures as geo
from glgpgpu.errors import GLUnavailableError
from glgpgpu.gl import Context


def test_capabilities(ctx):
    c = ctx.caps
    assert c.max_texture_size >= 1024 and c.float_render_targets
    assert c.version_code >= 330


def test_texture_roundtrip_exact(ctx, rng):
    data = rng.standard_normal((5, 7)).astype(np.float32)
    data[0, 0] = np.float32(1e-38)   # a tiny normal number survives too
    with glgpgpu.MatrixTexture(ctx, 5, 7, data) as t:
        assert t.shape == (5, 7)
        assert np.array_equal(t.read(), data)
        assert np.array_equal(t.read_region(2, 1, 3, 2), data[1:3, 2:5])


def test_texture_size_limit_is_a_clear_error(ctx):
    lim = ctx.max_texture_size
    with pytest.raises(ValueError, match="maximum texture size"):
        glgpgpu.MatrixTexture(ctx, 1, lim + 1)


def test_m_over_limit_names_the_limit(rng):
    """The packed layout lives in one texture: past the limit its error names it (the
    full layout goes to tiles instead, tests/api/test_tiled.py)."""
    small = Context(max_texture_size=8)
    try:
        A = rng.random((9, 3))
        with pytest.raises(ValueError, match="maximum texture size is 8"):
            glgpgpu.adat(A, np.ones(3), method="paper", packed=True, ctx=small)
        # m = 8 fits the full format but not the packed one (height m + 1 = 9)
        glgpgpu.adat(A[:8], np.ones(3), method="paper", ctx=small)
        with pytest.raises(ValueError, match="height is m\\+1"):
            glgpgpu.adat(A[:8], np.ones(3), packed=True, method="paper", ctx=small)
    finally:
        small.release()


def test_no_egl_gives_one_clear_error(monkeypatch):
    import moderngl

    def broken(*a, **k):
        raise Exception("eglGetDisplay failed")

    monkeypatch.setattr(moderngl, "create_standalone_context", broken)
    with pytest.raises(GLUnavailableError, match="apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri"):
        Context()


def test_window_without_display_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(GLUnavailableError, match="DISPLAY"):
        Context("window")


def test_gl_rasterizer_matches_numpy_coverage(ctx):
    """The real rasterizer covers exactly what geometry.rasterize says."""
    for m in (5, 6):
        lay = glgpgpu.PackedLayout(m)
        cases = [(geo.fig2b_outer_product_add(m, 1), m, m),
                 (geo.fig4_packed_outer_product_add(m, 1), lay.w, lay.h),
                 (geo.fig5_outer_product_sub(m, 1), m, m),
                 (geo.packed_outer_product_sub(m, 1), lay.w, lay.h),
                 (geo.packed_outer_product_sub(m, m - 2), lay.w, lay.h),
                 (geo.rectangle(0, 0, m, 1), m, 1)]
        for g, w, h in cases:
            with glgpgpu.MatrixTexture(ctx, h, w) as t:
                t.clear(0)
                ctx.kernels.draw("constant", t, g, uniforms={"u_value": 1.0})
                count, _, _ = geo.rasterize(g, w, h)
                assert np.array_equal(t.read(), count.astype(np.float32)), g.label


def test_feedback_loop_is_refused(ctx):
    with glgpgpu.MatrixTexture(ctx, 2, 2) as t:
        with pytest.raises(ValueError, match="ping-pong"):
            ctx.kernels.draw("copy", t, geo.rectangle(0, 0, 2, 2), {"S": t})


def test_info_command(capsys):
    from glgpgpu.cli import main

    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "max texture size" in out
    assert re.search(r"float32 render targets +yes", out)
    assert re.search(r"transfers +(direct|through mapped buffers)", out)


def test_an_old_opengl_is_named_with_the_version_needed(monkeypatch):
    """A driver whose OpenGL is below 3.3: the error names the version found and the one
    needed, not missing EGL packages (the driver faked: no 3.3 context, a 3.0 one)."""
    from glgpgpu.gl import context as gl_context

    class Old:
        info = {"GL_VERSION": "3.0 Fake"}

        def release(self):
            pass

    def create(require, backend):
        if require >= 330:
            raise RuntimeError("eglCreateContext failed (0x3009)")
        return Old()

    monkeypatch.setattr(gl_context.moderngl, "create_standalone_context", create)
    monkeypatch.delenv("MESA_GL_VERSION_OVERRIDE", raising=False)
    with pytest.raises(GLUnavailableError) as err:
        gl_context._create_egl()
    text = str(err.value)
    assert "OpenGL is 3.0 Fake" in text and "3.3" in text and "apt-get" not in text
    monkeypatch.setenv("MESA_GL_VERSION_OVERRIDE", "3.0")
    with pytest.raises(GLUnavailableError, match="MESA_GL_VERSION_OVERRIDE=3.0 is set"):
        gl_context._create_egl()


def test_mesa_held_at_opengl_3_0(tmp_path):
    """The same with the real driver: Mesa held at 3.0 by MESA_GL_VERSION_OVERRIDE names it;
    another vendor's driver ignores the variable and makes its context."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, MESA_GL_VERSION_OVERRIDE="3.0")
    proc = subprocess.run([sys.executable, "-c", "import glgpgpu; glgpgpu.get_context()"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    if "Mesa" in glgpgpu.get_context().caps.version:
        assert proc.returncode != 0
        assert "OpenGL is 3.0" in proc.stderr and "3.3" in proc.stderr and "apt-get" not in proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr[-500:]
