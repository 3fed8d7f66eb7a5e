"""The compute method's product kernel (shaders/compute/gemm.comp) against variants of
it, kernel alone (A and B already on the GPU, first dispatch to glFinish, best of
`repeat`), each with its answer checked on 64 rows against float64: the kernel as it
is; with every loop unrolled by NVIDIA's pragma (the float64 build already is); and
kernels generated here with no arrays at all (every accumulator a named vec4, the
k-slice loop written out), for several register blocks per thread (TM x TN) and tiles.
Also reports whether the driver's program binary mentions local memory (spilled
arrays) where the driver embeds its assembly (NVIDIA).

    python experiments/gemm_compute_variants.py [--size 8192] [--repeat 5] [--only REGEX]
"""
from __future__ import annotations

import argparse
import ctypes
import re
import time

import numpy as np

import glgpgpu
from glgpgpu.compute import blas
from glgpgpu.gl import rawgl
from glgpgpu.gl.programs import ComputeProgram, load_shader

VEC4_DEFS = {"VEC4": 1}


def generated(bm: int, bn: int, unroll_k: bool, pad: int = 0, swap_store: bool = False) -> str:
    """A plain C = alpha A B^T + beta C (A m x k, B n x k, row-major, VEC4 strides) kernel:
    256 threads, a bm x bn tile, bk = 16, each thread (bm / 16) x (bn / 16) entries as vec4s
    at stride 64 (rows g*64 + ty*4 + r, columns h*64 + tx*4 + c), no arrays."""
    tm, tn = bm // 16, bn // 16
    ga, gb = tm // 4, tn // 4                   # vec4 groups of rows, of columns
    la, lb = bm // 64, bn // 64                 # vec4 global loads per thread per slice
    L = []
    w = L.append
    w("#version 430")
    w("layout(local_size_x = 16, local_size_y = 16) in;")
    w("layout(std430, binding = 0) readonly buffer ABuf { vec4 a4[]; };")
    w("layout(std430, binding = 1) readonly buffer BBuf { vec4 b4[]; };")
    w("layout(std430, binding = 2) buffer CBuf { float c_[]; };")
    for u in ("u_m", "u_n", "u_k", "u_lda", "u_ldb", "u_ldc", "u_aoff", "u_boff", "u_coff"):
        w(f"uniform int {u};")
    w("uniform float u_alpha; uniform float u_beta;")
    w(f"shared vec4 As[16][{bm // 4 + pad}];")
    w(f"shared vec4 Bs[16][{bn // 4 + pad}];")
    w("vec4 ld(bool in_a, int row, int gk, int lim) {")
    w("  if (row >= lim || gk >= u_k) return vec4(0.0);")
    w("  vec4 v = in_a ? a4[(u_aoff + row * u_lda + gk) >> 2] : b4[(u_boff + row * u_ldb + gk) >> 2];")
    w("  return vec4(v.x, gk + 1 < u_k ? v.y : 0.0, gk + 2 < u_k ? v.z : 0.0, gk + 3 < u_k ? v.w : 0.0);")
    w("}")
    w("void main() {")
    w("  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y), tid = ty * 16 + tx;")
    w(f"  int row0 = int(gl_WorkGroupID.y) * {bm}, col0 = int(gl_WorkGroupID.x) * {bn};")
    for g in range(ga):
        for r in range(4):
            for h in range(gb):
                w(f"  vec4 c{g}_{r}_{h} = vec4(0.0);")
    for lname, cnt in (("ra", la), ("rb", lb)):
        for i in range(cnt):
            w(f"  vec4 {lname}{i};")

    def loads(k0: str):
        for i in range(la):
            w(f"  {{ int e = tid + {i * 256}; ra{i} = ld(true, row0 + (e >> 2), {k0} + 4 * (e & 3), u_m); }}")
        for i in range(lb):
            w(f"  {{ int e = tid + {i * 256}; rb{i} = ld(false, col0 + (e >> 2), {k0} + 4 * (e & 3), u_n); }}")

    def stores():
        for arr, reg, cnt in (("As", "ra", la), ("Bs", "rb", lb)):
            for i in range(cnt):
                w(f"  {{ int e = tid + {i * 256}; int r = e >> 2, kk = 4 * (e & 3);")
                if swap_store:       # the four k's of a row to four rows of the slice, one float each
                    for c, comp in enumerate("xyzw"):
                        w(f"    {arr}[kk + {c}][r >> 2][r & 3] = {reg}{i}.{comp};")
                else:
                    for c, comp in enumerate("xyzw"):
                        w(f"    {arr}[kk + {c}][r >> 2][r & 3] = {reg}{i}.{comp};")
                w("  }")
    loads("0")
    w("  for (int k0 = 0; k0 < u_k; k0 += 16) {")
    stores()
    w("    barrier();")
    w("    if (k0 + 16 < u_k) {")
    loads("k0 + 16")
    w("    }")

    def body(kk: str):
        for g in range(ga):
            w(f"    vec4 a{g} = As[{kk}][{g * 16} + ty];")
        for h in range(gb):
            w(f"    vec4 b{h} = Bs[{kk}][{h * 16} + tx];")
        for g in range(ga):
            for r, comp in enumerate("xyzw"):
                for h in range(gb):
                    w(f"    c{g}_{r}_{h} = fma(vec4(a{g}.{comp}), b{h}, c{g}_{r}_{h});")
    if unroll_k:
        for kk in range(16):
            w("    {")
            body(str(kk))
            w("    }")
    else:
        w("    for (int kk = 0; kk < 16; ++kk) {")
        body("kk")
        w("    }")
    w("    barrier();")
    w("  }")
    for g in range(ga):
        for r in range(4):
            w(f"  {{ int i = row0 + {g * 64} + ty * 4 + {r}; if (i < u_m) {{")
            for h in range(gb):
                for c, comp in enumerate("xyzw"):
                    w(f"    {{ int j = col0 + {h * 64} + tx * 4 + {c}; if (j < u_n) {{ int at = u_coff + i * u_ldc + j;"
                      f" float v = u_alpha * c{g}_{r}_{h}.{comp}; if (u_beta != 0.0) v += u_beta * c_[at];"
                      f" c_[at] = v; }} }}")
            w("  } }")
    w("}")
    return "\n".join(L) + "\n"


def variant_sources():
    base = load_shader("gemm.comp", VEC4_DEFS)
    lines = base.split("\n")
    unrolled = "\n".join(lines[:1] + ["#pragma optionNV(unroll all)"] + lines[1:])
    out = {"gemm.comp (as is)": (base, 128, 128), "gemm.comp + unroll all": (unrolled, 128, 128)}
    for bm, bn in ((128, 128), (128, 256), (256, 128), (64, 128)):
        for unroll in (False, True):
            out[f"generated {bm}x{bn} k-loop{' unrolled' if unroll else ''}"] = (generated(bm, bn, unroll), bm, bn)
    out["generated 128x128 k-loop, shared padded"] = (generated(128, 128, False, pad=1), 128, 128)
    return out


def binary_text(prog) -> bytes:
    get_iv = rawgl.function("glGetProgramiv")
    n = ctypes.c_int(0)
    get_iv(ctypes.c_uint(prog.glo), ctypes.c_uint(0x8741), ctypes.byref(n))       # GL_PROGRAM_BINARY_LENGTH
    buf = ctypes.create_string_buffer(max(1, n.value))
    length, fmt = ctypes.c_int(0), ctypes.c_uint(0)
    rawgl.function("glGetProgramBinary")(ctypes.c_uint(prog.glo), n, ctypes.byref(length), ctypes.byref(fmt), buf)
    return buf.raw[:length.value]


def install(ctx, src: str):
    """Put `src` in the context's program cache as gemm.comp with VEC4 (what blas.gemm asks for)."""
    p = ComputeProgram.__new__(ComputeProgram)
    p.name = "gemm"
    p.prog = ctx.gl.compute_shader(src)
    p._reflect(src)
    ctx.kernels.programs._programs[("gemm", tuple(sorted(VEC4_DEFS.items())), True)] = p
    return p


class ProductCase:
    """A A^T of order g on the GPU (A standard normal, float32), timed through blas.gemm and
    checked on 64 rows against float64 (its error over n u |A| |A|^T)."""

    def __init__(self, ctx, g: int):
        self.ctx, self.g = ctx, g
        rng = np.random.default_rng(0)
        self.A = rng.standard_normal((g, g)).astype(np.float32)
        self.a, self.c = blas.upload(ctx, self.A), blas.take(ctx, g, g)
        self.probe = rng.choice(g, 64, replace=False)
        A64 = self.A.astype(np.float64)
        self.want = A64[self.probe] @ A64.T
        self.bound = g * 2.0 ** -24 * (np.abs(A64[self.probe]) @ np.abs(A64).T)

    def seconds(self, repeat: int) -> float:
        """The product's best time of `repeat` (after one untimed), first dispatch to glFinish."""
        g = self.g

        def run():
            blas.gemm(self.ctx, self.c, self.a, self.a, m=g, n=g, k=g)
            self.ctx.finish()
        run()
        ts = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            run()
            ts.append(time.perf_counter() - t0)
        return min(ts)

    def error(self) -> float:
        got = blas.download(self.ctx, self.c)[self.probe].astype(np.float64)
        return float((np.abs(got - self.want) / self.bound).max())

    def line(self, name: str, t: float, width: int = 48) -> str:
        return f"{name:<{width}} {t * 1e3:8.2f} ms  {2 * self.g ** 3 / t / 1e12:6.2f} TFLOP/s"


def arguments(doc: str):
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="")
    return ap.parse_args()


def main():
    args = arguments(__doc__)
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, ctx.caps.version, flush=True)
    case = ProductCase(ctx, args.size)
    for name, (src, bm, bn) in variant_sources().items():
        if args.only and not re.search(args.only, name):
            continue
        try:
            p = install(ctx, src)
        except Exception as exc:                       # a variant that does not compile is reported
            print(f"{name:<48} does not compile: {str(exc).splitlines()[0][:200]}", flush=True)
            continue
        blas.BM, blas.BN, blas.ROW_TILES = bm, bn, False      # the grid blas.gemm dispatches; gemm.comp
        t = case.seconds(args.repeat)
        text = binary_text(p.prog)
        lmem = len(re.findall(rb"(?i)lmem|local", text))
        print(f"{case.line(name, t)}  error/bound {case.error():.3g}  binary {len(text)} bytes, "
              f"local-memory mentions {lmem}", flush=True)
        blas.BM = blas.BN = 128
        blas.ROW_TILES = True
    ctx.kernels.programs._programs.pop(("gemm", tuple(sorted(VEC4_DEFS.items())), True), None)


if __name__ == "__main__":
    main()
