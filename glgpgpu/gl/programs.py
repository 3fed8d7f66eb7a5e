"""Shader programs: the files in `shaders/`, found by kernel name, compiled once.

A kernel is a fragment shader file, one per paper kernel, in a subfolder of
`shaders/` that mirrors the package (`paper/`, `blocked/`, `vectors/`, `teach/`,
`bench/`); `common.vert` is the one vertex shader they all share.  Kernels are
named by file stem (`outer_product_add` is `shaders/paper/outer_product_add.frag`),
so stems are unique across folders (`shader_index` checks).

A compiled program declares its interface through the driver's reflection: its
samplers (texture inputs), images (load/store targets, at their `binding`) and
uniforms.  Setting a uniform the shader does not declare is an error; a shader
that does not compile raises `ShaderCompileError` naming its file and line.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
import moderngl
from pyrr import matrix44

from ..errors import ShaderCompileError

#: One vertex: position (2 floats), T0 (3), T1 (3) -- the layout of figures.vertex_table.
VERTEX_FORMAT = ("2f 3f 3f", "in_pos", "in_t0", "in_t1")
VERTEX_FLOATS = 8

#: GL's type codes for the reflected uniforms that are not plain values
GL_SAMPLER_2D = 0x8B5E
GL_IMAGE_2D = 0x904D


def debug_enabled() -> bool:
    """GLGPGPU_DEBUG=1: check glGetError after every draw and that each uniform the
    program declares was set."""
    return os.environ.get("GLGPGPU_DEBUG", "").strip() not in ("", "0")


def shader_dir() -> Path:
    """The shaders: inside the installed package, or `shaders/` of a checkout."""
    packaged = resources.files("glgpgpu") / "shaders"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "shaders"


def shader_dirs() -> list:
    """The package's shaders, then any folders named in GLGPGPU_SHADER_PATH (your own
    kernels, or the experiments' in experiments/shaders), os.pathsep-separated."""
    extra = [Path(d) for d in os.environ.get("GLGPGPU_SHADER_PATH", "").split(os.pathsep) if d]
    return [shader_dir(), *extra]


@lru_cache(maxsize=None)
def shader_index() -> dict:
    """{file name: path} of every shader file below shader_dirs(); names must be unique."""
    index = {}
    for path in sorted(p for d in shader_dirs() for p in d.rglob("*")):
        if path.suffix in (".frag", ".vert", ".glsl", ".comp"):
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


_INCLUDE = re.compile(r'^#include "([^"]+)"\s*$')


def load_shader_lines(name: str, defines: dict | None = None) -> tuple[str, list]:
    """A shader's source with `#include "file"` lines expanded (one level is enough)
    and `#define NAME VALUE` lines for `defines` right after `#version`, and for each
    line of it (file name, line number) -- so a compiler's line can be named."""
    lines, origin = [], []
    for i, line in enumerate(shader_path(name).read_text().splitlines(), 1):
        m = _INCLUDE.match(line)
        if m:
            for j, sub in enumerate(shader_path(m.group(1)).read_text().splitlines(), 1):
                lines.append(sub)
                origin.append((m.group(1), j))
        else:
            lines.append(line)
            origin.append((name, i))
        if i == 1 and defines:
            for k, v in defines.items():
                lines.append(f"#define {k} {v}")
                origin.append((f"{name} (defines)", 0))
    return "\n".join(lines) + "\n", origin


def load_shader(name: str, defines: dict | None = None) -> str:
    """A shader's source, includes expanded and defines inserted (load_shader_lines)."""
    return load_shader_lines(name, defines)[0]


#: the line a compiler names: Mesa "0:12(5): error", NVIDIA "0(12) : error"
_LOG_LINE = re.compile(r"^\s*\d+[:(](\d+)[()]")


def _compile_error(kind: str, name: str, defines, log: str, origin: list) -> ShaderCompileError:
    """The driver's log with its line numbers turned into file:line of the shader files."""
    out = []
    for line in str(log).splitlines():
        m = _LOG_LINE.match(line)
        if m and 0 < int(m.group(1)) <= len(origin):
            f, n = origin[int(m.group(1)) - 1]
            line = f"{f}:{n}: {line.strip()}"
        out.append(line)
    where = f" with defines {defines}" if defines else ""
    return ShaderCompileError(f"{kind} shader {name}{where} does not compile:\n" + "\n".join(out))


class _Interface:
    """What a compiled program declares, read by reflection: samplers, images
    (name -> binding unit), plain uniforms; and which uniforms were set."""

    def _reflect(self, source: str):
        self.samplers, self.images, self.uniforms = [], {}, set()
        self._members = {}                              # name -> moderngl.Uniform, looked up once
        for member in self.prog:
            u = self.prog[member]
            if not isinstance(u, moderngl.Uniform):
                continue
            self._members[member] = u
            if u.gl_type == GL_SAMPLER_2D:
                self.samplers.append(member)
            elif u.gl_type == GL_IMAGE_2D:
                self.images[member] = int(u.value)      # its layout(binding = N)
            else:
                self.uniforms.add(member)
        for unit, s in enumerate(self.samplers):
            self.prog[s].value = unit
        # every identifier the source declares: a uniform the compiler dropped as
        # unused (in this define set) may be set; a name not in the source may not
        self._declared = set(re.findall(r"\b[A-Za-z_]\w*\b", source))
        self.uniform_cache: dict = {}

    def set_uniform(self, name, value):
        if self.uniform_cache.get(name) == value:
            return
        u = self._members.get(name)
        if u is not None:
            u.value = value
        elif name not in self._declared:
            raise KeyError(f"kernel {self.name} declares no uniform {name!r} "
                           f"(its uniforms: {sorted(self.uniforms)})")
        self.uniform_cache[name] = value

    def unset_uniforms(self) -> list:
        """Declared uniforms never set on this program (the debug check)."""
        return sorted(u for u in self.uniforms if u not in self.uniform_cache and u != "u_proj")


class Program(_Interface):
    """One compiled kernel: fragment shader + common.vert, with its declared interface."""

    def __init__(self, gl, name, defines=None):
        self.name = name
        frag, origin = load_shader_lines(name + ".frag", defines)
        try:
            self.prog = gl.program(vertex_shader=load_shader("common.vert"), fragment_shader=frag)
        except moderngl.Error as exc:
            raise _compile_error("fragment", name + ".frag", defines, exc, origin) from None
        self._reflect(frag)
        self.proj_for = None

    def set_projection(self, size):
        if self.proj_for != size:
            w, h = size
            proj = matrix44.create_orthogonal_projection(0, w, 0, h, -1, 1, dtype=np.float32)
            self.prog["u_proj"].write(proj.tobytes())
            self.proj_for = size


class ComputeProgram(_Interface):
    """One compiled compute kernel (`shaders/compute/<name>.comp`), with its declared
    interface and its workgroup size."""

    def __init__(self, gl, name, defines=None):
        self.name = name
        src, origin = load_shader_lines(name + ".comp", defines)
        try:
            self.prog = gl.compute_shader(src)
        except moderngl.Error as exc:
            raise _compile_error("compute", name + ".comp", defines, exc, origin) from None
        self._reflect(src)


class ProgramCache:
    """A context's compiled programs, by (kernel name, defines)."""

    def __init__(self, gl):
        self.gl = gl
        self._programs: dict = {}

    def get(self, name: str, defines: dict | None = None, compute: bool = False):
        key = (name, tuple(sorted(defines.items())) if defines else (), compute)
        p = self._programs.get(key)
        if p is None:
            p = self._programs[key] = (ComputeProgram if compute else Program)(self.gl, name, defines)
        return p

    def __len__(self):
        return len(self._programs)

    def release(self) -> None:
        for p in self._programs.values():
            p.prog.release()
        self._programs.clear()
