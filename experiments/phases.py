"""Where one public call's milliseconds go, phase by phase: wraps the call's steps
(input checks, memory check, upload, kernel, read-back, result check) with timers
and a glFinish before and after each, so GPU work is charged to the step that
queued it.  The finishes add a little; the total beside the plain end-to-end time
shows how much.

    python benchmarks/phases.py [m] [repeat]      (blocked adat, adat packed, cholesky)"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import importlib
import sys
import time
from collections import defaultdict

import numpy as np

import glgpgpu
from glgpgpu.bench.common import call_inputs
from glgpgpu.gl import resolve

STEPS = [("glgpgpu.validate", "array"), ("glgpgpu.validate", "square"),
         ("glgpgpu.validate", "finite_result"), ("glgpgpu.gl.memory", "require"),
         ("glgpgpu.gl.textures", "TexturePool.take"), ("glgpgpu.gl.textures", "MatrixTexture.upload"),
         ("glgpgpu.gl.textures", "MatrixTexture.read"), ("glgpgpu.gl.textures", "MatrixTexture.clear"),
         ("glgpgpu.blocked.adat", "adat_texture"), ("glgpgpu.blocked.adat", "expand_blocks"),
         ("glgpgpu.tiled.cholesky", "factor"), ("glgpgpu.tiled.matrix", "TiledLower.clear_upper"),
         ("glgpgpu.gl.transfer", "read_rgba_lower")]


def wrap(ctx, spent):
    for modname, path in STEPS:
        owner = importlib.import_module(modname)
        if "." in path:
            cls, attr = path.split(".")
            owner = getattr(owner, cls)
        else:
            attr = path
        fn = owner.__dict__[attr]
        is_cm = isinstance(fn, classmethod)
        inner = fn.__func__ if is_cm else fn

        def timed(*a, _inner=inner, _name=path, **k):
            ctx.finish()
            t0 = time.perf_counter()
            try:
                return _inner(*a, **k)
            finally:
                ctx.finish()
                spent[_name] += time.perf_counter() - t0

        setattr(owner, attr, classmethod(timed) if is_cm else timed)
        if modname == "glgpgpu.gl.transfer":           # imported by name elsewhere too
            for user in ("glgpgpu.blocked.adat", "glgpgpu.blocked.tile_kernels"):
                setattr(importlib.import_module(user), attr, timed)


def main(m=1024, repeat=5):
    m, repeat = int(m), int(repeat)
    ctx = resolve(None)
    A, d2, C, L, b, bw = call_inputs(np.random.default_rng(14), m)
    calls = {"adat": lambda: glgpgpu.adat(A, d2, method="blocked", ctx=ctx),
             "adat packed": lambda: glgpgpu.adat(A, d2, method="blocked", packed=True, ctx=ctx),
             "cholesky": lambda: glgpgpu.cholesky(C, method="blocked", ctx=ctx)}
    plain = {}
    for name, fn in calls.items():
        fn()
        best = float("inf")
        for _ in range(repeat):
            ctx.finish()
            t0 = time.perf_counter()
            fn()
            ctx.finish()
            best = min(best, time.perf_counter() - t0)
        plain[name] = best
    spent = defaultdict(float)
    wrap(ctx, spent)
    print(ctx.caps.renderer, f"m={m}")
    for name, fn in calls.items():
        fn()
        rows = []
        for _ in range(repeat):
            spent.clear()
            t0 = time.perf_counter()
            fn()
            ctx.finish()
            rows.append((time.perf_counter() - t0, dict(spent)))
        total, parts = min(rows, key=lambda r: r[0])
        shown = ", ".join(f"{k} {v * 1e3:.2f}" for k, v in parts.items())
        print(f"{name}: plain {plain[name] * 1e3:.2f} ms; with finishes {total * 1e3:.2f} ms = {shown}, "
              f"other {(total - sum(parts.values())) * 1e3:.2f}", flush=True)
    shapes(ctx, 8 * m * m, repeat)


def shapes(ctx, nbytes, repeat):
    """A plain upload and download of the same bytes in textures of different shapes
    (the transfer floor uses 2048 texels per row): does the shape matter?"""
    for cols in (256, 512, 1024, 2048):
        rows = int(nbytes // (16 * cols))
        data = np.ones((rows, cols, 4), np.float32)
        tex = ctx.pool.take(rows, cols, "probe", components=4)
        up, down = [], []
        for _ in range(repeat + 1):
            ctx.finish()
            t0 = time.perf_counter()
            tex.write(data)
            ctx.finish()
            up.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            tex.read()
            down.append(time.perf_counter() - t0)
        ctx.pool.give(tex)
        print(f"{nbytes / 2**20:.0f} MiB as {rows} x {cols} RGBA: upload {min(up) * 1e3:.2f} ms, "
              f"download {min(down) * 1e3:.2f} ms")


if __name__ == "__main__":
    main(*sys.argv[1:])
