"""Is a tall QR panel's column step (qr_panel_rows.comp, ~13 us of GPU a column, ~3,960 of them
at 4096²) waiting on its first loop -- each workgroup sums every chunk's partials, one load
and one add a chunk, so ~32 global-memory latencies in a row?  The variant
(`experiments/shaders/qr_panel_rows_unrolled.comp`) reads them eight at a time; and with it, fewer, taller chunks
(PANEL_CHUNKS 16: chunks of 256 rows at 4096, half the partials to read, two rows a thread).
qr_raw as shipped and with the variants, alternating, best and median of `repeat`, with
||QR - A||/||A||.

    python experiments/qr_rows_unrolled.py [--sizes 4096,2048x8192,8192] [--repeat 7]
"""
from __future__ import annotations

import argparse
import contextlib
import os

os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))

import glgpgpu  # noqa: E402
from glgpgpu import limits  # noqa: E402
from glgpgpu.gl import kernels as kernels_module  # noqa: E402
from qr_panel_tall import compare  # noqa: E402

SHIPPED = kernels_module.Kernels.dispatch_steps


def unrolled(self, kernel, *args, **kw):
    return SHIPPED(self, "qr_panel_rows_unrolled" if kernel == "qr_panel_rows" else kernel, *args, **kw)


@contextlib.contextmanager
def steps(kernel_steps, over):
    kernels_module.Kernels.dispatch_steps = kernel_steps
    try:
        with limits.override(over):
            yield
    finally:
        kernels_module.Kernels.dispatch_steps = SHIPPED


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4096,2048x8192,8192")
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    variants = (("as shipped", SHIPPED, {}), ("partials 8 at a time", unrolled, {}),
                ("8 at a time, chunks <= 16", unrolled, {"compute.qr.PANEL_CHUNKS": 16}))
    compare(ctx, a.sizes, a.repeat, [(name, lambda f=f, o=o: steps(f, o)) for name, f, o in variants])


if __name__ == "__main__":
    main()
