"""A sparse QR's fronts assembled and factored on the GPU by drawing (method="blocked"):
methods/fronts.py's store on RGBA atlases (four columns a texel, place_blocked), each
factored by the tile QR on the fronts' staircases (factor_atlas, in place)."""
from __future__ import annotations

from ..figures.qr import place_blocked
from ..methods.fronts import DrawnFrontStore
from .qr import _check_nb, _with_reach, factor_atlas, panel_width
from .sizes import require


class FrontStore(DrawnFrontStore):
    components = 4

    def __init__(self, ctx):
        require(ctx)
        super().__init__(ctx)
        self.nb = self.panel = panel_width(ctx)

    def _place(self, fronts: list) -> list:
        nb = self.nb
        atlases = place_blocked([(fr.m, fr.n) for fr in fronts], self.ctx.max_texture_size, nb,
                                lambda m: _check_nb(nb, None, m))
        return [[(i, _with_reach(bf, fronts[i].leftmost, nb)) for i, bf in atlas] for atlas in atlases]

    def _factor(self, a_tex, fronts: list, placed: list) -> tuple:
        try:
            self.ctx.pool.give(factor_atlas(a_tex, placed, nb=self.nb, ctx=self.ctx))
        except BaseException:
            self.ctx.pool.give(a_tex)
            raise
        return [a_tex] * len(fronts), lambda: self.ctx.pool.give(a_tex)
