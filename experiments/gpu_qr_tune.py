"""Issue 16: which panel width (nb) and row chunk the fragment pipeline prefers for
the tile QR; end-to-end seconds of blocked qr_raw per shape.  Run on the GPU
machine; prints a table and writes $OUT/qr-tune.csv."""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import csv
import os
import time

import numpy as np

import glgpgpu
from glgpgpu.blocked.qr import qr_raw

ctx = glgpgpu.get_context()
rows = []
for m, n in [(6144, 384), (384, 6144), (2048, 2048)]:
    A = np.random.default_rng(0).standard_normal((m, n)).astype(np.float32)
    for nb in (8, 16, 32):
        for chunk in (32, 64, 128, 256, 512):
            qr_raw(A, nb=nb, chunk=chunk)
            best = min((lambda t0: (qr_raw(A, nb=nb, chunk=chunk), time.perf_counter() - t0)[1])(time.perf_counter())
                       for _ in range(2))
            rows.append({"device": ctx.caps.renderer, "m": m, "n": n, "nb": nb, "chunk": chunk, "seconds": best})
            print(f"{m}x{n} nb={nb:>2} chunk={chunk:>3}: {best:.4f} s", flush=True)
out = os.environ.get("OUT", "benchmarks/results")
with open(os.path.join(out, "qr-tune.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
