"""Does GL_KHR_parallel_shader_compile shorten a cold start's kernel builds?  The LP solve's
kernels (those a first solve of PROBLEM builds) are compiled one way or the other in a fresh
process, the driver's disk cache as the environment sets it:

    serial    the package's own builds (moderngl compiles and links each, waiting on each)
    parallel  first every source handed to the driver at once through the extension (raw GL:
              glMaxShaderCompilerThreadsKHR, compile and link without waiting, then polling
              COMPLETION_STATUS), then the package's builds of the same sources -- are they
              quicker, from the driver's caches?

    python experiments/parallel_kernel_builds.py NETLIB_DIR PROBLEM [method]
    (NVIDIA: set __GL_SHADER_DISK_CACHE=0 for a cold cache, or a fresh __GL_SHADER_DISK_CACHE_PATH)
"""
from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import subprocess
import sys
import time


def _kernels(folder, problem, method) -> list:
    """(name, defines) of every compute kernel a first solve builds, in order."""
    from glgpgpu.gl import programs
    from glgpgpu.solvers.lp import solve_mps
    seen = []
    init = programs.ComputeProgram.__init__

    def record(self, gl, name, defines=None):
        seen.append((name, defines))
        init(self, gl, name, defines)
    programs.ComputeProgram.__init__ = record
    solve_mps(os.path.join(folder, problem + ".mps.gz"), method=method)
    return seen


def _raw_parallel(sources) -> float:
    """Hand every source to the driver at once (KHR_parallel_shader_compile); seconds until all linked."""
    egl = ctypes.CDLL(ctypes.util.find_library("EGL"))
    egl.eglGetProcAddress.restype = ctypes.c_void_p
    egl.eglGetProcAddress.argtypes = [ctypes.c_char_p]

    def fn(name, res, args):
        return ctypes.CFUNCTYPE(res, *args)(egl.eglGetProcAddress(name.encode()))
    c_uint, c_int = ctypes.c_uint, ctypes.c_int
    threads = fn("glMaxShaderCompilerThreadsKHR", None, [c_uint])
    create, program = fn("glCreateShader", c_uint, [c_uint]), fn("glCreateProgram", c_uint, [])
    source = fn("glShaderSource", None, [c_uint, c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p])
    compile_, attach = fn("glCompileShader", None, [c_uint]), fn("glAttachShader", None, [c_uint, c_uint])
    link, query = fn("glLinkProgram", None, [c_uint]), fn("glGetProgramiv", None, [c_uint, c_uint, ctypes.POINTER(c_int)])
    drop_p, drop_s = fn("glDeleteProgram", None, [c_uint]), fn("glDeleteShader", None, [c_uint])
    t0 = time.perf_counter()
    threads(0xFFFFFFFF)
    made = []
    for src in sources:
        sh = create(0x91B9)                                       # GL_COMPUTE_SHADER
        source(sh, 1, (ctypes.c_char_p * 1)(src.encode()), None)
        compile_(sh)
        p = program()
        attach(p, sh)
        link(p)
        made.append((p, sh))
    done, v = [False] * len(made), c_int()
    while not all(done):
        for i, (p, _) in enumerate(made):
            if not done[i]:
                query(p, 0x91B1, ctypes.byref(v))                 # GL_COMPLETION_STATUS_KHR
                done[i] = bool(v.value)
        time.sleep(0.001)
    seconds = time.perf_counter() - t0
    for p, sh in made:
        drop_p(p)
        drop_s(sh)
    return seconds


def _builds(mode, kernels) -> None:
    import glgpgpu
    from glgpgpu.gl import programs
    ctx = glgpgpu.get_context()
    sources = [programs.load_shader_lines(k + ".comp", d)[0] for k, d in kernels]
    ahead = _raw_parallel(sources) if mode == "parallel" else 0.0
    t0 = time.perf_counter()
    for k, d in kernels:
        ctx.programs.get(k, d, compute=True)
    ctx.gl.finish()
    builds = time.perf_counter() - t0
    print(f"{mode:8s}: handed over in parallel {ahead:.3f} s, the package's builds {builds:.3f} s, "
          f"in all {ahead + builds:.3f} s ({len(kernels)} kernels)")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] in ("serial", "parallel"):          # a child run
        _builds(sys.argv[1], json.loads(sys.argv[2]))
        return
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    folder, problem = sys.argv[1], sys.argv[2]
    method = sys.argv[3] if len(sys.argv) > 3 else "compute"
    kernels = _kernels(folder, problem, method)
    for mode in ("serial", "parallel", "serial", "parallel"):               # each in a fresh process
        subprocess.run([sys.executable, __file__, mode, json.dumps(kernels)], check=True)


if __name__ == "__main__":
    main()
