"""The methods' contract filled from a package's modules: each method names the
modules that hold its operations, and this class forwards the contract's calls there
(one definition of the forwarding for every method)."""
from __future__ import annotations

from contextlib import nullcontext


class DelegatingMethod:
    """A method whose operations live in modules:

    dense    adat, cholesky, solve (numpy in, numpy out)
    qr       qr_raw, apply_q, qr_batched, QRFactor
    normal   normal_system, normal_factor, ResidentNormal
    kernels  kernel_matrix, kernel_factor
    fronts   FrontStore (sparse_fronts), or None
    """

    name = "?"
    dense = qr = normal = kernels = None
    fronts = None           # a module with FrontStore: sparse QR's fronts kept on the GPU

    def _scope(self, ctx):
        """What every operation runs inside (compute: its buffer pool's failure scope)."""
        return nullcontext()

    def tile_kernels(self, ctx, *, variant="outer"):
        return self.dense.tile_kernels(ctx, variant=variant)

    def adat(self, A, d2, *, packed=False, ctx):
        with self._scope(ctx):
            return self.dense.adat(A, d2, packed=packed, ctx=ctx)

    def cholesky(self, C, *, packed=False, variant="outer", ctx):
        with self._scope(ctx):
            return self.dense.cholesky(C, packed=packed, variant=variant, ctx=ctx)

    def solve(self, L, B, steps, *, packed=False, ctx):
        with self._scope(ctx):
            return self.dense.solve(L, B, steps, packed=packed, ctx=ctx)

    def kernel_matrix(self, X, *, kernel, gamma, degree, coef0, packed=False, ctx):
        with self._scope(ctx):
            return self.kernels.kernel_matrix(X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                                              packed=packed, ctx=ctx)

    def qr_raw(self, A, *, ctx, amax=None):
        with self._scope(ctx):
            return self.qr.qr_raw(A, ctx=ctx, amax=amax)

    def apply_q(self, F, tau, C, *, trans=False, ctx):
        with self._scope(ctx):
            return self.qr.apply_q(F, tau, C, trans=trans, ctx=ctx)

    def qr_batched(self, mats, *, ctx, stairs=None):
        with self._scope(ctx):
            return self.qr.qr_batched(mats, ctx=ctx, stairs=stairs)

    def sparse_fronts(self, *, ctx):
        return self.fronts.FrontStore(ctx) if self.fronts is not None else None

    def normal_system(self, A, *, packed=False, variant="outer", ctx, watch=None):
        with self._scope(ctx):
            return self.normal.normal_system(A, packed=packed, variant=variant, ctx=ctx, watch=watch)

    def normal_factor(self, A, d, *, packed=False, ctx, watch=None):
        with self._scope(ctx):
            return self.normal.normal_factor(A, d, packed=packed, ctx=ctx, watch=watch)

    def resident_normal(self, V, A_tex, A_host, *, packed=False, variant="outer"):
        with self._scope(V.ctx):
            return self.normal.ResidentNormal(V, A_tex, A_host, packed=packed, variant=variant)

    def kernel_factor(self, X, *, kernel, gamma, degree, coef0, diag, packed=False, ctx, watch=None):
        with self._scope(ctx):
            return self.kernels.kernel_factor(X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, diag=diag,
                                              packed=packed, ctx=ctx, watch=watch)

    def qr_factor(self, A, *, ctx, watch=None):
        with self._scope(ctx):
            return self.qr.QRFactor(A, ctx=ctx, watch=watch)
