"""`glgpgpu bench ladder`: one problem per operation up the ladder of methods -- the
papers' one multiply-add per fragment (paper), register blocks per fragment (blocked),
shared memory and the whole chip (compute) -- beside the host's LAPACK and, where it
imports with a GPU, torch (cuBLAS / cuSOLVER).  Every row is the public call end to end
(numpy in, numpy out); the compute rows add the kernel alone (data already on the GPU);
the fragment and compute FMA ceilings of this device head the table."""
from __future__ import annotations

import time

import numpy as np

from ..compute import blas as cblas
from ..compute import dense as cdense
from ..gl import resolve
from .ceiling import ceiling
from .common import best_of

OPS = ("syrk", "cholesky", "trsm", "qr")
METHODS = ("paper", "blocked", "compute")


def compute_fma_ceiling(ctx, repeat: int = 3) -> float:
    """TFLOP/s of fma_loop.comp: the compute stage's arithmetic ceiling."""
    soft = "llvmpipe" in ctx.caps.renderer
    n, iters = (1 << 14, 64) if soft else (1 << 24, 512)
    out = ctx.buffers.take(1, n, "fma ceiling")
    try:
        def run():
            ctx.kernels.dispatch("fma_loop", (n // 256, 1, 1), buffers={0: out.buf}, uniforms={"u_iters": iters})
            ctx.finish()
        run()
        return 32.0 * iters * n / best_of(run, repeat) / 1e12
    finally:
        out.give()


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _timed(fn, repeat: int) -> float:
    """Best of `repeat` after one warm-up call (kernels compiled, buffers pooled)."""
    fn()
    return best_of(fn, repeat)


def _flops(op: str, m: int) -> float:
    return {"syrk": m ** 3, "cholesky": m ** 3 / 3, "trsm": m * m * 64, "qr": 4 * m ** 3 / 3}[op]


def ladder(ctx=None, sizes=(64, 128), repeat: int = 2, ceil=None) -> list:
    import scipy.linalg as sla
    import scipy.linalg.lapack as lapack
    from .. import api as glgpgpu

    ctx = resolve(ctx)
    ceil = ceil or ceiling(ctx, repeat=repeat)
    cfma = compute_fma_ceiling(ctx, repeat)
    torch = _torch()
    rng = np.random.default_rng(11)
    rows = []

    def add(op, m, method, seconds, kind="end to end"):
        rows.append(dict(op=op, m=m, method=method, kind=kind, seconds=seconds,
                         tflop_s=_flops(op, m) / seconds / 1e12,
                         fragment_fma_tflop_s=ceil["fma_tflop_s"], compute_fma_tflop_s=cfma))

    for m in sizes:
        A = rng.standard_normal((m, m)).astype(np.float32)
        C = (A @ A.T / m + np.eye(m, dtype=np.float32)).astype(np.float32)
        L = np.linalg.cholesky(C.astype(np.float64)).astype(np.float32)
        B = rng.standard_normal((m, 64)).astype(np.float32)
        ones = np.ones(m, np.float32)
        calls = {
            "syrk": lambda meth: glgpgpu.adat(A, ones, method=meth),
            "cholesky": lambda meth: glgpgpu.cholesky(C, method=meth),
            "trsm": lambda meth: glgpgpu.solve_triangular(L, B, lower=True, method=meth),
            "qr": lambda meth: glgpgpu.qr(A, mode="raw", method=meth),
        }
        host = {
            "syrk": lambda: A @ A.T,
            "cholesky": lambda: lapack.spotrf(C, lower=1),
            "trsm": lambda: sla.solve_triangular(L, B, lower=True),
            "qr": lambda: lapack.sgeqrf(A),
        }
        for op in OPS:
            for meth in METHODS:
                add(op, m, meth, _timed(lambda: calls[op](meth), repeat))
            add(op, m, "host LAPACK/BLAS", _timed(host[op], max(repeat, 3)))
            if torch is not None:
                dev = {"syrk": lambda: (lambda x: (x @ x.T).cpu())(torch.from_numpy(A).cuda()),
                       "cholesky": lambda: torch.linalg.cholesky(torch.from_numpy(C).cuda()).cpu(),
                       "trsm": lambda: torch.linalg.solve_triangular(torch.from_numpy(L).cuda(),
                                                                     torch.from_numpy(B).cuda(), upper=False).cpu(),
                       "qr": lambda: [v.cpu() for v in torch.geqrf(torch.from_numpy(A).cuda())]}
                add(op, m, "torch (cuBLAS/cuSOLVER)", _timed(dev[op], repeat))
        # kernel alone, data already on the GPU: the compute product and Cholesky
        a, c = cblas.upload(ctx, A), cblas.take(ctx, m, m)
        try:
            def prod():
                cblas.gemm(ctx, c, a, a, m=m, n=m, k=m, lower=True)
                ctx.finish()
            add("syrk", m, "compute", _timed(prod, repeat), "kernel alone")

            def chol():
                cblas.write(ctx, c, C)
                ctx.finish()
                t = time.perf_counter()
                cdense.factor(ctx, c, m)
                ctx.finish()
                return time.perf_counter() - t
            chol()
            add("cholesky", m, "compute", min(chol() for _ in range(max(1, repeat))), "kernel alone")
        finally:
            a.give()
            c.give()
        if torch is not None:
            x = torch.from_numpy(A).cuda()
            torch.cuda.synchronize()
            add("syrk", m, "torch (cuBLAS/cuSOLVER)", _timed(lambda: (x @ x.T, torch.cuda.synchronize()), repeat),
                "kernel alone")
    return rows


def format_ladder(rows: list) -> str:
    """The ladder as a table of 100 columns at most."""
    if not rows:
        return ""
    head = (f"FMA ceilings: fragment stage {rows[0]['fragment_fma_tflop_s']:.3g} TFLOP/s, "
            f"compute stage {rows[0]['compute_fma_tflop_s']:.3g} TFLOP/s")
    lines = [head, f"{'op':<9}{'m':>6}  {'method':<24}{'kind':<13}{'seconds':>10}{'TFLOP/s':>10}"]
    for r in rows:
        lines.append(f"{r['op']:<9}{r['m']:>6}  {r['method']:<24}{r['kind']:<13}{r['seconds']:>10.4g}"
                     f"{r['tflop_s']:>10.3g}")
    return "\n".join(lines)
