"""Where does a sparse QR's time go on the GPU?  One call of `glgpgpu.sparse_qr` per
matrix, with every compute dispatch timed alone (the GPU finished before and after
it, so the times are each kernel's wall time including its launch), the transfers
of each front timed likewise, and the numeric phase's own host phases.

    python experiments/sparse_qr_profile.py ch7-8-b3 nug20 [--method compute] [--dense 4096x4096,...]

`--dense` also times the compute method's dense `qr` on m x n matrices the same way.
Sums are printed per kernel; the finishes inflate the total a little (the GPU idles
between dispatches), so shares, not the total, are the answer.
"""
from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np

import glgpgpu
from glgpgpu.bench import matrices
from glgpgpu.compute import qr as cqr
from glgpgpu.gl import get_context


def instrument(ctx, table):
    kern = ctx.kernels
    orig = kern.dispatch

    def timed(kernel, groups, *a, **k):
        ctx.finish()
        t = time.perf_counter()
        orig(kernel, groups, *a, **k)
        ctx.finish()
        table[kernel][0] += time.perf_counter() - t
        table[kernel][1] += 1
    kern.dispatch = timed
    for name in ("upload", "download"):
        f = getattr(cqr, name)

        def wrap(*a, _f=f, _n=name, **k):
            ctx.finish()
            t = time.perf_counter()
            out = _f(*a, **k)
            ctx.finish()
            table[_n][0] += time.perf_counter() - t
            table[_n][1] += 1
            return out
        setattr(cqr, name, wrap)


def show(title, table, total):
    print(f"== {title}: {total:.2f} s")
    for k, (s, c) in sorted(table.items(), key=lambda kv: -kv[1][0]):
        print(f"   {k:14s} {s:9.3f} s  {c:7d} calls  {1e3 * s / max(c, 1):8.3f} ms each")
    table.clear()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*")
    p.add_argument("--method", default="compute")
    p.add_argument("--dense", default="")
    a = p.parse_args()
    ctx = get_context()
    table = defaultdict(lambda: [0.0, 0])
    instrument(ctx, table)
    rng = np.random.default_rng(0)
    for shape in filter(None, a.dense.split(",")):
        m, n = map(int, shape.split("x"))
        A = rng.standard_normal((m, n)).astype(np.float32)
        glgpgpu.qr(A[:64, :64], mode="raw", method=a.method)
        table.clear()
        t = time.perf_counter()
        glgpgpu.qr(A, mode="raw", method=a.method)
        show(f"dense qr {m}x{n}", table, time.perf_counter() - t)
    for name in a.names:
        A = matrices.GENERATED[name]()
        t = time.perf_counter()
        fac = glgpgpu.sparse_qr(A, tol=-1, method=a.method)
        total = time.perf_counter() - t
        print("phases", {k: round(v, 3) for k, v in fac.info["times"].items()}, "flops", fac.info["flops"])
        show(f"sparse_qr {name} {A.shape}", table, total)


if __name__ == "__main__":
    main()
