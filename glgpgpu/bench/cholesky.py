"""Fig. 9 of the 2008 paper: Cholesky full, packed, triads, inner product, LU by
rasterization and the blocked path, against LAPACK spotrf / sgetrf on the host."""
from __future__ import annotations

import time

import numpy as np

from .. import blocked
from ..gl import resolve
from ..gl.transfer import upload_lower, upload_rgba
from ..paper import factor_texture, lu_texture
from ..teach import counts
from .common import best_of, make_row, progress


def cholesky(ctx=None, sizes=(64, 128), repeat: int = 1, ceil=None,
             variants=("outer", "outer-packed", "triad", "inner", "lu", "blocked")) -> list:
    import scipy.linalg.lapack as lapack

    ctx = resolve(ctx)
    rng = np.random.default_rng(9)
    rows = []
    for m in progress(list(sizes), "cholesky"):
        X = rng.random((m, m), dtype=np.float32)
        C = (X @ X.T + m * np.eye(m, dtype=np.float32)).astype(np.float32)
        host_potrf = best_of(lambda: lapack.spotrf(C, lower=1), max(repeat, 3))
        host_getrf = best_of(lambda: lapack.sgetrf(C), max(repeat, 3))
        for v in variants:
            packed = v.endswith("packed")
            base = v.split("-")[0]
            if base == "blocked" and not ctx.caps.image_load_store:
                continue

            def run():
                if base == "blocked":
                    tex = upload_rgba(ctx, np.tril(C), blocked.padded(m), blocked.padded(m), "C")
                    ctx.finish()
                    t0 = time.perf_counter()
                    out = blocked.factor_texture(tex, m, ctx=ctx, **tune)
                elif base == "lu":
                    tex = ctx.pool.take(m, m)
                    tex.write(C)
                    ctx.finish()
                    t0 = time.perf_counter()
                    out = lu_texture(tex, m, ctx=ctx)
                else:
                    tex = upload_lower(C, packed, ctx, "C")
                    ctx.finish()
                    t0 = time.perf_counter()
                    out = factor_texture(tex, m, packed=packed, variant=base, ctx=ctx)
                ctx.finish()
                dt = time.perf_counter() - t0
                ctx.pool.give(out)
                return dt

            tune = {}
            run()        # warm-up: compiles the kernels and builds the vertex store
            t = min(run() for _ in range(max(1, repeat)))
            if base == "blocked":
                row = make_row("cholesky", ctx, m, m, v, t, 1, 1, ceil, host_potrf,
                           {"host_spotrf_s": host_potrf, "host_sgetrf_s": host_getrf,
                            "draws": 3 * (blocked.padded(m) // 16), "tflop_s": m ** 3 / 3 / t / 1e12})
                row["gfrag_s"] = row["gb_s"] = row["frac_copy_ceiling"] = ""
                if ceil:
                    row["frac_fma_ceiling"] = m ** 3 / 3 / t / 1e12 / ceil["fma_tflop_s"]
                rows.append(row)
                continue
            table = counts.lu(m) if base == "lu" else counts.cholesky(m, "inner" if base == "inner" else "outer")
            frags, byts = counts.total(table)
            draws = counts.draws_lu(m) if base == "lu" else counts.draws_cholesky(m, base)
            host = host_getrf if base == "lu" else host_potrf
            extra = {"host_spotrf_s": host_potrf, "host_sgetrf_s": host_getrf, "draws": draws}
            if ceil:
                floor = draws * ceil["dependent_draw_us"] * 1e-6 + frags / (ceil["copy_fill_gfrag_s"] * 1e9)
                extra["floor_s"] = floor
                extra["over_floor"] = t / floor
            rows.append(make_row("cholesky", ctx, m, m, v, t, frags, byts, ceil, host, extra))
    return rows
