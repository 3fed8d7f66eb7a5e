"""Why did the LS-SVM's tiled "form" phase take 0.14 s in one process and 2.3 s in another
on the same H100 (round 30)?  The suspect: the driver's first touch of newly allocated
storage buffers.  For `count` buffers of `mib` MiB each: the time to allocate them all
(the pool's take, glBufferData with no data), to fill each once (its first touch), to fill
each again; then the same again after they were given back (the pool keeps at most
keep_bytes of them, the rest go back to the driver) -- each phase between glFinish calls.

--storage: the same with immutable storage made by glNamedBufferStorage (flags 0: GPU-only,
the driver told the buffer never maps) and filled by glClearNamedBufferData, beside the pool's
glBufferData buffers -- does the first touch cost the same there?

    python experiments/buffer_first_touch.py [--count 10] [--mib 268] [--rounds 2] [--storage]
"""
from __future__ import annotations

import argparse
import time

import ctypes

import glgpgpu
from glgpgpu.compute.blas import fill
from glgpgpu.gl import rawgl

R32F, RED, FLOAT = 0x822E, 0x1903, 0x1406


def storage_round(count: int, nbytes: int, timed) -> tuple:
    """(allocate, first fill, second fill) seconds for `count` immutable GPU-only buffers."""
    f = rawgl.function
    f("glNamedBufferStorage").argtypes = [ctypes.c_uint, ctypes.c_ssize_t, ctypes.c_void_p, ctypes.c_uint]
    f("glClearNamedBufferData").argtypes = [ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                            ctypes.c_void_p]
    names = (ctypes.c_uint * count)()
    zero, one = ctypes.c_float(0.0), ctypes.c_float(1.0)

    def make():
        f("glCreateBuffers")(count, names)
        for n in names:
            f("glNamedBufferStorage")(n, nbytes, None, 0)

    def clear(v):
        for n in names:
            f("glClearNamedBufferData")(n, R32F, RED, FLOAT, ctypes.byref(v))
    t_make, _ = timed(make)
    t_first, _ = timed(lambda: clear(zero))
    t_again, _ = timed(lambda: clear(one))
    f("glDeleteBuffers")(count, names)
    return t_make, t_first, t_again


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--mib", type=int, default=268)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--storage", action="store_true", help="also immutable GPU-only buffers (glNamedBufferStorage)")
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    floats = a.mib * (1 << 20) // 4
    side = int(floats ** 0.5)

    def timed(fn):
        ctx.finish()
        t = time.perf_counter()
        out = fn()
        ctx.finish()
        return time.perf_counter() - t, out
    for r in range(a.rounds):
        t_take, bufs = timed(lambda: [ctx.buffers.take(side, side, "a probe tile") for _ in range(a.count)])
        t_first, _ = timed(lambda: [fill(ctx, b, 0.0) for b in bufs])
        t_again, _ = timed(lambda: [fill(ctx, b, 1.0) for b in bufs])
        for b in bufs:
            b.give()                                 # the pool keeps at most its keep_bytes; the rest go back
        gib = a.count * side * side * 4 / 2 ** 30
        print(f"round {r}: {a.count} buffers, {gib:.2f} GiB: allocate {t_take * 1e3:.1f} ms, first fill "
              f"{t_first * 1e3:.1f} ms, second fill {t_again * 1e3:.1f} ms", flush=True)
        if a.storage:
            t_make, t_first, t_again = storage_round(a.count, side * side * 4, timed)
            print(f"round {r}: immutable storage: allocate {t_make * 1e3:.1f} ms, first fill {t_first * 1e3:.1f} ms, "
                  f"second fill {t_again * 1e3:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
