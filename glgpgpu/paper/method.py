"""method="paper": the papers' kernels behind the methods' contract (methods/contract.py)."""
from __future__ import annotations

from ..methods.delegate import DelegatingMethod
from . import fronts, kernel_matrix, normal, qr, tiled


class PaperMethod(DelegatingMethod):
    """Jung (2006) and Jung & O'Leary (2008), kernel for kernel, on any GL 3.3 GPU;
    beyond one texture the tile algorithms of glgpgpu.tiled with these kernels."""

    name = "paper"
    float64_normal = False
    dense, qr, normal, kernels, fronts = tiled, qr, normal, kernel_matrix, fronts
