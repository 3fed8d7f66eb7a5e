"""Where an LS-SVM fit's seconds go on the GPU (compute method, rbf): LSSVC.fit end to end
after a warm-up, its info_ (refinement steps, PCG steps, the Stopwatch's phases), and
cProfile's largest cumulative entries inside glgpgpu (GPU waits show in the read-backs), and how
many chained solves were made again a block a dispatch (a wait that gave up, or -- before round
31's fix -- an old number in a one-step solve's buffer read as one).

    python experiments/lssvm_phases.py [--n 16384] [--d 32] [--top 25] [--sort cumulative]
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np

import glgpgpu
from glgpgpu.compute import chain
from glgpgpu.solvers.estimators import LSSVC


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=16384)
    ap.add_argument("--d", type=int, default=32)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--sort", default="cumulative", help="cProfile's order: cumulative, tottime, ...")
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((a.n, a.d))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.standard_normal(a.n) > 0.5).astype(int)
    est = LSSVC(method="compute", C=10.0, gamma=1.0 / a.d)
    est.fit(X[:1024], y[:1024])                      # kernels built
    retries = []                                      # chained solves made again a block a dispatch
    real_run = chain.ChainSolves.run

    def run(self, X_, Y_, per_block=False, steps=(False, True)):
        if per_block and not ctx.caps.software:
            retries.append(self.m)
        return real_run(self, X_, Y_, per_block=per_block, steps=steps)
    chain.ChainSolves.run = run
    t = time.perf_counter()
    est.fit(X, y)
    print(f"fit N={a.n}: {time.perf_counter() - t:.3f} s; chained solves retried a block a dispatch: "
          f"{len(retries)}", flush=True)
    chain.ChainSolves.run = real_run
    print({k: v for k, v in est.info_.items() if k != "refinement"}, "refinement", est.info_.get("refinement"))
    prof = cProfile.Profile()
    prof.enable()
    est.fit(X, y)
    prof.disable()
    pstats.Stats(prof).sort_stats(a.sort).print_stats(a.top)


if __name__ == "__main__":
    main()
