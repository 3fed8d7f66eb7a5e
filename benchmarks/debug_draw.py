"""Issue 17 debugging aid: does one draw over a large R32F target write every texel?
python3 benchmarks/debug_draw.py W H [W H ...]"""
import sys

import numpy as np

import glgpgpu
from glgpgpu import figures as geo

ctx = glgpgpu.get_context()
K = ctx.kernels
args = list(map(int, sys.argv[1:]))
for w, h in zip(args[::2], args[1::2]):
    src = K.pool.take(h, w)
    dst = K.pool.take(h, w)
    data = np.random.default_rng(0).standard_normal((h, w)).astype(np.float32)
    src.write(data)
    dst.clear(-7.0)
    K.draw("copy", dst, geo.rectangle(0, 0, w, h), {"S": src})
    out = dst.read()
    wrong = np.argwhere(out != data)
    print(w, h, "wrong texels:", len(wrong), wrong[:2].tolist(), flush=True)
    K.pool.give(src, dst)
