"""blocked_adat's inner loop, variant against variant, kernel alone (A already on the
GPU, timed from the first draw to glFinish): the default, FMA_CHAIN (four fma()
into the accumulator instead of += dot()), the loads split between the texture units
and the load/store path (ROWS_FROM_BUFFER / COLS_FROM_TEXTURE), and tile shapes; with TFLOP/s counting
m^2 n (the lower triangle of C: m (m+1)/2 x n multiply-adds).  Also dumps the
driver's program binary of the default and counts what looks like its arithmetic
instructions, where the driver embeds readable assembly (NVIDIA).

    python benchmarks/gemm_variants.py [m] [n] [repeat] [RxC:FLAG,FLAG=N ...]
    (no specs: the list below)"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import ctypes
import re
import sys

import numpy as np

from glgpgpu.bench.assembly import time_blocked_adat
from glgpgpu.blocked.sizes import ADAT_VARIANT
from glgpgpu.gl import rawgl, resolve


def program_text(prog_glo):
    get_iv = rawgl.function("glGetProgramiv")
    n = ctypes.c_int(0)
    get_iv(ctypes.c_uint(prog_glo), ctypes.c_uint(0x8741), ctypes.byref(n))     # GL_PROGRAM_BINARY_LENGTH
    buf = ctypes.create_string_buffer(max(1, n.value))
    length, fmt = ctypes.c_int(0), ctypes.c_uint(0)
    rawgl.function("glGetProgramBinary")(ctypes.c_uint(prog_glo), n, ctypes.byref(length), ctypes.byref(fmt), buf)
    return buf.raw[:length.value]


def parse(spec):
    """"16x8:FMA_CHAIN,ROWS_FROM_BUFFER=3" -> (name, tile, variant) on top of the default."""
    tile, _, flags = spec.partition(":")
    br, bc = (int(v) for v in tile.split("x"))
    variant = dict(ADAT_VARIANT)
    for f in filter(None, flags.split(",")):
        key, _, val = f.partition("=")
        variant[key] = int(val or 1)
    return spec, (br, bc), variant


def main(m=4096, n=8192, repeat=3, *specs):
    m, n, repeat = int(m), int(n), int(repeat)
    ctx = resolve(None)
    rng = np.random.default_rng(3)
    A = rng.standard_normal((m, n)).astype(np.float32)
    d2 = rng.random(n).astype(np.float32)
    print(ctx.caps.renderer, f"m={m} n={n}")
    macs = m * (m + 1) / 2 * n
    V = ADAT_VARIANT
    for name, tile, variant in (("default 8x8", (8, 8), V),
                                ("FMA_CHAIN 8x8", (8, 8), dict(V, FMA_CHAIN=1)),
                                ("8x8 COLS_FROM_TEXTURE=1", (8, 8), dict(V, COLS_FROM_TEXTURE=1)),
                                ("8x8 COLS_FROM_TEXTURE=2", (8, 8), dict(V, COLS_FROM_TEXTURE=2)),
                                ("8x8 FMA_CHAIN COLS_FROM_TEXTURE=1", (8, 8), dict(V, FMA_CHAIN=1, COLS_FROM_TEXTURE=1)),
                                ("default 16x8", (16, 8), V),
                                ("16x8 ROWS_FROM_BUFFER=2", (16, 8), dict(V, ROWS_FROM_BUFFER=2)),
                                ("16x8 ROWS_FROM_BUFFER=3", (16, 8), dict(V, ROWS_FROM_BUFFER=3)),
                                ("16x8 ROWS_FROM_BUFFER=4", (16, 8), dict(V, ROWS_FROM_BUFFER=4)),
                                ("16x8 FMA_CHAIN ROWS_FROM_BUFFER=3", (16, 8), dict(V, FMA_CHAIN=1, ROWS_FROM_BUFFER=3)),
                                ("16x4 ROWS_FROM_BUFFER=4", (16, 4), dict(V, ROWS_FROM_BUFFER=4)),
                                ("default 8x8 again", (8, 8), V)) if not specs else [parse(a) for a in specs]:
        try:
            t = time_blocked_adat(ctx, A, d2, repeat, tile=tile, variant=variant)
        except Exception as exc:                       # a tile the driver cannot compile
            print(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        print(f"{name}: {t:.4f} s, {2 * macs / t / 1e12:.3f} TFLOP/s", flush=True)
    for key, p in ctx.kernels._programs.items():
        if isinstance(key, tuple) and key[0] == "blocked_adat":
            blob = program_text(p.prog.glo)
            text = blob.decode("latin-1")
            ops = re.findall(r"\b(FFMA|FMUL|FADD|DP4|MAD|FMA|MUL|ADD|LDG|LDS|TEX|TXF|LDC|DP4A)\b", text)
            counts = {o: ops.count(o) for o in sorted(set(ops))}
            print(dict(key[1]), "binary", len(blob), "bytes; op words:", counts)
            ops = re.findall(r"\b(TXF|LDB|LDG|LOAD)\.?\w*", text)
            print("   loads:", {o: ops.count(o) for o in sorted(set(ops))})


if __name__ == "__main__":
    main(*sys.argv[1:])
