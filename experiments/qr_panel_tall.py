"""Does the compute QR gain from factoring a tall panel in one dispatch by one workgroup
(`experiments/shaders/qr_panel_tall.comp`: the column steps meet at a workgroup barrier, the
panel copied to a column-major scratch so that a warp's rows of a column are one memory
transaction) instead of a dispatch a column over chunks of its rows (qr_panel_rows.comp, as
shipped)?  round 33's timings put the 4096² QR at ~3,960 column-step launches of ~13 us of
GPU each, most of the call.  qr_raw as shipped, with the panels of up to ONE_GROUP_ROWS rows
(and PANEL_ROWS or more) by the one-workgroup kernel, and with the short panels by it too,
alternating, best and median of `repeat`, each with ||QR - A|| / ||A|| (Q by LAPACK's sorgqr
from the GPU's reflectors).

    python experiments/qr_panel_tall.py [--sizes 4096,2048x8192,8192,16384x1024] [--repeat 7]
"""
from __future__ import annotations

import argparse
import contextlib
import os
import time

import numpy as np
import scipy.linalg.lapack as lapack

os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))

import glgpgpu  # noqa: E402
from glgpgpu.compute import qr  # noqa: E402

ONE_GROUP_ROWS = 8192
SHIPPED = qr._factor_panel


def tall_threads(ctx, fp64: bool = False) -> int:
    """The kernel's threads: the most whose sums (NBQ + 1 rows of threads + 4 numbers, and
    NBQ + 1 rows of 4) fit 48 KiB of shared memory (NVIDIA's), 32 KiB on a software renderer."""
    size, room = (8 if fp64 else 4), (32768 if ctx.caps.software else 49152)
    for threads in (256, 192, 128, 96, 64):
        if ((threads + 4) * (qr.NBQ + 1) + 4 * (qr.NBQ + 1) + qr.NBQ) * size + 256 <= room:
            return threads
    return 32


def one_group_panels(short_too: bool):
    """A replacement for qr._factor_panel: panels of up to ONE_GROUP_ROWS rows (from PANEL_ROWS
    unless short_too) by qr_panel_tall, a scratch of rows x NBQ for the column-major copy."""
    def factor_panel(ctx, F, tau, work, m, j0, kb):
        rows = m - j0
        if rows > ONE_GROUP_ROWS or (rows < qr.PANEL_ROWS and not short_too):
            return SHIPPED(ctx, F, tau, work, m, j0, kb)
        scratch = ctx.buffers.take(rows + 1, qr.NBQ, "the panel, column-major")
        try:
            ctx.kernels.dispatch("qr_panel_tall", (1, 1, 1), buffers={0: F.buf, 1: tau.buf, 2: scratch.buf},
                                 defines={**work.defs, "PT": tall_threads(ctx)}, work=rows * kb * kb // 64,
                                 uniforms={"u_m": m, "u_ld": F.ld, "u_j0": j0, "u_kb": kb})
        finally:
            scratch.give()
    return factor_panel


VARIANTS = (("chunks a column (shipped)", SHIPPED),
            ("one workgroup a panel", one_group_panels(False)),
            ("also the short panels", one_group_panels(True)))


def backward_error(A, F, tau):
    m, n = A.shape
    k = min(m, n)
    Q = lapack.sorgqr(F[:, :k].copy(order="F"), tau[:k])[0]
    R = np.triu(F[:k, :])
    return float(np.linalg.norm(Q.astype(np.float64) @ R - A) / np.linalg.norm(A))


def compare(ctx, sizes: str, repeat: int, variants) -> None:
    """qr_raw of each size under each variant (name, a context manager putting it in place),
    alternating, the first round untimed (its answer checked); best and median printed."""
    for size in sizes.split(","):
        m, n = (int(v) for v in size.split("x")) if "x" in size else (int(size),) * 2
        A = np.random.default_rng(0).standard_normal((m, n)).astype(np.float32)
        times, errs = {name: [] for name, _ in variants}, {}
        for r in range(repeat + 1):
            for name, in_place in variants:
                with in_place():
                    ctx.finish()
                    t = time.perf_counter()
                    F, tau = qr.qr_raw(A, ctx=ctx)
                    dt = time.perf_counter() - t
                if r:
                    times[name].append(dt)
                else:
                    errs[name] = backward_error(A, F, tau)
        for name, ts in times.items():
            print(f"{m} x {n}: {name:32s} best {min(ts) * 1e3:7.1f} ms, median {np.median(ts) * 1e3:7.1f} ms, "
                  f"||QR - A||/||A|| {errs[name]:.2e}", flush=True)


@contextlib.contextmanager
def panels(factor_panel):
    qr._factor_panel = factor_panel
    try:
        yield
    finally:
        qr._factor_panel = SHIPPED


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4096,2048x8192,8192,16384x1024")
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, f"(qr_panel_tall: {tall_threads(ctx)} threads)", flush=True)
    compare(ctx, a.sizes, a.repeat, [(name, lambda f=f: panels(f)) for name, f in VARIANTS])


if __name__ == "__main__":
    main()
