"""Does the compute QR's Apply gain from storing C by vec4 (qr_update.comp's VEC4_STORES:
each thread's 4 x 4 block of C -= V W2 as four vec4 loads and stores instead of 16 scalar ones,
the same arithmetic)?  Round 32 measured it as an experiment and made it the shipped path; this
now times qr_raw of each size as shipped (vec4) and with the scalar stores (the define taken
off), best of `repeat`, numpy to numpy, and whether F and tau are the same bits.

    python experiments/qr_update_vec4.py [--sizes 4096,2048x8192] [--repeat 3]
"""
from __future__ import annotations

import numpy as np

import glgpgpu
from qr_panel_grid import arguments, matrices, shipped_and_variant


class ScalarUpdate:
    """ctx.kernels.dispatch with qr_update's vec4 launches sent without VEC4_STORES (and
    without C's second binding): the scalar stores of round 31."""

    def __init__(self, ctx):
        self.kernels, self.shipped = ctx.kernels, ctx.kernels.dispatch
        self.launches = 0                      # qr_update launches made scalar

    def __call__(self, kernel, groups, **kw):
        defs = kw.get("defines") or {}
        if kernel == "qr_update" and "VEC4_STORES" in defs:
            defs = {k: v for k, v in defs.items() if k != "VEC4_STORES"}
            kw = dict(kw, defines=defs, buffers={k: v for k, v in kw["buffers"].items() if k != 3})
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
        variant = ScalarUpdate(ctx)
        t0, t1, (F0, tau0), (F1, tau1) = shipped_and_variant(ctx, A, a.repeat, variant)
        same = np.array_equal(F0, F1) and np.array_equal(tau0, tau1)
        print(f"{m} x {n}: shipped (vec4 stores) {t0 * 1e3:7.1f} ms, scalar stores {t1 * 1e3:7.1f} ms "
              f"({variant.launches} launches); same bits {same}", flush=True)


if __name__ == "__main__":
    main()
