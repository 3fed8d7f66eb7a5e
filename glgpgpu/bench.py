"""Benchmarks: the papers' speed claims measured on today's hardware, one run each.

Suites (``glgpgpu bench SUITE``):
  ceiling   the fragment pipeline's own limits: copy-pass fill rate, FMA-loop
            peak, and the cost of one dependent draw (host issue vs. GPU latency)
  assembly  Fig. 8: A D^2 A^T, full and packed, n = 2m, against numpy and ssyrk
  cholesky  Fig. 9: full, packed, triads, inner product and LU by rasterization,
            against LAPACK spotrf / sgetrf (scipy)
Every row carries seconds, G fragments/s, GB/s (2006 paper's Table 1 byte
counts), the fraction of the copy-pass ceiling and the host/GPU ratio, all
from the same run.  GPU times are wall-clock around ctx.finish() after a warm-up.
"""
from __future__ import annotations

import csv
import datetime as _dt
import re
import time
from pathlib import Path

import numpy as np

from . import counts
from . import geometry as geo
from .context import resolve
from .timing import Stopwatch


def device_slug(ctx) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", ctx.caps.renderer).strip("-").lower()
    return s[:40]


def _best(fn, repeat):
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _progress(items, desc):
    try:
        from tqdm import tqdm

        return tqdm(items, desc=desc, leave=False)
    except ImportError:  # pragma: no cover
        return items


# ------------------------------------------------------------------ ceiling

def ceiling(ctx=None, size: int = 4096, repeat: int = 3) -> dict:
    """Copy fill rate, FMA peak, dependent-draw cost on this device."""
    ctx = resolve(ctx)
    K = ctx.kernels
    size = min(size, ctx.max_texture_size)
    a = K.pool.take(size, size)
    b = K.pool.take(size, size)
    a.clear(1.0)
    st = K.store([geo.rectangle(0, 0, size, size), geo.rectangle(0, 0, 1, 1)])
    full, one = st[0], st[1]
    passes = 20

    def copies():
        s, t = a, b
        for _ in range(passes):
            K.draw("copy", t, full, {"S": s})
            s, t = t, s
        ctx.finish()

    copies()
    t_copy = _best(copies, repeat)
    fill = passes * size * size / t_copy

    iters = 64 if "llvmpipe" in ctx.caps.renderer else 512
    fsize = min(size, 512) if "llvmpipe" in ctx.caps.renderer else size

    fma_rect = K.store([geo.rectangle(0, 0, fsize, fsize)])

    def fma():
        K.draw("fma_loop", a, fma_rect[0], uniforms={"u_iters": iters})
        ctx.finish()

    fma()
    t_fma = _best(fma, repeat)
    flops = 32.0 * iters * fsize * fsize / t_fma

    # RGBA32F fetch rate from cache
    small = K.pool.take(64, 64, components=4)
    small.write(np.ones((64, 64, 4), np.float32))
    fiters = 16 if "llvmpipe" in ctx.caps.renderer else 256

    def fetches():
        K.draw("fetch_loop", a, fma_rect[0], {"T": small}, {"u_iters": fiters})
        ctx.finish()

    fetches()
    t_fetch = _best(fetches, repeat)
    fetch_rate = fiters * fsize * fsize / t_fetch
    K.pool.give(small)

    c = K.pool.take(1, 1)
    d = K.pool.take(1, 1)
    ndep = 2000

    timer = ctx.gl.query(time=True)

    def dependent():
        s, t = c, d
        t0 = time.perf_counter()
        with timer:                 # GL timer query: time the GPU spent on the chain
            for _ in range(ndep):
                K.draw("copy", t, one, {"S": s})
                s, t = t, s
        issued = time.perf_counter() - t0
        ctx.finish()
        return issued, time.perf_counter() - t0, timer.elapsed * 1e-9

    dependent()
    issue, tot, gpu = min(dependent() for _ in range(max(1, repeat)))
    K.pool.give(a, b, c, d)
    st.release()
    fma_rect.release()
    return {
        "copy_fill_gfrag_s": fill / 1e9,
        "copy_gb_s": fill * 8 / 1e9,
        "fma_tflop_s": flops / 1e12,
        "rgba_fetch_g_s": fetch_rate / 1e9,
        "dependent_draw_us": tot / ndep * 1e6,
        "draw_issue_us": issue / ndep * 1e6,
        "draw_gpu_us": gpu / ndep * 1e6,
        "copy_size": size,
        "fma_iters": iters,
    }


# ------------------------------------------------------------------ assembly (Fig. 8)

def _host_syrk(A, d2):
    from scipy.linalg.blas import ssyrk

    As = A * np.sqrt(d2)[None, :]
    return ssyrk(1.0, As, lower=1)


def _time_blocked_adat(ctx, A, d2, repeat, tile=None, variant=None, packed=False):
    from . import blocked

    m, n = A.shape
    n4 = -(-n // 4) * 4
    K = ctx.kernels
    a_tex = blocked.upload(ctx, A, m, n4, "A")
    d_tex = blocked.upload(ctx, d2[None, :], 1, n4, "d")
    kw = {"tile": tile} if tile else {}
    if variant is not None:
        kw["variant"] = variant
    if packed:
        kw["packed"] = True

    def run():
        ctx.finish()
        t0 = time.perf_counter()
        c = blocked.adat_texture(a_tex, d_tex, m, ctx=ctx, **kw)
        ctx.finish()
        dt = time.perf_counter() - t0
        K.pool.give(c)
        return dt

    run()
    t = min(run() for _ in range(max(1, repeat)))
    K.pool.give(a_tex, d_tex)
    return t


def assembly(ctx=None, sizes=(64, 128), repeat: int = 2, ceil=None, blocked_tiles=(None, "packed")) -> list:
    from .assemble import assemble_texture

    ctx = resolve(ctx)
    K = ctx.kernels
    rng = np.random.default_rng(8)
    rows = []
    warm = rng.random((8, 16), dtype=np.float32)
    K.pool.give(assemble_texture(warm, warm[0] + 1, ctx=ctx))
    for m in _progress(list(sizes), "assembly"):
        n = 2 * m
        A = rng.random((m, n), dtype=np.float32)
        d2 = rng.random(n, dtype=np.float32)
        host_np = _best(lambda: (A * d2) @ A.T, repeat)
        host_syrk = _best(lambda: _host_syrk(A, d2), repeat)
        host = min(host_np, host_syrk)
        frags, byts = counts.total(counts.assembly(m, n))
        for packed in (False, True):
            best = None
            for _ in range(max(1, repeat)):
                w = Stopwatch(ctx)
                tex = assemble_texture(A, d2, packed=packed, ctx=ctx, watch=w)
                t0 = time.perf_counter()
                tex.read()
                readback = time.perf_counter() - t0
                K.pool.give(tex)
                s = w.as_dict()
                run = (s.get("assemble", 0.0), s.get("transfer", 0.0) + readback)
                best = run if best is None or run[0] < best[0] else best
            t, transfers = best
            rows.append(_row("assembly", ctx, m, n, "packed" if packed else "full", t, frags, byts, ceil,
                             host, extra={"seconds_with_transfers": t + transfers,
                                          "host_numpy_s": host_np, "host_ssyrk_s": host_syrk,
                                          "draws": counts.draws_assembly(n),
                                          "tflop_s": m * m * n / t / 1e12}))
        if ctx.caps.image_load_store:
            for tile in blocked_tiles:
                packed = tile == "packed"
                t = _time_blocked_adat(ctx, A, d2, repeat, None if packed else tile, packed=packed)
                name = ("blocked-packed" if packed else "blocked" if tile is None
                        else f"blocked-{tile[0]}x{tile[1]}")
                row = _row("assembly", ctx, m, n, name, t, frags, byts, ceil, host,
                           extra={"host_numpy_s": host_np, "host_ssyrk_s": host_syrk, "draws": 1,
                                  "tflop_s": m * m * n / t / 1e12})
                row["gfrag_s"] = row["gb_s"] = row["frac_copy_ceiling"] = ""    # not one fragment per FMA
                if ceil:
                    row["frac_fma_ceiling"] = m * m * n / t / 1e12 / ceil["fma_tflop_s"]
                rows.append(row)
    return rows


# ------------------------------------------------------------------ Cholesky (Fig. 9)

def cholesky(ctx=None, sizes=(64, 128), repeat: int = 1, ceil=None,
             variants=("outer", "outer-packed", "triad", "inner", "lu", "outer-dynamic", "blocked")) -> list:
    import scipy.linalg.lapack as lapack

    from .cholesky import factor_texture
    from .lu import lu_texture
    from .triangle_io import upload_lower

    ctx = resolve(ctx)
    K = ctx.kernels
    rng = np.random.default_rng(9)
    rows = []
    for m in _progress(list(sizes), "cholesky"):
        X = rng.random((m, m), dtype=np.float32)
        C = (X @ X.T + m * np.eye(m, dtype=np.float32)).astype(np.float32)
        host_potrf = _best(lambda: lapack.spotrf(C, lower=1), max(repeat, 3))
        host_getrf = _best(lambda: lapack.sgetrf(C), max(repeat, 3))
        for v in variants:
            packed = v.endswith("packed")
            base = v.split("-")[0]
            if base == "blocked" and not ctx.caps.image_load_store:
                continue
            K.static_geometry = not v.endswith("dynamic")

            def run():
                if base == "blocked":
                    from . import blocked

                    tex = blocked.upload(ctx, np.tril(C), blocked.padded(m), blocked.padded(m), "C")
                    ctx.finish()
                    t0 = time.perf_counter()
                    out = blocked.factor_texture(tex, m, ctx=ctx, **tune)
                elif base == "lu":
                    tex = K.pool.take(m, m)
                    tex.write(C)
                    ctx.finish()
                    t0 = time.perf_counter()
                    out = lu_texture(tex, m, ctx)
                else:
                    tex = upload_lower(C, packed, ctx, "C")
                    ctx.finish()
                    t0 = time.perf_counter()
                    out = factor_texture(tex, m, packed=packed, variant=base, ctx=ctx)
                ctx.finish()
                dt = time.perf_counter() - t0
                K.pool.give(out)
                return dt

            tune = {}
            run()        # warm-up: compiles the kernels and builds the vertex store
            t = min(run() for _ in range(max(1, repeat)))
            K.static_geometry = True
            if base == "blocked":
                row = _row("cholesky", ctx, m, m, v, t, 1, 1, ceil, host_potrf,
                           {"host_spotrf_s": host_potrf, "host_sgetrf_s": host_getrf,
                            "draws": 3 * (blocked_padded(m) // 16), "tflop_s": m ** 3 / 3 / t / 1e12})
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
            rows.append(_row("cholesky", ctx, m, m, v, t, frags, byts, ceil, host, extra))
    return rows


def blocked_padded(m):
    from .blocked import padded

    return padded(m)


ADAT_VARIANTS = (("textures", {}), ("buffers", {"BUFFER_LOADS": 1}), ("A-from-buffer", {"A_FROM_BUFFER": 1}),
                 ("AD-from-buffer", {"AD_FROM_BUFFER": 1}), ("hold-rows", {"HOLD_ROWS": 1}),
                 ("A-from-buffer-k-unroll-2", {"A_FROM_BUFFER": 1, "KUNROLL": 2}))


def tune_blocked(ctx=None, m: int = 2048, repeat: int = 1, tiles=(4, 8), panels=(8, 16),
                 adat_tiles=((8, 8), (16, 8), (24, 8), (12, 4))) -> list:
    """Tile and panel sizes of the blocked kernels, one run: A D^2 A^T with n = 2m
    for each (BR, BC) tile, Cholesky for each trailing tile B and panel P."""
    from . import blocked

    ctx = resolve(ctx)
    rng = np.random.default_rng(10)
    A = rng.random((m, 2 * m), dtype=np.float32)
    d2 = rng.random(2 * m, dtype=np.float32)
    X = rng.random((m, m), dtype=np.float32)
    C = (X @ X.T + m * np.eye(m, dtype=np.float32)).astype(np.float32)
    rows = []
    for name, variant in ADAT_VARIANTS:
        for tile in adat_tiles:
            t = _time_blocked_adat(ctx, A, d2, repeat, tile, variant)
            rows.append({"suite": "tune", "kernel": f"adat-{name}", "m": m, "B": f"{tile[0]}x{tile[1]}",
                         "P": "", "seconds": t, "tflop_s": m * m * 2 * m / t / 1e12})
    for B, P in ((4, 16), (8, 16), (4, 32), (8, 32), (8, 64), (16, 64)):
        t = time_trailing_update(ctx, m, B, P)
        n = m - P
        rows.append({"suite": "tune", "kernel": "trailing-update", "m": m, "B": B, "P": P, "seconds": t,
                     "tflop_s": P * n * (n + 1) / t / 1e12})     # 2 flops x P x n(n+1)/2 entries
    for B, P, variant in [(B, P, v) for B in tiles for P in panels for v in ({}, {"COLS_FROM_BUFFER": 1})]:
        if True:
            if P % B or P % 4:
                continue
            mp = blocked.padded(m, P)

            def run():
                tex = blocked.upload(ctx, np.tril(C), mp, mp, "C")
                ctx.finish()
                t0 = time.perf_counter()
                out = blocked.factor_texture(tex, m, P=P, B=B, ctx=ctx, variant=variant)
                ctx.finish()
                dt = time.perf_counter() - t0
                ctx.kernels.pool.give(out)
                return dt

            run()
            t = min(run() for _ in range(max(1, repeat)))
            rows.append({"suite": "tune", "kernel": "cholesky" + ("-cols-from-buffer" if variant else ""),
                         "m": m, "B": B, "P": P, "seconds": t,
                         "tflop_s": m ** 3 / 3 / t / 1e12})
    return rows


def time_trailing_update(ctx, m: int, B: int, P: int, variant: dict | None = None, passes: int = 10) -> float:
    """Seconds of one blocked trailing update (rank P, over the lower block
    triangle of an m x m matrix, the first panel's), averaged over `passes`."""
    from . import blocked

    K = ctx.kernels
    rng = np.random.default_rng(11)
    mp = blocked.padded(m, P)
    a_tex = blocked.upload(ctx, np.tril(rng.random((mp, mp), dtype=np.float32)), mp, mp, "A")
    pnl = K.pool.take(mp, P // 4, components=4)
    pnl.write(rng.random((mp, P // 4, 4), dtype=np.float32) * 1e-3)
    G = mp // B
    kk = P // B - 1
    d = {"P": P, "B": B, **(blocked.UPDATE_VARIANT if variant is None else variant)}
    pbuf = None
    if "COLS_FROM_BUFFER" in d:
        pbuf = {1: K.scratch_buffer("PNL", mp * P * 4)}
        pnl.tex.read_into(pbuf[1], alignment=4)
    grid = blocked._grid(ctx, G, G)
    tri = geo.fig5_outer_product_sub(G, kk)
    K.draw("blocked_update", grid, tri, {"PNL": pnl}, None, images={"A": a_tex}, defines=d, buffers=pbuf)
    ctx.finish()
    t0 = time.perf_counter()
    for _ in range(passes):
        K.draw("blocked_update", grid, tri, {"PNL": pnl}, None, images={"A": a_tex}, defines=d, buffers=pbuf)
    ctx.finish()
    K.pool.give(a_tex, pnl)
    return (time.perf_counter() - t0) / passes


def _row(suite, ctx, m, n, variant, seconds, frags, byts, ceil, host, extra=None):
    row = {
        "suite": suite, "device": ctx.caps.renderer, "date": _dt.date.today().isoformat(),
        "m": m, "n": n, "variant": variant, "seconds": seconds,
        "gfrag_s": frags / seconds / 1e9, "gb_s": byts / seconds / 1e9, "fragments": frags,
        "frac_copy_ceiling": (frags / seconds / 1e9 / ceil["copy_fill_gfrag_s"]) if ceil else "",
        "host_seconds": host, "host_over_gpu": host / seconds,
    }
    row.update(extra or {})
    return row


# ------------------------------------------------------------------ output

def write_csv(rows: list, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    return path


def plot(rows: list, path: Path, title: str, host_keys: dict) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for v in dict.fromkeys(r["variant"] for r in rows):
        pts = [(r["m"], r["seconds"]) for r in rows if r["variant"] == v]
        ax.plot(*zip(*pts), "o-", label=f"GPU {v}")
    for key, label in host_keys.items():
        pts = sorted({(r["m"], r[key]) for r in rows if key in r})
        if pts:
            ax.plot(*zip(*pts), "s--", label=label)
    ax.set_xlabel("m")
    ax.set_ylabel("seconds")
    ax.set_yscale("log")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# suite -> (measure, plot title, host lines of the plot)
FIGURES = {
    "assembly": (assembly, "A D^2 A^T, n = 2m (Fig. 8)",
                 {"host_numpy_s": "host (A*d2) @ A.T", "host_ssyrk_s": "host ssyrk"}),
    "cholesky": (cholesky, "Cholesky (Fig. 9)", {"host_spotrf_s": "host spotrf", "host_sgetrf_s": "host sgetrf"}),
}


def run_suite(suite: str, sizes, repeat: int, out: Path, ctx=None) -> dict:
    """Run one suite (plus `ceiling`, which the others are measured against)."""
    ctx = resolve(ctx)
    date = _dt.date.today().isoformat()
    stem = f"{device_slug(ctx)}-{date}"
    ceil = ceiling(ctx, repeat=repeat)
    result = {"ceiling": ceil, "files": []}
    crow = dict(suite="ceiling", measured_with=suite, device=ctx.caps.renderer, date=date, **ceil)
    path = out / f"ceiling-{stem}.csv"
    earlier = list(csv.DictReader(open(path))) if path.exists() else []   # one row per suite run
    result["files"].append(write_csv(earlier + [crow], path))
    if suite in FIGURES:
        measure, title, host_lines = FIGURES[suite]
        rows = measure(ctx, sizes, repeat, ceil)
        result["files"].append(write_csv(rows, out / f"{suite}-{stem}.csv"))
        result["files"].append(plot(rows, out / f"{suite}-{stem}.png",
                                    f"{title} - {ctx.caps.renderer}, {date}", host_lines))
        result["rows"] = rows
    elif suite == "tune":
        rows = []
        for m in sizes:
            rows += tune_blocked(ctx, m, repeat)
        result["files"].append(write_csv(rows, out / f"tune-{stem}.csv"))
        result["tune"] = rows
    elif suite != "ceiling":
        raise ValueError(f"unknown suite {suite!r}: ceiling, assembly, cholesky, tune")
    return result
