"""Where one LP solve's time goes, function by function (cProfile), after a warm-up solve
of the same problem (GL start-up, kernel builds and the analysis's cache out of the way),
or with --cold after a warm-up on afiro only (as a NETLIB run meets each problem).

    python experiments/lp_cprofile.py NETLIB_DIR compute auto pilot87 maros-r7 dfl001 [--cold]
    (folder, method, device, then problem names)
"""
from __future__ import annotations

import cProfile
import pstats
import sys
import time

from glgpgpu.solvers.lp import solve_mps


def main():
    if len(sys.argv) < 5 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    cold = "--cold" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--cold"]
    folder, method, device = args[0], args[1], args[2]
    if cold:
        solve_mps(f"{folder}/afiro.mps.gz", method=method, device=device)
    for name in args[3:]:
        path = f"{folder}/{name}.mps.gz"
        if not cold:
            solve_mps(path, method=method, device=device)
        pr = cProfile.Profile()
        t = time.perf_counter()
        pr.enable()
        r = solve_mps(path, method=method, device=device)
        pr.disable()
        print(f"== {name} {method} {device}: {time.perf_counter() - t:.3f} s, {r.status}, {r.iterations} iterations, "
              f"times {r.times}")
        print({k: v for k, v in r.stats.items() if not isinstance(v, (list, dict))})
        pstats.Stats(pr).sort_stats("tottime").print_stats(22)


if __name__ == "__main__":
    main()
