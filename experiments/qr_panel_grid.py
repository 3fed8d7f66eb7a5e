"""Can the compute QR's tall panels go in one dispatch each instead of one a column?
`experiments/shaders/qr_panel_grid.comp` runs qr_panel_rows.comp's arithmetic for every
column of a panel in one dispatch, its workgroups meeting at a grid-wide barrier (an atomic
counter) between columns -- which holds only where all of a dispatch's workgroups are
resident at once; a wait that gives up is flagged and the factorization would have to be
made again a dispatch a column.  For each size: qr(A, mode="raw") as shipped and with the
grid panels, best of `repeat`, numpy to numpy; whether F and tau are the same bits (the same
sums in the same order); whether any wait gave up.

    python experiments/qr_panel_grid.py [--sizes 4096,2048x8192] [--repeat 3] [--panel-rows N]
"""
from __future__ import annotations

import argparse
import os

import numpy as np

os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))

import glgpgpu  # noqa: E402
from glgpgpu.bench.common import timings  # noqa: E402
from glgpgpu.compute import qr  # noqa: E402
from glgpgpu.compute.blas import download, fill  # noqa: E402


class GridPanels:
    """qr._factor_panel with the tall panels by qr_panel_grid.comp; the arrival counter and
    the give-up flag in one int buffer, kept across panels."""

    def __init__(self, ctx):
        self.ctx, self.shipped = ctx, qr._factor_panel
        self.sync = ctx.buffers.take(1, 4, "the grid barrier's counter", ld=4)
        fill(ctx, self.sync, 0.0)                       # 0.0f's bits are int 0
        self.arrivals = 0

    def __call__(self, ctx, F, tau, work, m, j0, kb) -> None:
        rows = m - j0
        if rows < qr.PANEL_ROWS:
            self.shipped(ctx, F, tau, work, m, j0, kb)
            return
        per = 128 * -(-rows // (128 * qr.PANEL_CHUNKS))
        nch = -(-rows // per)
        ctx.kernels.dispatch("qr_panel_grid", (nch, 1, 1),
                             buffers={0: F.buf, 1: tau.buf, 2: work.PP.buf, 3: self.sync.buf}, defines=work.defs,
                             uniforms={"u_m": m, "u_ld": F.ld, "u_j0": j0, "u_kb": kb, "u_rows": per, "u_nch": nch,
                                       "u_base": self.arrivals}, work=rows * kb * kb // 64)
        self.arrivals += nch * kb

    def gave_up(self) -> bool:
        return bool(download(self.ctx, self.sync)[0].view(np.int32)[1])

    def release(self) -> None:
        self.sync.give()

    def __enter__(self):
        qr._factor_panel = self
        return self

    def __exit__(self, *exc):
        qr._factor_panel = self.shipped


def shipped_and_variant(ctx, A, repeat: int, variant):
    """(shipped seconds, variant seconds, (F, tau) shipped, (F, tau) variant): qr_raw of A
    best of `repeat`, then again inside the context manager `variant`."""
    t0 = min(timings(lambda: qr.qr_raw(A, ctx=ctx), repeat))
    shipped = qr.qr_raw(A, ctx=ctx)
    with variant:
        t1 = min(timings(lambda: qr.qr_raw(A, ctx=ctx), repeat))
        changed = qr.qr_raw(A, ctx=ctx)
    return t0, t1, shipped, changed


def arguments(doc: str, sizes: str):
    """The QR experiments' options (--sizes, --repeat, --panel-rows, set on compute.qr), parsed."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=sizes)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--panel-rows", type=int, default=None, help="qr.PANEL_ROWS (tall panels from this many rows)")
    a = ap.parse_args()
    if a.panel_rows:
        qr.PANEL_ROWS = a.panel_rows
    return a


def matrices(sizes: str):
    """(m, n, A) for each of sizes ("4096,2048x8192"): A standard normal float32, one generator."""
    rng = np.random.default_rng(0)
    for size in sizes.split(","):
        m, n = (int(v) for v in size.split("x")) if "x" in size else (int(size), int(size))
        yield m, n, rng.standard_normal((m, n)).astype(np.float32)


def main():
    a = arguments(__doc__, "4096,2048x8192,16384x1024")
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    for m, n, A in matrices(a.sizes):
        grid = GridPanels(ctx)
        try:
            t0, t1, (F0, tau0), (F1, tau1) = shipped_and_variant(ctx, A, a.repeat, grid)
            gave = grid.gave_up()
        finally:
            grid.release()
        same = np.array_equal(F0, F1) and np.array_equal(tau0, tau1)
        diff = float(np.abs(F0 - F1).max())
        print(f"{m} x {n}: shipped {t0 * 1e3:8.1f} ms, one dispatch a panel {t1 * 1e3:8.1f} ms; same bits {same} "
              f"(largest difference {diff:.2g}); a wait gave up: {gave}", flush=True)


if __name__ == "__main__":
    main()
