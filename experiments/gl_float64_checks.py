"""Does this GL driver compute in float64 where a compute shader says double?

GLSL 4.00 has double, and llvmpipe honours it everywhere.  NVIDIA's GL driver (H100,
2026-11-24) did not: the compute method's float64 Cholesky came out float32-accurate
(dfl001's residual 5e-2).  Each check below runs one tiny compute shader on known
inputs and prints the largest relative error against numpy's float64 (0 is right):

  copy          buffer -> buffer through a register
  private       a private double array indexed by a loop the compiler may not unroll
  private-dyn   the same with a triangular loop (TRSM's shape)
  private-bits  the same array holding the doubles' bits as uvec2 (real.glsl's PRIV)
  mul-fma       a * b, fma(a, b, c) in double and dvec4
  mixed         float literals and a float meeting a double in ?: and products
  shared        shared double and dvec4 arrays, a component stored at a run-time index
  dvec4-store   a dvec4 private array's component stored at a run-time index (NVIDIA:
                "can't find __setVectorIndex", the shader does not build)

    python experiments/gl_float64_checks.py

The product's workarounds are in shaders/compute/real.glsl (PRIV, SET4, DIV, SQRT,
explicit real(...)) and gemm.comp (every loop unrolled in float64).
"""
from __future__ import annotations

import argparse

import numpy as np

import glgpgpu

HEAD = """#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer O { double o[]; };
layout(std430, binding = 1) readonly buffer V { double v[]; };
uniform int u_n;
%s
void main() {
%s
}
"""

CHECKS = {
    "copy": ("", "for (int i = 0; i < u_n; ++i) o[i] = v[i];", lambda v: v),
    "private": ("", "double x[8]; for (int i = 0; i < u_n; ++i) x[i] = v[i];"
                    " for (int i = 0; i < u_n; ++i) o[i] = x[u_n - 1 - i];", lambda v: v[::-1]),
    "private-dyn": ("", "double x[64]; for (int j = 0; j < u_n; ++j) x[j] = v[j];"
                        " for (int j = 0; j < u_n; ++j) { double s = x[j];"
                        " for (int l = 0; l < j; ++l) s -= x[l] * 0.0lf; x[j] = s; }"
                        " for (int j = 0; j < u_n; ++j) o[j] = x[j];", lambda v: v),
    "private-bits": ("", "uvec2 x[64]; for (int j = 0; j < u_n; ++j) x[j] = unpackDouble2x32(v[j]);"
                         " for (int j = 0; j < u_n; ++j) { double s = packDouble2x32(x[j]);"
                         " for (int l = 0; l < j; ++l) s -= packDouble2x32(x[l]) * 0.0lf;"
                         " x[j] = unpackDouble2x32(s); }"
                         " for (int j = 0; j < u_n; ++j) o[j] = packDouble2x32(x[j]);", lambda v: v),
    "mul-fma": ("", "double a = v[0], b = v[1]; o[0] = a * b; o[1] = fma(a, b, v[2]);"
                    " o[2] = fma(dvec4(a), dvec4(b), dvec4(v[2])).y; o[3] = a + b;",
                lambda v: np.array([v[0] * v[1], v[0] * v[1] + v[2], v[0] * v[1] + v[2], v[0] + v[1]])),
    "mixed": ("", "int k = u_n; float f = 1.0; o[0] = k > 3 ? v[0] : 0.0; o[1] = f * v[1];"
                  " o[2] = v[2] / 3.0; o[3] = k > 3 ? v[3] : double(0.0);",
              lambda v: np.array([v[0], v[1], v[2] / 3.0, v[3]])),
    "shared": ("shared double S[64]; shared dvec4 S4[16];",
               "for (int i = 0; i < u_n; ++i) { S[i] = v[i]; switch (i & 3) { case 0: S4[i >> 2].x = v[i]; break;"
               " case 1: S4[i >> 2].y = v[i]; break; case 2: S4[i >> 2].z = v[i]; break;"
               " default: S4[i >> 2].w = v[i]; } } barrier();"
               " for (int i = 0; i < u_n; ++i) o[i] = S[i] - S4[i >> 2][i & 3] + S[i];", lambda v: v),
    "dvec4-store": ("", "dvec4 acc[4]; for (int q = 0; q < 4; ++q) acc[q] = dvec4(0.0);"
                        " for (int q = 0; q < u_n; ++q) acc[q >> 1][q & 1] = v[q];"
                        " for (int q = 0; q < u_n; ++q) o[q] = acc[q >> 1][q & 1];", lambda v: v),
}


def run(gl, decl: str, body: str, v: np.ndarray) -> np.ndarray:
    cs = gl.compute_shader(HEAD % (decl, body))
    out, inp = gl.buffer(np.zeros(64)), gl.buffer(np.concatenate([v, np.zeros(64 - v.size)]))
    try:
        out.bind_to_storage_buffer(0)
        inp.bind_to_storage_buffer(1)
        if "u_n" in cs:
            cs["u_n"] = v.size
        cs.run(1, 1, 1)
        gl.finish()
        return np.frombuffer(out.read(), np.float64)[:v.size].copy()
    finally:
        out.release()
        inp.release()
        cs.release()


def main():
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer)
    v = np.array([1 / 3 + i for i in range(8)])
    for name, (decl, body, want) in CHECKS.items():
        try:
            got = run(ctx.gl, decl, body, v)
            w = want(v)
            n = w.size
            print(f"{name:13s} {np.max(np.abs(got[:n] - w) / np.abs(w)):.2e}")
        except Exception as exc:                    # a shader the driver cannot build
            print(f"{name:13s} does not build: {str(exc).strip().splitlines()[-1][:120]}")


if __name__ == "__main__":
    main()
