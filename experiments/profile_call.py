"""Where the seconds of one public call go: cProfile of glgpgpu.cholesky /
glgpgpu.adat (method="blocked") end to end, numpy in and out, after a warm-up.

    python benchmarks/profile_call.py [cholesky|adat] [m] [top]

Prints the end-to-end best of 3 and the functions with the most own time
(moderngl's calls show as {method ... of 'mgl.*' objects}: GL work and waits).
"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import cProfile
import pstats
import sys
import time

import numpy as np

import glgpgpu


def inputs(call, m, rng):
    if call == "cholesky":
        X = rng.standard_normal((m, m)).astype(np.float32)
        return (np.ascontiguousarray(X @ X.T / m + np.eye(m, dtype=np.float32)),)
    return rng.standard_normal((m, 2 * m)).astype(np.float32), rng.uniform(0.5, 2, 2 * m).astype(np.float32)


def main(call="cholesky", m=4096, top=18):
    m, top = int(m), int(top)
    fn = getattr(glgpgpu, call)
    args = inputs(call, m, np.random.default_rng(0))
    fn(*args, method="blocked")                              # warm-up: programs, pool
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        fn(*args, method="blocked")
        best = min(best, time.perf_counter() - t0)
    print(f"{call} m={m} blocked: end to end {best:.4f} s (best of 3)")
    pr = cProfile.Profile()
    pr.enable()
    fn(*args, method="blocked")
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    main(*sys.argv[1:])
