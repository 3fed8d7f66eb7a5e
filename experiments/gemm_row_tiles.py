"""What held the compute product kernel (gemm.comp, float32) at a third of cuBLAS?  Kernel
alone at 8192 (A A^T, A already on the GPU, first dispatch to glFinish, best of `repeat`),
each answer checked on 64 rows against float64, cuBLAS sgemm (torch, TF32 off) in the same
run where torch is there:

  - gemm.comp: slices stored k-major in shared memory by transposing scalar stores,
    every global load masked at the matrix's edges;
  - row-major tiles: the slices kept in shared memory as they lie in global memory (rows of
    16 floats + one vec4 of padding), stored as whole vec4s, read four k at a time --
    with masked loads; with unmasked loads (rows clamped, the k-tail one masked slice);
    with the slice loop bounded by a uniform or by a value the shader computes; in 64 x 128
    tiles; with double-buffered shared memory; 8, 16 or 32 k a slice;
  - gemm_rows.comp as shipped (blas.gemm's kernel for aligned float32 products).

Also counts the NVIDIA program binary's mentions of local memory (spilled arrays).

    python experiments/gemm_row_tiles.py [--size 8192] [--repeat 5] [--only REGEX]
"""
from __future__ import annotations

import re
import time


import glgpgpu
from glgpgpu.compute import blas
from glgpgpu.gl.programs import ComputeProgram

from gemm_compute_variants import ProductCase, arguments, binary_text


def row_tiles(bk: int = 16, ty_n: int = 16, double: bool = False, masked: bool = True,
              computed_bound: bool = False) -> str:
    """C = alpha A B^T + beta C (A m x k, B n x k, row-major, 4-aligned): 16 x ty_n threads,
    a (8 ty_n) x 128 tile, 8 x 8 entries a thread (rows ty + ty_n r, columns tx + 16 c), the
    slices of bk floats kept row-major in shared memory.  masked: every load checks the
    matrix's edges (else none: sizes must be multiples of the tile, as the 8192 run's are)."""
    q4, bm = bk // 4, 8 * ty_n
    lds, nthreads = q4 + 1, 16 * ty_n
    la, lb = bm * q4 // nthreads, 128 * q4 // nthreads
    dims = "[2]" if double else ""
    sa = (lambda b: f"As[{b}]") if double else (lambda b: "As")
    sb = (lambda b: f"Bs[{b}]") if double else (lambda b: "Bs")
    bound = "full" if computed_bound else "u_k"
    load = "ldm" if masked else "ldf"
    return f"""#version 430
#pragma optionNV(unroll all)
layout(local_size_x = 16, local_size_y = {ty_n}) in;
layout(std430, binding = 0) readonly buffer ABuf {{ vec4 a4[]; }};
layout(std430, binding = 1) readonly buffer BBuf {{ vec4 b4[]; }};
layout(std430, binding = 2) buffer CBuf {{ float c_[]; }};
uniform int u_m; uniform int u_n; uniform int u_k; uniform int u_full; uniform int u_lda; uniform int u_ldb;
uniform int u_ldc; uniform int u_aoff; uniform int u_boff; uniform int u_coff; uniform float u_alpha;
uniform float u_beta;
shared vec4 As{dims}[{bm * lds}];
shared vec4 Bs{dims}[{128 * lds}];
vec4 ldm(bool in_a, int row, int gk, int lim) {{
  if (row >= lim || gk >= u_k) return vec4(0.0);
  vec4 v = in_a ? a4[(u_aoff + row * u_lda + gk) >> 2] : b4[(u_boff + row * u_ldb + gk) >> 2];
  return vec4(v.x, gk + 1 < u_k ? v.y : 0.0, gk + 2 < u_k ? v.z : 0.0, gk + 3 < u_k ? v.w : 0.0);
}}
vec4 ldf(bool in_a, int row, int gk, int lim) {{
  row = min(row, lim - 1);
  return in_a ? a4[(u_aoff + row * u_lda + gk) >> 2] : b4[(u_boff + row * u_ldb + gk) >> 2];
}}
void main() {{
  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y), tid = ty * 16 + tx;
  int row0 = int(gl_WorkGroupID.y) * {bm}, col0 = int(gl_WorkGroupID.x) * 128;
  int full = u_k - u_k % {bk};
  float acc[64];
  for (int e = 0; e < 64; ++e) acc[e] = 0.0;
  vec4 ra[{la}], rb[{lb}];
  for (int l = 0; l < {la}; ++l) {{ int e = tid + l * {nthreads}; ra[l] = {load}(true, row0 + e / {q4}, 4 * (e % {q4}), u_m); }}
  for (int l = 0; l < {lb}; ++l) {{ int e = tid + l * {nthreads}; rb[l] = {load}(false, col0 + e / {q4}, 4 * (e % {q4}), u_n); }}
  for (int l = 0; l < {la}; ++l) {{ int e = tid + l * {nthreads}; {sa("0")}[(e / {q4}) * {lds} + e % {q4}] = ra[l]; }}
  for (int l = 0; l < {lb}; ++l) {{ int e = tid + l * {nthreads}; {sb("0")}[(e / {q4}) * {lds} + e % {q4}] = rb[l]; }}
  barrier();
  int it = 0;
  for (int k0 = 0; k0 < {bound}; k0 += {bk}) {{
    int cur = {"it & 1" if double else "0"};
    bool more = k0 + {bk} < {bound};
    if (more) {{
      for (int l = 0; l < {la}; ++l) {{ int e = tid + l * {nthreads}; ra[l] = {load}(true, row0 + e / {q4}, k0 + {bk} + 4 * (e % {q4}), u_m); }}
      for (int l = 0; l < {lb}; ++l) {{ int e = tid + l * {nthreads}; rb[l] = {load}(false, col0 + e / {q4}, k0 + {bk} + 4 * (e % {q4}), u_n); }}
    }}
    for (int q = 0; q < {q4}; ++q) {{
      vec4 a[8];
      for (int r = 0; r < 8; ++r) a[r] = {sa("cur")}[(ty + {ty_n} * r) * {lds} + q];
      for (int c = 0; c < 8; ++c) {{
        vec4 b = {sb("cur")}[(tx + 16 * c) * {lds} + q];
        for (int r = 0; r < 8; ++r) {{
          float s = acc[r * 8 + c];
          s = fma(a[r].x, b.x, s); s = fma(a[r].y, b.y, s); s = fma(a[r].z, b.z, s); s = fma(a[r].w, b.w, s);
          acc[r * 8 + c] = s;
        }}
      }}
    }}
    {"" if double else "barrier();"}
    if (more) {{
      int nxt = {"cur ^ 1" if double else "0"};
      for (int l = 0; l < {la}; ++l) {{ int e = tid + l * {nthreads}; {sa("nxt")}[(e / {q4}) * {lds} + e % {q4}] = ra[l]; }}
      for (int l = 0; l < {lb}; ++l) {{ int e = tid + l * {nthreads}; {sb("nxt")}[(e / {q4}) * {lds} + e % {q4}] = rb[l]; }}
    }}
    barrier();
    ++it;
  }}
  for (int r = 0; r < 8; ++r) {{
    int i = row0 + ty + {ty_n} * r;
    for (int c = 0; c < 8; ++c) {{
      int j = col0 + tx + 16 * c;
      if (i < u_m && j < u_n) {{
        int at = u_coff + i * u_ldc + j;
        float v = u_alpha * acc[r * 8 + c];
        if (u_beta != 0.0) v += u_beta * c_[at];
        c_[at] = v;
      }}
    }}
  }}
}}
"""


def variants():
    """name -> (source or None for the shipped kernel, rows of C a workgroup, use gemm.comp)"""
    out = {"gemm.comp (before)": (None, 128, True)}
    for bk in (8, 16, 32):
        out[f"row tiles, masked loads, {bk} k a slice"] = (row_tiles(bk), 128, False)
    out["row tiles, unmasked, loop bound computed"] = (row_tiles(16, masked=False, computed_bound=True), 128, False)
    for bk in (16, 32):
        out[f"row tiles, unmasked, uniform bound, {bk} k a slice"] = (row_tiles(bk, masked=False), 128, False)
    out["row tiles, unmasked, double-buffered"] = (row_tiles(16, masked=False, double=True), 128, False)
    out["row tiles, unmasked, 64 x 128"] = (row_tiles(16, ty_n=8, masked=False), 64, False)
    out["gemm_rows.comp (shipped)"] = (None, 128, False)
    return out


def install(ctx, src: str):
    """src as the program blas.gemm dispatches for aligned float32 products (gemm_rows)."""
    p = ComputeProgram.__new__(ComputeProgram)
    p.name = "gemm_rows"
    p.prog = ctx.gl.compute_shader(src)
    p._reflect(src)
    ctx.kernels.programs._programs[("gemm_rows", (), True)] = p
    return p


def main():
    args = arguments(__doc__)
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, ctx.caps.version, flush=True)
    case = ProductCase(ctx, args.size)
    key = ("gemm_rows", (), True)
    for name, (src, bm, old) in variants().items():
        if args.only and not re.search(args.only, name):
            continue
        ctx.kernels.programs._programs.pop(key, None)
        try:
            p = install(ctx, src) if src is not None else None
        except Exception as exc:                       # a variant that does not compile is reported
            print(f"{name:<52} does not compile: {str(exc).strip().splitlines()[-1][:160]}", flush=True)
            continue
        blas.BM, blas.ROW_TILES = bm, not old
        t = case.seconds(args.repeat)
        prog = p.prog if p is not None else ctx.kernels.programs.get("gemm" if old else "gemm_rows",
                                                                     {"VEC4": 1} if old else None, True).prog
        lmem = len(re.findall(rb"lmem", binary_text(prog)))
        print(f"{case.line(name, t, 52)}  error/bound {case.error():.3g}  local-memory mentions {lmem}", flush=True)
        blas.BM, blas.ROW_TILES = 128, True
    ctx.kernels.programs._programs.pop(key, None)
    try:
        import torch
    except ImportError:
        return
    if torch.cuda.is_available():
        torch.backends.cuda.matmul.allow_tf32 = False
        ta = torch.from_numpy(case.A).cuda()
        for _ in range(2):
            ta @ ta.T
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            ta @ ta.T
        torch.cuda.synchronize()
        print(case.line("cuBLAS sgemm (torch, TF32 off)", (time.perf_counter() - t0) / args.repeat, 52), flush=True)


if __name__ == "__main__":
    main()
