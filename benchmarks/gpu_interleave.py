"""Issue 14/17 tuning on the GPU machine: blocked_adat's operand loads, kernel only,
bit-for-bit against the default (A_FROM_BUFFER): the INTERLEAVED variant reads both
operands from storage buffers in block-interleaved order (blocked_interleave.frag),
so one warp's load at one step touches one cache line instead of one per fragment.
Then the blocked Cholesky (kernel only) and the public adat / cholesky calls (end to
end) with each variant as the default.

    python benchmarks/gpu_interleave.py [adat_m] [chol_sizes] [e2e_sizes]

Writes interleave-<device>-<date>.csv into $OUT (or benchmarks/results)."""
import csv
import datetime
import importlib
import os
import sys
import time

import numpy as np

import glgpgpu
from glgpgpu import blocked
from glgpgpu.bench.assembly import time_blocked_adat
from glgpgpu.gl import resolve
from glgpgpu.layouts.transfer import read_rgba_lower, upload_rgba

badat = importlib.import_module("glgpgpu.blocked.adat")
DEFAULT = dict(badat.ADAT_VARIANT)
VARIANTS = {"buffer-A": DEFAULT, "interleaved": {"INTERLEAVED": 1}}


def best(fn, repeat=3):
    fn()
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main(adat_m="4096", chol_sizes="1024,2048,4096,8192", e2e_sizes="1024,4096"):
    ctx = resolve(None)
    dev = ctx.caps.renderer
    print(dev)
    rows = []
    rng = np.random.default_rng(0)
    for m in (int(s) for s in adat_m.split(",")):
        A = rng.random((m, 2 * m), dtype=np.float32)
        d2 = (rng.random(2 * m, dtype=np.float32) + 0.5)
        ref = None
        for name, var in VARIANTS.items():
            for tile in ((8, 8), (16, 8), (8, 4), (16, 4), (12, 4), (16, 16)):
                if name == "buffer-A" and tile not in ((8, 8), (16, 8)):
                    continue
                try:
                    t = time_blocked_adat(ctx, A, d2, 3, tile=tile, variant=var)
                    a_tex = upload_rgba(ctx, A, m, 2 * m, "A")
                    d_tex = upload_rgba(ctx, d2[None, :], 1, 2 * m, "d")
                    c = blocked.adat_texture(a_tex, d_tex, m, ctx=ctx, tile=tile, variant=var)
                    C = read_rgba_lower(c, m)
                    ctx.kernels.pool.give(a_tex, d_tex, c)
                except Exception as exc:                     # noqa: BLE001
                    print(f"adat {name} {tile}: FAILED {exc}")
                    continue
                if tile == (8, 8) and ref is None:
                    ref = C
                same = bool(np.array_equal(C, ref)) if tile == (8, 8) else ""
                tflops = m * m * 2 * m / t / 1e12
                print(f"adat m={m} n={2*m} {name} {tile}: {t:.4f} s kernel, {tflops:.3f} TFLOP/s, same bits: {same}",
                      flush=True)
                rows.append({"what": "adat kernel", "variant": name, "tile": f"{tile[0]}x{tile[1]}", "m": m,
                             "seconds": t, "tflops": tflops, "bitwise_equal": same})
    for m in (int(s) for s in chol_sizes.split(",") if s):
        X = rng.standard_normal((m, m)).astype(np.float32)
        C = (X @ X.T / m + np.eye(m, dtype=np.float32)).astype(np.float32)
        ref = None
        for name, var in VARIANTS.items():
            badat.ADAT_VARIANT = var
            mp = blocked.padded(m, 16)

            def run():
                tex = upload_rgba(ctx, np.tril(C), mp, mp, "C")
                ctx.finish()
                t0 = time.perf_counter()
                out = blocked.factor_texture(tex, m, ctx=ctx)
                ctx.finish()
                dt = time.perf_counter() - t0
                L = read_rgba_lower(out, m)
                ctx.kernels.pool.give(out)
                return dt, L

            run()
            t, L = min((run() for _ in range(3)), key=lambda r: r[0])
            ref = L if ref is None else ref
            same = bool(np.array_equal(L, ref))
            print(f"cholesky kernel m={m} {name}: {t:.4f} s, {m**3/3/t/1e12:.3f} TFLOP/s, same bits: {same}", flush=True)
            rows.append({"what": "cholesky kernel", "variant": name, "tile": "8x8", "m": m, "seconds": t,
                         "tflops": m ** 3 / 3 / t / 1e12, "bitwise_equal": same})
        badat.ADAT_VARIANT = DEFAULT
    for m in (int(s) for s in e2e_sizes.split(",") if s):
        A = rng.random((m, 2 * m), dtype=np.float32)
        d2 = (rng.random(2 * m, dtype=np.float32) + 0.5)
        X = rng.standard_normal((m, m)).astype(np.float32)
        C = (X @ X.T / m + np.eye(m, dtype=np.float32)).astype(np.float32)
        for rep in range(2):                          # interleaved: the two variants alternate
            for name, var in VARIANTS.items():
                badat.ADAT_VARIANT = var
                for call, fn in (("adat", lambda: glgpgpu.adat(A, d2, method="blocked", ctx=ctx)),
                                 ("adat packed", lambda: glgpgpu.adat(A, d2, method="blocked", packed=True, ctx=ctx)),
                                 ("cholesky", lambda: glgpgpu.cholesky(C, method="blocked", ctx=ctx))):
                    t = best(fn, 5 if m <= 1024 else 3)
                    print(f"e2e {call} m={m} {name} (round {rep}): {t:.4f} s", flush=True)
                    rows.append({"what": f"{call} end to end", "variant": name, "tile": "8x8", "m": m,
                                 "seconds": t, "tflops": "", "bitwise_equal": ""})
        badat.ADAT_VARIANT = DEFAULT
    out = os.environ.get("OUT") or "benchmarks/results"
    tag = "".join(c if c.isalnum() else "-" for c in dev.lower()).strip("-")
    path = os.path.join(out, f"interleave-{tag}-{datetime.date.today()}.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("wrote", path)


if __name__ == "__main__":
    main(*sys.argv[1:])
