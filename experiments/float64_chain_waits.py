"""Do the chained float64 solve's waits hold on this driver?  trsv_chain.comp's blocks wait on
each other's flags inside one dispatch; llvmpipe ends any loop after 65,535 iterations, so there
a wait can give up (the solve then says so and is made again a block a dispatch).  Counts the
chained solves whose waits gave up, the wrong answers they would have given, and any wrong
answer the give-up mark missed (there should be none).

    python experiments/float64_chain_waits.py [--m 2030 6071] [--solves 1500]
"""
from __future__ import annotations

import argparse

import numpy as np
import scipy.sparse as sp

import glgpgpu
from glgpgpu.compute.float64 import Float64Cholesky, Float64Matrix


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--m", type=int, nargs="+", default=[2030, 6071])
    ap.add_argument("--solves", type=int, default=1500)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    rng = np.random.default_rng(0)
    for m in a.m:
        B = sp.random(m, 2 * m, density=min(1.0, 8 / m), random_state=rng) + sp.eye(m, 2 * m)
        M = (B @ B.T).tocsr()
        F = Float64Cholesky(ctx, M)
        b = rng.standard_normal(m)
        ref = F.solve(b)
        gave = wrong = unmarked = 0
        try:
            for _ in range(a.solves):
                X, Y = Float64Matrix(ctx, 1, m + 1, "b"), Float64Matrix(ctx, 1, m + 1, "y")
                try:
                    X.put(ctx, np.append(b, 0.0).reshape(1, -1))
                    F.solves.run(X, Y)                      # the chained dispatches alone, no second try
                    x = X.get(ctx)[0]
                    bad = not np.allclose(x[:m], ref, rtol=1e-12, atol=0)
                    gave += bool(x[m])                    # the kernel's give-up mark
                    wrong += bad
                    unmarked += bad and not x[m]
                    if x[m]:
                        F.solves.restart()                 # as solve() does before its second try
                finally:
                    X.give()
                    Y.give()
        finally:
            F.release()
        print(f"{ctx.caps.renderer}: m = {m}, {a.solves} chained solves: {gave} gave up, {wrong} wrong, "
              f"{unmarked} wrong without the mark")


if __name__ == "__main__":
    main()
