"""Host passes of the public calls timed alone (no GL): the packed expansion, the
finiteness and magnitude checks, a fresh result array, by thread count.

    python benchmarks/host_passes.py"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import time
import numpy as np
import os
from glgpgpu import parallel, validate
from glgpgpu.layouts.rgba import expand_blocks, packed_block_shape
print("cpus", os.cpu_count())
def best(f, n=7):
    ts=[]
    for _ in range(n):
        t=time.perf_counter(); f(); ts.append(time.perf_counter()-t)
    return min(ts)*1e3
for m in (1024, 4096):
    r,c = packed_block_shape(m, 8)
    P = np.random.rand(r, c).astype(np.float32)
    A = np.random.rand(m, 2*m).astype(np.float32)
    C = np.random.rand(m, m).astype(np.float32)
    for w in (1, 2, 4, 8):
        parallel.workers = (lambda w=w: w)
        parallel._pool = None
        print(m, "workers", w, "expand %.2f" % best(lambda: expand_blocks(P, m, 8)),
              "finite(A) %.2f" % best(lambda: validate.all_finite(A)), "finite_magnitude(A) %.2f" % best(lambda: validate.finite_magnitude(A)),
              "finite(C) %.2f" % best(lambda: validate.all_finite(C)), "empty+touch %.2f" % best(lambda: np.empty((m,m),np.float32).fill(0)))
