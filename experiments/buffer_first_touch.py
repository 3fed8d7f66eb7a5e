"""Why did the LS-SVM's tiled "form" phase take 0.14 s in one process and 2.3 s in another
on the same H100 (round 30)?  The suspect: the driver's first touch of newly allocated
storage buffers.  For `count` buffers of `mib` MiB each: the time to allocate them all
(the pool's take, glBufferData with no data), to fill each once (its first touch), to fill
each again; then the same again after they were given back (the pool keeps at most
keep_bytes of them, the rest go back to the driver) -- each phase between glFinish calls.

    python experiments/buffer_first_touch.py [--count 10] [--mib 268] [--rounds 2]
"""
from __future__ import annotations

import argparse
import time

import glgpgpu
from glgpgpu.compute.blas import fill


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--mib", type=int, default=268)
    ap.add_argument("--rounds", type=int, default=2)
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


if __name__ == "__main__":
    main()
