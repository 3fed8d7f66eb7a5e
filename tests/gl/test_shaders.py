"""Declared kernels: every shader compiles with each define set production uses; the
program's interface comes from the driver's reflection; a misspelled uniform, a
shader that does not compile and (GLGPGPU_DEBUG=1) a uniform never set are named."""
import pytest

from glgpgpu.errors import GLDebugError, ShaderCompileError

from glgpgpu.gl.programs import Program, shader_index

#: kernel -> the define sets production compiles it with (besides none)
DEFINE_SETS = {
    "blocked_adat": [{"BR": 8, "BC": 8, "A_FROM_BUFFER": 1}, {"BR": 8, "BC": 8, "A_FROM_BUFFER": 1, "PACKED": 1},
                     {"BR": 8, "BC": 8, "FULL": 1}, {"BR": 16, "BC": 8, "A_FROM_BUFFER": 1}],
    "blocked_kernel_matrix": [{"BR": 8, "BC": 8, "A_FROM_BUFFER": 1}, {"BR": 8, "BC": 8, "FULL": 1, "COL_NORMS": 1},
                              {"BR": 8, "BC": 8, "A_FROM_BUFFER": 1, "PACKED": 1}],
    "blocked_update": [{"P": 16, "B": 4}, {"P": 16, "B": 8, "TRSM": 1}],
    "front_block_gather": [{"COMPONENTS": 1}, {"COMPONENTS": 4}],
    "blocked_panel": [{"P": 16}], "blocked_solve": [{"P": 16}], "blocked_trsm_panel": [{"P": 16}],
}
NEEDS_43 = ("blocked", "bqr_", "transpose_rgba")


def kernels():
    return sorted(p.stem for name, p in shader_index().items() if name.endswith(".frag"))


@pytest.mark.parametrize("kernel", kernels())
def test_every_kernel_compiles_with_its_define_sets(ctx, kernel):
    if kernel.startswith(NEEDS_43) and not ctx.caps.image_load_store:
        with pytest.raises(ShaderCompileError, match=kernel):      # a GL 3.3 driver names the kernel
            Program(ctx.gl, kernel)
        return
    for defines in [None, *DEFINE_SETS.get(kernel, [])]:
        p = Program(ctx.gl, kernel, defines)
        assert "u_proj" in p.prog
        p.prog.release()


def test_interface_by_reflection(ctx):
    p = ctx.programs.get("outer_product_add")
    assert sorted(p.samplers) == ["A", "C", "b"]
    if ctx.caps.image_load_store:
        q = ctx.programs.get("blocked_adat", {"BR": 8, "BC": 8, "A_FROM_BUFFER": 1})
        assert q.images == {"C": 0} and "AD" in q.samplers and "u_k0" in q.uniforms


def test_a_misspelled_uniform_is_an_error(ctx):
    p = ctx.programs.get("triangular_solve")
    with pytest.raises(KeyError, match="u_kk"):
        p.set_uniform("u_kk", 1)


def test_a_shader_that_does_not_compile_names_file_and_line(ctx, tmp_path, monkeypatch):
    (tmp_path / "broken_kernel.frag").write_text("#version 330\nout vec4 o;\nvoid main() {\n    o = vec4(1.0) + nope;\n}\n")
    monkeypatch.setenv("GLGPGPU_SHADER_PATH", str(tmp_path))
    shader_index.cache_clear()
    try:
        with pytest.raises(ShaderCompileError, match=r"broken_kernel\.frag:4"):
            Program(ctx.gl, "broken_kernel")
    finally:
        monkeypatch.delenv("GLGPGPU_SHADER_PATH")
        shader_index.cache_clear()


def test_debug_mode_names_a_uniform_never_set(monkeypatch):
    import numpy as np

    import glgpgpu
    from glgpgpu import figures as geo

    monkeypatch.setenv("GLGPGPU_DEBUG", "1")
    c = glgpgpu.Context()
    try:
        assert c.kernels.debug
        src = c.pool.take(4, 4)
        src.write(np.ones((4, 4), np.float32))
        out = c.pool.take(4, 4)
        with pytest.raises(GLDebugError, match="u_m"):
            c.kernels.draw("pack_lower", out, geo.rectangle(0, 0, 4, 4), {"S": src})
        c.kernels.draw("copy", out, geo.rectangle(0, 0, 4, 4), {"S": src})      # no uniforms: fine
    finally:
        c.release()
