"""What the operations keep on the GPU between calls: a factor, and the matrix
it came from, in pooled textures that go back to the pool when released."""
from __future__ import annotations

from ..errors import NotPositiveDefiniteError


class ResidentFactor:
    """Base of the normal-equations operations (every method): `l_tex` holds the
    current factor, `a_tex` / `d_tex` the uploaded matrix and weights."""

    ctx = None
    l_tex = a_tex = d_tex = None

    def _free_factor(self) -> None:
        if self.l_tex is not None:
            self.ctx.pool.give(self.l_tex)
            self.l_tex = None

    def release(self) -> None:
        """Give every texture back to the pool (safe to call twice)."""
        self._free_factor()
        if self.ctx is not None:
            self.ctx.pool.give(self.a_tex, self.d_tex)
        self.a_tex = self.d_tex = None


def single_factor(system_cls):
    """The normal_factor operation from a normal-system class: a subclass whose
    constructor also factors A diag(d) A^T for one weight vector
    (NotPositiveDefiniteError if a pivot failed, and nothing left on the GPU then)."""

    class NormalFactor(system_cls):
        def __init__(self, A32, d32, *, packed: bool = False, ctx=None, watch=None):
            super().__init__(A32, packed=packed, ctx=ctx, watch=watch)
            try:
                NotPositiveDefiniteError.check(self.factor(d32), self.m)
            except BaseException:
                self.release()
                raise

    NormalFactor.__doc__ = single_factor.__doc__
    NormalFactor.__module__ = system_cls.__module__
    return NormalFactor
