"""Three ways to run the same Cholesky on a GPU, side by side -- why GPGPU moved from
fragments to compute:

1. method="paper" (Jung & O'Leary, 2008): one multiply-add per fragment per pass; the
   loop is m passes of triangles (Kernels 3-5), each fragment fetching its operands
   through the texture units.  The only way in 2005-2008: the fragment stage was the
   one programmable stage with float output.
2. method="blocked": still triangles and fragment shaders, but each fragment owns a
   block of the output in registers and writes it through image stores (GL 4.3), so
   each fetch feeds many multiply-adds.
3. method="compute" (GL 4.3 compute shaders): workgroups share data through shared
   memory, and on a datacenter GPU this stage runs on every SM -- the fragment stage of
   the H100 uses 4 of its 132 (benchmarks/RESULTS.md measures both ceilings).

    python examples/three_methods.py [m]"""
import sys
import time

import numpy as np

import glgpgpu

m = int(sys.argv[1]) if len(sys.argv) > 1 else 96
rng = np.random.default_rng(0)
X = rng.standard_normal((m, m))
C = X @ X.T / m + np.eye(m)
ctx = glgpgpu.get_context()
print(f"Cholesky of a {m} x {m} matrix on {ctx.caps.renderer}\n")
worst = 0.0
for method, what in (("paper", "draws (triangles) of one multiply-add per fragment"),
                     ("blocked", "draws whose fragments own register blocks"),
                     ("compute", "compute dispatches of workgroups with shared memory")):
    glgpgpu.cholesky(C, method=method)                     # compile the kernels first
    with ctx.kernels.recording() as rec:
        t = time.perf_counter()
        L = glgpgpu.cholesky(C, method=method)
        t = time.perf_counter() - t
    err = np.abs(L.astype(np.float64) @ L.T - C).max() / np.abs(C).max()
    worst = max(worst, err)
    n = len(rec.draws) + len(rec.dispatches)
    kernels = sorted({d.kernel for d in rec.draws} | {k for k, _ in rec.dispatches})
    print(f"{method:>8}: {n:5d} {what}; kernels {', '.join(kernels)}")
    print(f"          {t * 1e3:8.1f} ms end to end, backward error {err:.1e}")
print("\nOn an NVIDIA H100 (benchmarks/RESULTS.md): the fragment stage's FMA ceiling is "
      "1.7 TFLOP/s, the compute stage's 55;\nat m = 4096 the paper's kernels take seconds, "
      "the blocked ones ~0.1 s, the compute ones ~40 ms end to end.")
sys.exit(0 if worst < 1e-5 else 1)
