"""Which kernels one LP solve compiles, and how long each build takes (the driver's disk
cache off: __GL_SHADER_DISK_CACHE=0 for NVIDIA, MESA_SHADER_CACHE_DISABLE=true for Mesa),
as a NETLIB run meets them: the first GPU problem pays every build.

    python experiments/kernel_builds.py NETLIB_DIR compute cycle pilot87 dfl001
    (folder, method, then problem names)
"""
from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("__GL_SHADER_DISK_CACHE", "0")
os.environ.setdefault("MESA_SHADER_CACHE_DISABLE", "true")

from glgpgpu.gl import programs  # noqa: E402
from glgpgpu.solvers.lp import solve_mps  # noqa: E402


def main():
    if len(sys.argv) < 4 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    folder, method, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    builds = []
    for cls in (programs.ComputeProgram, programs.Program):
        init = cls.__init__

        def timed(self, gl, name, defines=None, _init=init):
            t = time.perf_counter()
            _init(self, gl, name, defines)
            gl.finish()
            builds.append((name, defines, time.perf_counter() - t))
        cls.__init__ = timed
    for name in names:
        builds.clear()
        t = time.perf_counter()
        r = solve_mps(f"{folder}/{name}.mps.gz", method=method)
        total = time.perf_counter() - t
        spent = sum(b[2] for b in builds)
        print(f"== {name}: {total:.3f} s, {r.status}, device {r.stats.get('device')}; "
              f"{len(builds)} kernel builds, {spent:.3f} s")
        for kname, defines, s in sorted(builds, key=lambda b: -b[2]):
            print(f"   {1e3 * s:8.1f} ms  {kname} {defines or ''}")


if __name__ == "__main__":
    main()
