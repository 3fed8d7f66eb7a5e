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


class NormalSystemBase:
    """The optional features of a normal system (methods.contract.NormalSystem) and their
    defaults, off: every method's normal-system class derives from this one and turns on
    what it has, so the LP solver reads flags instead of probing for methods."""

    takes_row_scale = False
    assembly_name = "dense"
    keeps_low_part = False
    reads_lower = False
    float64_normal = False

    def _lacks(self, what: str, flag: str):
        return NotImplementedError(f"{type(self).__name__} has no {what} ({flag} is False)")

    def update_matrix(self, A32) -> None:
        raise TypeError(f"{type(self).__name__} keeps its A: pass the rows' scaling to factor(row_scale=)")

    def _refuse_row_scale(self, row_scale) -> None:
        if row_scale is not None and not self.takes_row_scale:
            raise ValueError(f"{type(self).__name__} does not scale rows (takes_row_scale is False): "
                             "upload S A by update_matrix instead")

    def lower(self):
        raise self._lacks("factor to read back", "reads_lower")

    def keep_low_part(self, A_lo32) -> None:
        raise self._lacks("low parts", "keeps_low_part")

    def float64_factor(self, M, places=None, *, sums=None):
        raise self._lacks("float64 factor", "float64_normal")

    def float64_places(self, rows, cols, order=None, sums=None):
        raise self._lacks("float64 factor", "float64_normal")


def single_factor(system_cls):
    """The normal_factor operation from a normal-system class: a subclass whose
    constructor also factors A diag(d) A^T for one weight vector
    (NotPositiveDefiniteError if a pivot failed, and nothing left on the GPU then)."""

    class NormalFactor(system_cls):
        def __init__(self, A32, d32, *, packed: bool = False, ctx, watch=None):
            super().__init__(A32, packed=packed, ctx=ctx, watch=watch)
            try:
                NotPositiveDefiniteError.check(self.factor(d32), self.m)
            except BaseException:
                self.release()
                raise

    NormalFactor.__doc__ = single_factor.__doc__
    NormalFactor.__module__ = system_cls.__module__
    return NormalFactor
