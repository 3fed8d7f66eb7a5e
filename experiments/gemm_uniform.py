"""Issue 17's GEMM, one lever: a draw computes BR rows of C against every column
block, so its row operand is the same for every fragment and comes from a uniform
block (the constant cache broadcasts it) instead of a fetch per fragment; only the
column side goes through the texture units (shaders/bench/gemm_uniform_rows.frag).
Kernel alone (operands already on the GPU, first draw to glFinish), C = (A D) B^T full
m x m, k = n; against blocked_adat's full product (product_texture(full=True)), the
default and the best variant of benchmarks/gemm_variants.py; and the FMA-loop ceiling.

    python benchmarks/gemm_uniform.py [m] [n] [repeat] [BRxBCxKC:FLAG,... ...]
"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)

import os  # noqa: E402

# this folder's own kernels (experiments/shaders) beside the package's
os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))
import sys
import time

import numpy as np

from glgpgpu.bench.ceiling import ceiling
from glgpgpu.blocked.adat import product_texture
from glgpgpu.blocked.sizes import ADAT_VARIANT, rect_rows
from glgpgpu.gl import resolve
from glgpgpu.gl.transfer import read_rgba, upload_rgba


def uniform_product(ctx, c_tex, a_tex, d_tex, b_tex, m, n4, BR, BC, KC, flags, first=True):
    """C (+)= (A D) B^T, C m x m (RGBA, m/4 texels wide), by gemm_uniform_rows."""
    K = ctx.kernels
    nch, nR = -(-n4 // KC), -(-m // BR)
    D = {"BR": BR, "BC": BC, "KC": KC, **flags}
    pack = ctx.pool.take(nR * nch, BR * KC, "rows packed", components=4)
    K.draw("gemm_pack_rows", pack, rect_rows(ctx, 0, BR * KC, 0, nR * nch), {"A": a_tex, "d": d_tex},
           {"u_nchunks": nch, "u_n4": n4, "u_rows": a_tex.rows}, defines={"BR": BR, "KC": KC})
    buf = K.scratch_buffer("gemm-rows", nR * nch * BR * KC * 16)
    pack.copy_into_buffer(buf)
    ctx.pool.give(pack)
    ncb = -(-m // BC)
    W = min(ncb, 64)
    H = -(-ncb // W)
    grid = K.grid(W, H)
    rect = rect_rows(ctx, 0, W, 0, H)
    ssbo = "ROWS_SSBO" in flags
    prog = K.program("gemm_uniform_rows", D)
    if not ssbo:
        prog.prog["RowChunk"].binding = 0
    chunk_bytes = BR * KC * 16
    for ch in range(nch):
        for R in range(nR):
            u = {"u_r0": R * BR, "u_k0": ch * KC, "u_kn": min(KC, n4 - ch * KC), "u_W": W,
                 "u_first": int(first and ch == 0), "u_ncols": m, "u_nrows": m}
            off = (R * nch + ch) * chunk_bytes
            if ssbo:
                u["u_base"] = off // 16
                bufs = {3: buf}
            else:
                buf.bind_to_uniform_block(0, offset=off, size=chunk_bytes)
                bufs = None
            K.draw("gemm_uniform_rows", grid, rect, {"B": b_tex}, u, images={"C": c_tex}, defines=D,
                   buffers=bufs, barrier=False, weight=KC * BR * BC // 64)
        K.barrier()
    return c_tex


def parse(spec):
    dims, _, flags = spec.partition(":")
    br, bc, kc = (int(v) for v in dims.split("x"))
    return spec, (br, bc, kc), {f: 1 for f in filter(None, flags.split(","))}


def main(m=4096, n=8192, repeat=3, *specs):
    m, n, repeat = int(m), int(n), int(repeat)
    ctx = resolve(None)
    rng = np.random.default_rng(3)
    A = rng.standard_normal((m, n)).astype(np.float32)
    B = rng.standard_normal((m, n)).astype(np.float32)
    d2 = rng.random(n).astype(np.float32)
    n4 = n // 4
    print(ctx.caps.renderer, f"m={m} n={n}", flush=True)
    c = ceiling(ctx, repeat=2)
    print(f"FMA-loop ceiling {c.get('fma_tflops', c)} ", flush=True)
    a_tex = upload_rgba(ctx, A, m, n, "A")
    b_tex = upload_rgba(ctx, B, m, n, "B")
    d_tex = upload_rgba(ctx, d2[None, :], 1, n, "d")
    c_tex = ctx.pool.take(m, m // 4, "C", components=4)
    flops = 2.0 * m * m * n
    ref = ((A * d2) @ B.T) if m <= 4096 else None

    def timed(fn):
        fn()
        ctx.finish()
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            ctx.finish()
            best = min(best, time.perf_counter() - t0)
        return best

    def check(name):
        if ref is None:
            return ""
        C = read_rgba(c_tex, m, m)
        err = float(np.abs(C - ref).max() / np.abs(ref).max())
        return f" max rel err {err:.2e}"

    blocked = [("blocked_adat 8x8 default", (8, 8), ADAT_VARIANT),
               ("blocked_adat 16x8 FMA_CHAIN ROWS_FROM_BUFFER=2", (16, 8),
                dict(ADAT_VARIANT, FMA_CHAIN=1, ROWS_FROM_BUFFER=2))]
    for name, tile, var in blocked:
        t = timed(lambda: product_texture(c_tex, a_tex, b_tex, d_tex, m, tile=tile, full=True, variant=var, ctx=ctx))
        print(f"{name}: {t:.4f} s {flops / t / 1e12:.3f} TFLOP/s{check(name)}", flush=True)
    todo = [parse(s) for s in specs] or [parse(s) for s in (
        "32x4x128", "32x4x128:FMA_CHAIN", "32x4x64:FMA_CHAIN", "32x4x32:FMA_CHAIN", "16x8x256:FMA_CHAIN",
        "48x4x80:FMA_CHAIN", "24x8x160:FMA_CHAIN", "64x4x64:FMA_CHAIN", "32x4x128:FMA_CHAIN,ROWS_SSBO")]
    for name, (BR, BC, KC), flags in todo:
        try:
            t = timed(lambda: uniform_product(ctx, c_tex, a_tex, d_tex, b_tex, m, n4, BR, BC, KC, flags))
        except Exception as exc:                    # noqa: BLE001 -- a shape the driver refuses
            print(f"uniform {name}: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
            continue
        print(f"uniform {name}: {t:.4f} s {flops / t / 1e12:.3f} TFLOP/s{check(name)}", flush=True)
    ctx.pool.give(a_tex, b_tex, d_tex, c_tex)


if __name__ == "__main__":
    main(*sys.argv[1:])
