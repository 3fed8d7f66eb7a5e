"""Does the GPU start a compute call's dispatches late because the driver holds them in its
command buffer until something flushes it?  kernel_times.py found `qr` 4096 issuing its 766
dispatches in ~32 ms and then waiting ~37 ms more, with only ~24 ms of kernel time between
them.  Here each op runs as shipped and with a glFlush after every `every` launches
(Kernels._launch wrapped), alternating, best and median of `repeat`; and, as shipped, the GPU's
wall time from the first launch to the last one's end (timestamps, no serialization):
how much of it the kernels fill.

    python experiments/flush_cadence.py [--ops qr,cholesky] [--m 4096] [--every 1,4,16] [--repeat 9]
"""
from __future__ import annotations

import argparse
import ctypes
import time

import numpy as np

import glgpgpu
from glgpgpu.compute import dense, qr
from glgpgpu.gl import kernels as kernels_module
from glgpgpu.gl.rawgl import function

TIMESTAMP, QUERY_RESULT = 0x8E28, 0x8866


def gpu_span(ctx, call):
    """(GPU ns from a timestamp before the call to one after it, host seconds of the call)."""
    gen, counter, result = function("glGenQueries"), function("glQueryCounter"), function("glGetQueryObjectui64v")
    ids = (ctypes.c_uint * 2)()
    gen(2, ids)
    ctx.finish()
    t = time.perf_counter()
    counter(ids[0], TIMESTAMP)
    call()
    counter(ids[1], TIMESTAMP)
    ctx.finish()
    host = time.perf_counter() - t
    v = [ctypes.c_uint64(), ctypes.c_uint64()]
    for i in range(2):
        result(ids[i], QUERY_RESULT, ctypes.byref(v[i]))
    function("glDeleteQueries")(2, ids)
    return (v[1].value - v[0].value) * 1e-9, host


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", default="qr,cholesky")
    ap.add_argument("--m", type=int, default=4096)
    ap.add_argument("--every", default="1,4,16")
    ap.add_argument("--repeat", type=int, default=9)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    m, rng = a.m, np.random.default_rng(0)
    X = rng.standard_normal((m, m)).astype(np.float32)
    C = np.ascontiguousarray(X @ X.T / m + np.eye(m, dtype=np.float32))
    calls = {"qr": lambda: qr.qr_raw(X, ctx=ctx), "cholesky": lambda: dense.cholesky(C, ctx=ctx)}
    flush = function("glFlush")
    shipped = kernels_module.Kernels._launch
    count = [0]

    def flushing(every):
        def launch(self, *args, **kw):
            shipped(self, *args, **kw)
            count[0] += 1
            if count[0] % every == 0:
                flush()
        return launch

    variants = [("as shipped", shipped)] + [(f"glFlush every {e}", flushing(int(e))) for e in a.every.split(",")]
    for op in a.ops.split(","):
        call = calls[op]
        call()
        times = {name: [] for name, _ in variants}
        for _ in range(a.repeat):
            for name, launch in variants:
                kernels_module.Kernels._launch = launch
                try:
                    ctx.finish()
                    t = time.perf_counter()
                    call()
                    times[name].append(time.perf_counter() - t)
                finally:
                    kernels_module.Kernels._launch = shipped
        for name, ts in times.items():
            print(f"{op} {m}: {name:18s} best {min(ts) * 1e3:6.1f} ms, median {np.median(ts) * 1e3:6.1f} ms",
                  flush=True)
        spans = [gpu_span(ctx, call) for _ in range(3)]
        g, h = min(spans)
        print(f"{op} {m}: as shipped, GPU timestamps around the call {g * 1e3:.1f} ms (host {h * 1e3:.1f} ms)",
              flush=True)


if __name__ == "__main__":
    main()
