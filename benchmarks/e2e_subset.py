"""A few public calls of `glgpgpu bench e2e`, measured the same way (end to end best of
`repeat`, kernel alone, plain-transfer floor of the same bytes) in a short run:

    python benchmarks/e2e_subset.py [sizes] [repeat]

For checking one change on the GPU machine without the whole suite (the paper
path's calls take minutes); the acceptance table comes from the whole suite."""
import sys
import time

import numpy as np

from glgpgpu import api
from glgpgpu.bench.common import best_of, call_inputs
from glgpgpu.bench.endtoend import _kernel_adat, _kernel_cholesky, _kernel_solve, transfer_seconds
from glgpgpu.gl import resolve


def main(sizes="1024,4096", repeat=5):
    ctx = resolve(None)
    repeat = int(repeat)
    rng = np.random.default_rng(14)
    print(ctx.caps.renderer, time.strftime("%Y-%m-%d"))
    for m in (int(s) for s in sizes.split(",")):
        A, d2, C, L, b, bw = call_inputs(rng, m)
        f4, n = 4.0, 2 * m
        cases = [
            ("adat full", lambda: api.adat(A, d2, method="blocked", ctx=ctx), f4 * (m * n + n), f4 * m * m,
             lambda: _kernel_adat(ctx, A, d2, "blocked", False, repeat)),
            ("adat packed", lambda: api.adat(A, d2, packed=True, method="blocked", ctx=ctx), f4 * (m * n + n),
             f4 * m * (m + 1) / 2, lambda: _kernel_adat(ctx, A, d2, "blocked", True, repeat)),
            ("cholesky", lambda: api.cholesky(C, method="blocked", ctx=ctx), f4 * m * m, f4 * m * m,
             lambda: _kernel_cholesky(ctx, C, "blocked", False, repeat)),
            ("solve_triangular", lambda: api.solve_triangular(L, b, method="blocked", ctx=ctx), f4 * (m * m + m),
             f4 * m, lambda: _kernel_solve(ctx, L, b, (False,), "blocked", False, repeat)),
        ]
        for name, fn, b_in, b_out, kern in cases:
            fn()
            t = best_of(lambda: (fn(), ctx.finish()), repeat)
            k = kern()
            floor = transfer_seconds(ctx, b_in, repeat)[0] + transfer_seconds(ctx, b_out, repeat)[1]
            print(f"m={m} {name}: end to end {t:.4f} s, kernel {k:.4f}, floor {floor:.4f}, "
                  f"ratio {t / (k + floor):.2f}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
