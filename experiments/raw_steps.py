"""Is the compute QR's tall panel (a dispatch per column step, `Kernels.dispatch_steps`:
~3,960 launches at 4096, against ~770 for everything else) held up by the host's cost per
launch?  Each step as shipped sets its uniform through moderngl and launches through
moderngl's ComputeShader.run and Context.memory_barrier; here the same steps go straight
to the driver by ctypes (glProgramUniform1i, glDispatchCompute, glMemoryBarrier), the
program bound once.  qr_raw as shipped and with the raw steps, alternating, best and
median of `repeat`, the same bits?  Also the host's time to issue one factorization's
launches against the wait after it.

    python experiments/raw_steps.py [--sizes 4096,2048x8192] [--repeat 9]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import glgpgpu
from glgpgpu.compute import blas, qr
from glgpgpu.gl import kernels as kernels_module
from glgpgpu.gl.rawgl import function


def raw_dispatch_steps(self, kernel, groups, step, values, uniforms=None, buffers=None, defines=None, work=1):
    values = list(values)
    if not values:
        return
    self.dispatch(kernel, groups, uniforms={**(uniforms or {}), step: values[0]}, buffers=buffers,
                  defines=defines, work=work)
    prog = self.programs.get(kernel, defines, compute=True)
    glo = prog.prog.glo
    loc = function("glGetUniformLocation")(glo, step.encode())
    uniform, run, barrier = function("glProgramUniform1i"), function("glDispatchCompute"), function("glMemoryBarrier")
    gx, gy, gz = (int(g) for g in (tuple(groups) + (1, 1))[:3])
    bits = self.barrier_bits
    for value in values[1:]:
        uniform(glo, loc, int(value))
        run(gx, gy, gz)
        barrier(bits)
    prog.uniform_cache[step] = values[-1]
    self.queued += len(values) - 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4096,2048x8192")
    ap.add_argument("--repeat", type=int, default=9)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    shipped = kernels_module.Kernels.dispatch_steps
    variants = (("as shipped", shipped), ("raw ctypes steps", raw_dispatch_steps))
    for size in a.sizes.split(","):
        m, n = (int(v) for v in size.split("x")) if "x" in size else (int(size),) * 2
        A = np.random.default_rng(0).standard_normal((m, n)).astype(np.float32)
        times, results, issue = {k: [] for k, _ in variants}, {}, {}
        for _ in range(a.repeat):
            for name, steps in variants:
                kernels_module.Kernels.dispatch_steps = steps
                try:
                    qr.qr_raw(A, ctx=ctx)
                    ctx.finish()
                    t = time.perf_counter()
                    results[name] = qr.qr_raw(A, ctx=ctx)
                    times[name].append(time.perf_counter() - t)
                    F = blas.upload(ctx, A)
                    ctx.finish()
                    t0 = time.perf_counter()
                    tau, T = qr.factor_buffer(ctx, F, m, n)
                    t1 = time.perf_counter()
                    ctx.finish()
                    t2 = time.perf_counter()
                    if t2 - t0 < sum(issue.get(name, (np.inf, 0))):
                        issue[name] = (t1 - t0, t2 - t1)
                    for b in (F, tau, T):
                        b.give()
                finally:
                    kernels_module.Kernels.dispatch_steps = shipped
        same = all(np.array_equal(x, y) for x, y in zip(*results.values()))
        for name, ts in times.items():
            print(f"{m} x {n}: {name:17s} qr_raw best {min(ts) * 1e3:6.1f} ms, median {np.median(ts) * 1e3:6.1f} ms; "
                  f"factor_buffer issued in {issue[name][0] * 1e3:.1f} ms, then waited {issue[name][1] * 1e3:.1f} ms",
                  flush=True)
        print(f"{m} x {n}: the same bits: {same}", flush=True)


if __name__ == "__main__":
    main()
