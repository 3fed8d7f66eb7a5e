"""What a tall QR panel's column step (qr_panel_rows.comp, one dispatch a column) waits for:
qr_raw of each size with the tall panels' chunks of 64, 128 (as shipped) or 256 rows, and
with the chunks' partials summed by `experiments/shaders/qr_panel_rows_prefetch.comp` (loaded
8 at a time, then added in the same order), and at 128 rows with parts of the step left
out (knockouts: wrong answers, their times alone).  Best of `repeat`, numpy to numpy; whether F and
tau are the same bits as the shipped kernel's with the same chunks.

    python experiments/qr_panel_rows_variants.py [--sizes 4096,2048x8192] [--repeat 3] [--panel-rows 256]
"""
from __future__ import annotations

import os

import numpy as np

os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))

import glgpgpu  # noqa: E402
from glgpgpu.bench.common import timings  # noqa: E402
from glgpgpu.compute import qr  # noqa: E402
from qr_panel_grid import arguments, matrices  # noqa: E402

SHIPPED = qr._factor_panel


def panels(chunk_rows: int, kernel: str, knockout: str | None = None):
    """qr._factor_panel with tall panels in chunks of chunk_rows rows, by `kernel` (with the
    knockout define, if any: a part of the step left out, for its time)."""
    def factor_panel(ctx, F, tau, work, m, j0, kb) -> None:
        rows = m - j0
        if rows < qr.PANEL_ROWS:
            SHIPPED(ctx, F, tau, work, m, j0, kb)
            return
        per = chunk_rows * -(-rows // (chunk_rows * qr.PANEL_CHUNKS))
        nch = -(-rows // per)
        ctx.kernels.dispatch_steps(kernel, (nch, 1, 1), "u_jj", range(-1, kb),
                                   buffers={0: F.buf, 1: tau.buf, 2: work.PP.buf},
                                   defines={**work.defs, **({knockout: 1} if knockout else {})}, work=rows * kb // 64,
                                   uniforms={"u_m": m, "u_ld": F.ld, "u_j0": j0, "u_kb": kb, "u_rows": per,
                                             "u_nch": nch})
    return factor_panel


def main():
    a = arguments(__doc__, "4096,2048x8192")
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    for m, n, A in matrices(a.sizes):
        for rows in (64, 128, 256):
            out = []
            for kernel in ("qr_panel_rows", "qr_panel_rows_prefetch"):
                qr._factor_panel = panels(rows, kernel)
                try:
                    t = min(timings(lambda: qr.qr_raw(A, ctx=ctx), a.repeat))
                    out.append((t, qr.qr_raw(A, ctx=ctx)))
                finally:
                    qr._factor_panel = SHIPPED
            same = all(np.array_equal(x, y) for x, y in zip(out[0][1], out[1][1]))
            print(f"{m} x {n}, chunks of {rows} rows: shipped kernel {out[0][0] * 1e3:7.1f} ms, "
                  f"prefetched sums {out[1][0] * 1e3:7.1f} ms; same bits {same}", flush=True)
            if rows == 128:
                for ko in ("KO_SUM", "KO_ROWS", "KO_RED"):
                    qr._factor_panel = panels(rows, "qr_panel_rows_prefetch", ko)
                    try:
                        t = min(timings(lambda: qr.qr_raw(A, ctx=ctx), a.repeat))
                    finally:
                        qr._factor_panel = SHIPPED
                    print(f"    without {ko[3:].lower()} (a wrong answer, the time alone): {t * 1e3:7.1f} ms", flush=True)


if __name__ == "__main__":
    main()
