"""Does the compute QR's Apply gain from storing C by vec4 (`experiments/shaders/qr_update_vec4.comp`:
each thread's 4 x 4 block of C -= V W2 as four vec4 loads and stores instead of 16 scalar ones,
the same arithmetic)?  qr_raw of each size with the shipped qr_update.comp and with the variant,
best of `repeat`, numpy to numpy, and whether F and tau are the same bits.

    python experiments/qr_update_vec4.py [--sizes 4096,2048x8192] [--repeat 3]
"""
from __future__ import annotations

import os

import numpy as np

os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))

import glgpgpu  # noqa: E402
from qr_panel_grid import arguments, matrices, shipped_and_variant  # noqa: E402


class Vec4Update:
    """ctx.kernels.dispatch with qr_update's float32 launches sent to qr_update_vec4 (C bound
    a second time, as vec4s, where its row stride and first column allow)."""

    def __init__(self, ctx):
        self.kernels, self.shipped = ctx.kernels, ctx.kernels.dispatch
        self.launches = 0                      # qr_update launches sent to the variant

    def __call__(self, kernel, groups, **kw):
        u = kw.get("uniforms") or {}
        aligned = u.get("u_ldc", 1) % 4 == 0 and u.get("u_c0", 1) % 4 == 0
        if kernel == "qr_update" and "FP64" not in (kw.get("defines") or {}) and aligned:
            kernel, kw = "qr_update_vec4", dict(kw, buffers={**kw["buffers"], 3: kw["buffers"][1]})
            self.launches += 1
        return self.shipped(kernel, groups, **kw)

    def __enter__(self):
        self.kernels.dispatch = self
        return self

    def __exit__(self, *exc):
        del self.kernels.dispatch


def main():
    a = arguments(__doc__, "4096,2048x8192")
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    for m, n, A in matrices(a.sizes):
        variant = Vec4Update(ctx)
        t0, t1, (F0, tau0), (F1, tau1) = shipped_and_variant(ctx, A, a.repeat, variant)
        same = np.array_equal(F0, F1) and np.array_equal(tau0, tau1)
        print(f"{m} x {n}: shipped {t0 * 1e3:7.1f} ms, vec4 stores {t1 * 1e3:7.1f} ms ({variant.launches} launches); "
              f"same bits {same}", flush=True)


if __name__ == "__main__":
    main()
