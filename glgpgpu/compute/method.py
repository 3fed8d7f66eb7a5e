"""method="compute": GL compute shaders behind the methods' contract (methods/contract.py)."""
from __future__ import annotations

from . import normal, qr, tiled


def _scope(ctx):
    """Every buffer an operation took goes back to the pool if it fails midway (the
    objects that keep buffers -- factors, normal systems -- hold theirs until release)."""
    return ctx.buffers.scope()


class ComputeMethod:
    """The same operations on the GL compute stage (OpenGL 4.3): storage buffers,
    workgroups with shared memory, the whole chip -- where the fragment stage of a
    datacenter GPU runs on a few of its SMs (benchmarks/RESULTS.md)."""

    name = "compute"

    def adat(self, A, d2, *, packed=False, ctx):
        with _scope(ctx):
            return tiled.adat(A, d2, packed=packed, ctx=ctx)

    def cholesky(self, C, *, packed=False, variant="outer", ctx):
        with _scope(ctx):
            return tiled.cholesky(C, packed=packed, variant=variant, ctx=ctx)

    def solve(self, L, B, steps, *, packed=False, ctx):
        with _scope(ctx):
            return tiled.solve(L, B, steps, packed=packed, ctx=ctx)

    def kernel_matrix(self, X, *, kernel, gamma, degree, coef0, packed=False, ctx):
        with _scope(ctx):
            return tiled.kernel_matrix(X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, packed=packed, ctx=ctx)

    def qr_raw(self, A, *, ctx):
        with _scope(ctx):
            return qr.qr_raw(A, ctx=ctx)

    def apply_q(self, F, tau, C, *, trans=False, ctx):
        with _scope(ctx):
            return qr.apply_q(F, tau, C, trans=trans, ctx=ctx)

    def qr_batched(self, mats, *, ctx):
        with _scope(ctx):
            return qr.qr_batched(mats, ctx=ctx)

    def normal_system(self, A, *, packed=False, variant="outer", ctx, watch=None):
        with _scope(ctx):
            return tiled.normal_system(A, packed=packed, variant=variant, ctx=ctx, watch=watch)

    def normal_factor(self, A, d, *, packed=False, ctx, watch=None):
        with _scope(ctx):
            return tiled.normal_factor(A, d, packed=packed, ctx=ctx, watch=watch)

    def resident_normal(self, V, A_tex, A_host, *, packed=False, variant="outer"):
        with _scope(V.ctx):
            return normal.ResidentNormal(V, A_tex, A_host, packed=packed, variant=variant)

    def kernel_factor(self, X, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
        with _scope(ctx):
            return tiled.kernel_factor(X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=diag,
                                   packed=packed, ctx=ctx, watch=watch)

    def qr_factor(self, A, *, ctx, watch=None):
        with _scope(ctx):
            return qr.QRFactor(A, ctx=ctx, watch=watch)
