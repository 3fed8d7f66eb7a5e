"""Does the compute Cholesky's panel substitution (trsm_rows.comp: one thread a row, each
unknown a chain of multiply-adds) gain from splitting each unknown's sum over 4 accumulators
(`experiments/shaders/trsm_rows_split4.comp`: a chain a quarter as long, other bits)?  For
each order: `compute.dense.cholesky` numpy to numpy, best of `repeat`, with the shipped kernel
and with the variant (the dense factor's float32 panel substitutions),
and each factor's max |L L^T - C| / max |C| in float64.

    python experiments/cholesky_panel_variants.py [--sizes 4096,8192,16384] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os

import numpy as np

os.environ.setdefault("GLGPGPU_SHADER_PATH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders"))

import glgpgpu  # noqa: E402
from glgpgpu.bench.common import timings  # noqa: E402
from glgpgpu.compute import blas, dense  # noqa: E402

SHIPPED = blas.trsm_rows


def split4(ctx, A, k0, nb, r0, rows, L=None, fp64=False, listed=None):
    """blas.trsm_rows by trsm_rows_split4.comp (float32, no tile list), else as shipped."""
    if fp64 or listed is not None or rows <= 0:
        return SHIPPED(ctx, A, k0, nb, r0, rows, L=L, fp64=fp64, listed=listed)
    L = A if L is None else L
    ctx.kernels.dispatch("trsm_rows_split4", (-(-rows // 64), 1, 1), buffers={0: A.buf, 1: L.buf},
                         defines={"NB": blas.NB},
                         uniforms={"u_loff": k0 * L.ld + k0, "u_ldl": L.ld, "u_aoff": r0 * A.ld + k0, "u_ld": A.ld,
                                   "u_nb": nb, "u_rows": rows})


def residual(L: np.ndarray, C: np.ndarray) -> float:
    L = L.astype(np.float64)
    return float(np.abs(L @ L.T - C).max() / np.abs(C).max())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4096,8192,16384")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    ctx = glgpgpu.get_context()
    print(ctx.caps.renderer, flush=True)
    rng = np.random.default_rng(0)
    for m in (int(v) for v in a.sizes.split(",")):
        X = rng.standard_normal((m, m)).astype(np.float32)
        C = np.ascontiguousarray(X @ X.T / m + np.eye(m, dtype=np.float32))
        out = []
        for label, kernel in (("shipped", SHIPPED), ("4 accumulators", split4)):
            blas.trsm_rows = dense.trsm_rows = kernel
            try:
                t = min(timings(lambda: dense.cholesky(C, ctx=ctx), a.repeat))
                out.append(f"{label} {t * 1e3:.1f} ms (residual {residual(dense.cholesky(C, ctx=ctx), C):.1e})")
            finally:
                blas.trsm_rows = dense.trsm_rows = SHIPPED
        print(f"m = {m}: " + "; ".join(out), flush=True)


if __name__ == "__main__":
    main()
