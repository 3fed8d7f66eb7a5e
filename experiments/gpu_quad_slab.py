"""Issue 14/17 tuning on the GPU machine: (1) blocked_adat with and without quad
sharing (GL_KHR_shader_subgroup_quad), kernel only, bit-for-bit check; (2) the slab
Cholesky's slab width, kernel only, bit-for-bit against slab=0.

    python benchmarks/gpu_quad_slab.py [adat_m] [chol_sizes] [slabs]

Writes quad-slab-<device>-<date>.csv into $OUT (or benchmarks/results)."""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import csv
import importlib
import os
import sys
import time

import numpy as np

from glgpgpu import blocked
from glgpgpu.bench.assembly import time_blocked_adat
from glgpgpu.blocked.sizes import ADAT_VARIANT
from glgpgpu.gl import resolve
from glgpgpu.gl.transfer import read_rgba_lower, upload_rgba

badat = importlib.import_module("glgpgpu.blocked.adat")


def main(adat_m=4096, chol_sizes="1024,2048,4096,8192", slabs="0,128,256,512,1024"):
    ctx = resolve(None)
    dev = ctx.caps.renderer
    print(dev, "| GL_KHR_shader_subgroup:", "GL_KHR_shader_subgroup" in ctx.gl.extensions,
          "| quad sharing offered:", badat.quad_sharing(ctx))
    rows = []
    rng = np.random.default_rng(0)
    m = int(adat_m)
    A = rng.random((m, 2 * m), dtype=np.float32)
    d2 = (rng.random(2 * m, dtype=np.float32) + 0.5)
    ref = None
    for name, tile, var in (("plain 8x8", (8, 8), {}), ("quad-rows 8x8", (8, 8), {"QUAD_ROWS": 1}),
                            ("quad-cols 8x8", (8, 8), {"QUAD_COLS": 1}),
                            ("quad-both 8x8", (8, 8), {"QUAD_ROWS": 1, "QUAD_COLS": 1}),
                            ("plain 16x8", (16, 8), {}), ("quad-rows 16x8", (16, 8), {"QUAD_ROWS": 1}),
                            ("quad-both 16x8", (16, 8), {"QUAD_ROWS": 1, "QUAD_COLS": 1})):
        variant = {**ADAT_VARIANT, **var}
        try:
            t = time_blocked_adat(ctx, A, d2, 3, tile=tile, variant=variant)
            a_tex = upload_rgba(ctx, A, m, 2 * m, "A")
            d_tex = upload_rgba(ctx, d2[None, :], 1, 2 * m, "d")
            c = blocked.adat_texture(a_tex, d_tex, m, ctx=ctx, tile=tile, variant=variant)
            C = read_rgba_lower(c, m)
            ctx.pool.give(a_tex, d_tex, c)
        except Exception as exc:                     # noqa: BLE001
            print(f"adat {name}: FAILED {exc}")
            continue
        if tile == (8, 8) and ref is None:
            ref = C
        same = bool(np.array_equal(C, ref)) if tile == (8, 8) else ""
        tflops = 2 * m * m * 2 * m / 2 / t / 1e12
        print(f"adat m={m} n={2*m} {name}: {t:.4f} s kernel, {tflops:.3f} TFLOP/s (m^2 n), same bits as plain 8x8: {same}")
        rows.append({"what": "adat", "variant": name, "m": m, "W": "", "kernel_s": t, "tflops": tflops,
                     "bitwise_equal": same})
    for m in (int(s) for s in chol_sizes.split(",")):
        X = rng.standard_normal((m, m)).astype(np.float32)
        C = (X @ X.T / m + np.eye(m, dtype=np.float32)).astype(np.float32)
        mp = blocked.padded(m)
        base = None
        for W in (int(s) for s in slabs.split(",")):
            times = []
            for rep in range(4):
                tex = upload_rgba(ctx, np.tril(C), mp, mp, "C")
                ctx.finish()
                t0 = time.perf_counter()
                blocked.factor_texture(tex, m, ctx=ctx, slab=W)
                ctx.finish()
                times.append(time.perf_counter() - t0)
                if rep == 0:
                    L = read_rgba_lower(tex, m)
                ctx.pool.give(tex)
            t = min(times[1:])
            if base is None:
                base = L
            same = bool(np.array_equal(L, base))
            rel = float(np.abs(L.astype(np.float64) @ (L.T.astype(np.float64) @ np.ones(m)) - C @ np.ones(m)).max()
                        / np.abs(C @ np.ones(m)).max())
            tflops = m ** 3 / 3 / t / 1e12
            print(f"cholesky m={m} slab={W}: {t:.4f} s kernel, {tflops:.3f} TFLOP/s, same bits as slab=0: {same}, "
                  f"probe backward error {rel:.1e}")
            rows.append({"what": "cholesky", "variant": f"slab={W}", "m": m, "W": W, "kernel_s": t,
                         "tflops": tflops, "bitwise_equal": same})
    out = os.environ.get("OUT", "benchmarks/results")
    os.makedirs(out, exist_ok=True)
    tag = "".join(ch if ch.isalnum() else "-" for ch in dev.lower())[:40]
    path = f"{out}/quad-slab-{tag}-{time.strftime('%Y-%m-%d')}.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("wrote", path)


if __name__ == "__main__":
    main(*sys.argv[1:])
