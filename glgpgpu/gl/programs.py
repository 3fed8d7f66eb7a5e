"""Shader programs: the files in `shaders/`, found by kernel name, compiled once.

A kernel is a fragment shader file, one per paper kernel, in a subfolder of
`shaders/` that mirrors the package (`paper/`, `blocked/`, `vectors/`, `teach/`,
`bench/`); `common.vert` is the one vertex shader they all share.  Kernels are
named by file stem (`outer_product_add` is `shaders/paper/outer_product_add.frag`),
so stems are unique across folders (`shader_index` checks).
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
import moderngl
from pyrr import matrix44

#: One vertex: position (2 floats), T0 (3), T1 (3) -- the layout of figures.vertex_table.
VERTEX_FORMAT = ("2f 3f 3f", "in_pos", "in_t0", "in_t1")
VERTEX_FLOATS = 8


def shader_dir() -> Path:
    """The shaders: inside the installed package, or `shaders/` of a checkout."""
    packaged = resources.files("glgpgpu") / "shaders"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "shaders"


@lru_cache(maxsize=None)
def shader_index() -> dict:
    """{file name: path} of every shader file below shaders/; names must be unique."""
    index = {}
    for path in sorted(shader_dir().rglob("*")):
        if path.suffix in (".frag", ".vert", ".glsl"):
            if path.name in index:
                raise RuntimeError(f"two shader files are named {path.name}: {index[path.name]} and {path}")
            index[path.name] = path
    return index


def shader_path(name: str) -> Path:
    """The file of a shader given its file name (`sqrt.frag`, `common.vert`)."""
    try:
        return shader_index()[name]
    except KeyError:
        raise FileNotFoundError(f"no shader file {name} below {shader_dir()}") from None


def load_shader(name: str, defines: dict | None = None) -> str:
    """Read a shader file, expand `#include "file"` lines (one level is enough)
    and put `#define NAME VALUE` lines for `defines` right after `#version`."""
    src = shader_path(name).read_text()

    def include(match):
        return shader_path(match.group(1)).read_text()

    src = re.sub(r'^#include "([^"]+)"\s*$', include, src, flags=re.M)
    if defines:
        head, _, rest = src.partition("\n")
        src = head + "\n" + "".join(f"#define {k} {v}\n" for k, v in defines.items()) + rest
    return src


class Program:
    """One compiled kernel: fragment shader + common.vert, its sampler units and uniforms."""

    def __init__(self, gl, name, defines=None):
        self.name = name
        frag = load_shader(name + ".frag", defines)
        try:
            self.prog = gl.program(vertex_shader=load_shader("common.vert"), fragment_shader=frag)
        except moderngl.Error as exc:
            raise RuntimeError(f"shader {name}.frag does not compile: {exc}") from None
        # Texture units follow the order the samplers are declared in the shader; a
        # sampler an #ifdef left out (not in the compiled program) needs no input.
        self.samplers = [s for s in re.findall(r"^uniform\s+sampler2D\s+(\w+)\s*;", frag, flags=re.M)
                         if s in self.prog]
        # image units come from the shader's own layout(binding = N)
        self.images = {name: int(unit) for unit, name in re.findall(
            r"^layout\(rgba32f,\s*binding\s*=\s*(\d+)\)\s*uniform\s+(?:\w+\s+)*image2D\s+(\w+)\s*;",
            frag, flags=re.M)}
        for unit, s in enumerate(self.samplers):
            if s in self.prog:
                self.prog[s].value = unit
        self.proj_for = None
        self.uniform_cache: dict = {}

    def set_projection(self, size):
        if self.proj_for != size:
            w, h = size
            proj = matrix44.create_orthogonal_projection(0, w, 0, h, -1, 1, dtype=np.float32)
            self.prog["u_proj"].write(proj.tobytes())
            self.proj_for = size

    def set_uniform(self, name, value):
        if self.uniform_cache.get(name) != value and name in self.prog:
            self.prog[name].value = value
            self.uniform_cache[name] = value


