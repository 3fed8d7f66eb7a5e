"""blocked_adat's inner loop, variant against variant, kernel alone (A already on the
GPU, timed from the first draw to glFinish): the default, FMA_CHAIN (four fma()
into the accumulator instead of += dot()), and tile shapes; with TFLOP/s counting
m^2 n (the lower triangle of C: m (m+1)/2 x n multiply-adds).  Also dumps the
driver's program binary of the default and counts what looks like its arithmetic
instructions, where the driver embeds readable assembly (NVIDIA).

    python benchmarks/gemm_variants.py [m] [n] [repeat]"""
import ctypes
import re
import sys

import numpy as np

from glgpgpu.bench.assembly import time_blocked_adat
from glgpgpu.blocked.tiles import ADAT_VARIANT
from glgpgpu.gl import rawgl, resolve


def program_text(prog_glo):
    get_iv = rawgl.function("glGetProgramiv")
    n = ctypes.c_int(0)
    get_iv(ctypes.c_uint(prog_glo), ctypes.c_uint(0x8741), ctypes.byref(n))     # GL_PROGRAM_BINARY_LENGTH
    buf = ctypes.create_string_buffer(max(1, n.value))
    length, fmt = ctypes.c_int(0), ctypes.c_uint(0)
    rawgl.function("glGetProgramBinary")(ctypes.c_uint(prog_glo), n, ctypes.byref(length), ctypes.byref(fmt), buf)
    return buf.raw[:length.value]


def main(m=4096, n=8192, repeat=3):
    m, n, repeat = int(m), int(n), int(repeat)
    ctx = resolve(None)
    rng = np.random.default_rng(3)
    A = rng.standard_normal((m, n)).astype(np.float32)
    d2 = rng.random(n).astype(np.float32)
    print(ctx.caps.renderer, f"m={m} n={n}")
    macs = m * (m + 1) / 2 * n
    for name, tile, variant in (("default 8x8", (8, 8), ADAT_VARIANT),
                                ("FMA_CHAIN 8x8", (8, 8), dict(ADAT_VARIANT, FMA_CHAIN=1)),
                                ("default 16x8", (16, 8), ADAT_VARIANT),
                                ("FMA_CHAIN 16x8", (16, 8), dict(ADAT_VARIANT, FMA_CHAIN=1)),
                                ("FMA_CHAIN 8x8 KUNROLL2", (8, 8), dict(ADAT_VARIANT, FMA_CHAIN=1, KUNROLL=2)),
                                ("default 8x8 again", (8, 8), ADAT_VARIANT)):
        try:
            t = time_blocked_adat(ctx, A, d2, repeat, tile=tile, variant=variant)
        except Exception as exc:                       # a tile the driver cannot compile
            print(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        print(f"{name}: {t:.4f} s, {2 * macs / t / 1e12:.3f} TFLOP/s", flush=True)
    for key, p in ctx.kernels._programs.items():
        if isinstance(key, tuple) and key[0] == "blocked_adat" and dict(key[1]).get("BR") == 8 \
                and dict(key[1]).get("BC") == 8:
            blob = program_text(p.prog.glo)
            text = blob.decode("latin-1")
            ops = re.findall(r"\b(FFMA|FMUL|FADD|DP4|MAD|FMA|MUL|ADD|LDG|LDS|TEX|TXF|LDC|DP4A)\b", text)
            counts = {o: ops.count(o) for o in sorted(set(ops))}
            print(dict(key[1]), "binary", len(blob), "bytes; op words:", counts)
            asm = re.findall(r"!!NV\w+.*?END", text, flags=re.S)
            if asm and "FMA_CHAIN" not in dict(key[1]):
                print(asm[0][:6000])


if __name__ == "__main__":
    main(*sys.argv[1:])
