"""method="blocked": the register-blocked fragment kernels behind the methods'
contract (methods/contract.py)."""
from __future__ import annotations

from ..methods.delegate import DelegatingMethod
from . import fronts, kernel_matrix, normal, qr, tiled


class BlockedMethod(DelegatingMethod):
    """The same operations as the papers', each fragment owning a block of the
    output (image load/store, GL 4.3); beyond one texture the tile algorithms of
    glgpgpu.tiled with these kernels."""

    name = "blocked"
    float64_normal = False
    dense, qr, normal, kernels, fronts = tiled, qr, normal, kernel_matrix, fronts
