"""method="compute": GL compute shaders behind the methods' contract (methods/contract.py)."""
from __future__ import annotations

from ..methods.delegate import DelegatingMethod
from . import fronts, qr, tiled


class ComputeMethod(DelegatingMethod):
    """The same operations on the GL compute stage (OpenGL 4.3): storage buffers,
    workgroups with shared memory, the whole chip -- where the fragment stage of a
    datacenter GPU runs on a few of its SMs (benchmarks/RESULTS.md)."""

    name = "compute"
    float64_normal = True
    dense, qr, normal, kernels, fronts = tiled, qr, tiled, tiled, fronts

    def _scope(self, ctx):
        """Every buffer an operation took goes back to the pool if it fails midway (the
        objects that keep buffers -- factors, normal systems -- hold theirs until release)."""
        return ctx.buffers.scope()
