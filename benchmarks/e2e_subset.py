"""Public calls of `glgpgpu bench e2e`, measured the same way (end to end best of
`repeat`, kernel alone, plain-transfer floor of the same bytes) in a short run:

    python benchmarks/e2e_subset.py [sizes] [repeat] [methods] [calls] [--profile]

methods: comma list of paper,blocked (default blocked); calls: comma list of
adat,cholesky,cho_solve,solve_triangular (default all); --profile prints cProfile's top
functions of each call.  For checking one change on the GPU machine without the
whole suite; the acceptance table comes from the whole suite."""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import cProfile
import pstats
import sys
import time

import numpy as np

from glgpgpu import api
from glgpgpu.bench.common import best_of, call_inputs
from glgpgpu.bench.endtoend import _kernel_adat, _kernel_cholesky, _kernel_solve, transfer_seconds
from glgpgpu.gl import resolve


def main(sizes="1024,4096", repeat=5, methods="blocked", calls="adat,cholesky,cho_solve,solve_triangular", *flags):
    ctx = resolve(None)
    repeat = int(repeat)
    rng = np.random.default_rng(14)
    print(ctx.caps.renderer, time.strftime("%Y-%m-%d"), flags)
    for m in (int(s) for s in sizes.split(",")):
        A, d2, C, L, b, bw = call_inputs(rng, m)
        f4, n, tri = 4.0, 2 * m, m * (m + 1) / 2
        for method in methods.split(","):
            for packed in (False, True):
                sq = tri if packed else m * m
                cases = {
                    "adat": (lambda: api.adat(A, d2, method=method, packed=packed, ctx=ctx), f4 * (m * n + n), f4 * sq,
                             lambda: _kernel_adat(ctx, A, d2, method, packed, repeat)),
                    "cholesky": (lambda: api.cholesky(C, method=method, packed=packed, ctx=ctx), f4 * sq, f4 * m * m,
                                 lambda: _kernel_cholesky(ctx, C, method, packed, repeat)),
                    "cho_solve": (lambda: api.cho_solve(L, b, method=method, packed=packed, ctx=ctx), f4 * (sq + m),
                                  f4 * m, lambda: _kernel_solve(ctx, L, b, (False, True), method, packed, repeat)),
                    "solve_triangular": (lambda: api.solve_triangular(L, b, method=method, packed=packed, ctx=ctx),
                                         f4 * (sq + m), f4 * m,
                                         lambda: _kernel_solve(ctx, L, b, (False,), method, packed, repeat)),
                }
                for name in calls.split(","):
                    if method == "blocked" and packed and name != "adat":
                        continue
                    fn, b_in, b_out, kern = cases[name]
                    fn()
                    t = best_of(lambda: (fn(), ctx.finish()), repeat)
                    k = kern()
                    t = min(t, best_of(lambda: (fn(), ctx.finish()), repeat))     # both measured twice,
                    k = min(k, kern())                                            # interleaved
                    floor = transfer_seconds(ctx, b_in, repeat)[0] + transfer_seconds(ctx, b_out, repeat)[1]
                    staged = (transfer_seconds(ctx, b_in, repeat, staged=True)[0]
                              + transfer_seconds(ctx, b_out, repeat, staged=True)[1])
                    lay = "packed" if packed else "full"
                    print(f"m={m} {name} {method} {lay}: end to end {t:.4f} s, kernel {k:.4f}, floor {floor:.4f}, "
                          f"ratio {t / (k + floor):.2f}; staged floor {staged:.4f}, ratio {t / (k + staged):.2f}",
                          flush=True)
                    if "--profile" in flags:
                        pr = cProfile.Profile()
                        pr.enable()
                        fn()
                        ctx.finish()
                        pr.disable()
                        pstats.Stats(pr).sort_stats("tottime").print_stats(14)
                        pstats.Stats(pr).sort_stats("cumulative").print_stats(20)


if __name__ == "__main__":
    main(*sys.argv[1:])
