"""Where one LP solve's time goes, function by function (cProfile), after a warm-up solve
of the same problem (GL start-up, kernel builds and the analysis's cache out of the way).

    python experiments/lp_cprofile.py NETLIB_DIR compute auto pilot87 maros-r7 dfl001
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
    folder, method, device = sys.argv[1], sys.argv[2], sys.argv[3]
    for name in sys.argv[4:]:
        path = f"{folder}/{name}.mps.gz"
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
