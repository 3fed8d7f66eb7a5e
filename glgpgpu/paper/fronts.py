"""A sparse QR's fronts assembled and factored on the GPU by drawing (method="paper"):
methods/fronts.py's store on R32F atlases (one column a texel, figures.qr.place),
factored by the papers'-style unblocked Householder kernels (qr.factor_atlas, which
ping-pongs: each front's result is in its last step's target)."""
from __future__ import annotations

from ..figures.qr import place
from ..methods.fronts import DrawnFrontStore
from .qr import _release, factor_atlas


class FrontStore(DrawnFrontStore):
    components = 1
    panel = 1                    # a launch (its four draws) per column

    def _place(self, fronts: list) -> list:
        return place([(fr.m, fr.n) for fr in fronts], self.ctx.max_texture_size)

    def _factor(self, a_tex, fronts: list, placed: list) -> tuple:
        textures, hh = factor_atlas(a_tex, placed, ctx=self.ctx)
        return textures, lambda: _release(self.ctx, textures, hh)
