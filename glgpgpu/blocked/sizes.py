"""The blocked path's sizes: the block each fragment owns, panels, slabs; padding.

The faithful kernels do one multiply-add per fragment per pass; they are bound
by fill rate and by the number of dependent passes.  Here, still by drawing
triangles over fragment shaders:
  * storage is RGBA32F, 4 consecutive row entries per texel (`to_rgba`);
  * A D^2 A^T: one fragment accumulates a BR x BC block of C over all of k in
    one pass (chunked), drawn as Fig. 2(b)'s triangle on the block grid; the
    row side of each block is fetched through the texture units, the column
    side through a storage buffer holding the same numbers (two load pipes);
  * Cholesky, right-looking with panels of P columns: one pass factors the
    whole panel (each fragment recomputes the small diagonal block, then its own
    row), one register-blocked pass updates the trailing lower block triangle
    (Fig. 5's triangle on the block grid), one pass copies the panel back;
    from order SLAB_FROM on the updates stop at 512-column slabs and one
    blocked_adat product per slab updates the rest (the same bits, faster);
  * triangular solves: one pass per P unknowns.
Blocks are written in place through image load/store (GL 4.3), so a fragment
may own more outputs than render targets allow.  The matrix is padded to a
multiple of P with the identity.  Block and panel sizes come from
`glgpgpu bench tune` on an H100 (benchmarks/RESULTS.md).
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Stopwatch, engine
from ..layouts.rgba import padded as _padded
from ..gl.transfer import upload_rgba

ADAT_BLOCK = (8, 8)   # rows x columns of the C block one fragment of blocked_adat owns
UPDATE_BLOCK = 4      # rows = columns of the block one fragment of the trailing update owns
P_PANEL = 16          # columns per Cholesky panel (a multiple of 4 and of UPDATE_BLOCK)
SLAB = 512            # Cholesky columns per slab: later columns get one blocked_adat product per slab
SLAB_FROM = 8 * SLAB  # ... for padded orders from this on (smaller orders were slower with slabs:
                      # the product's fixed cost outweighs its speed)
# (each from the tuning suite on an H100: benchmarks/RESULTS.md)


def require(ctx):
    """Refuse a GPU without image load/store (GL 4.3), naming the alternative."""
    if not ctx.caps.image_load_store:
        raise RuntimeError(f"method='blocked' needs OpenGL 4.3 (image load/store); {ctx.caps.renderer} "
                           f"offers {ctx.caps.version}. Use method='paper'.")


def padded(m: int, P: int = P_PANEL) -> int:
    """m rounded up to a multiple of the panel width (the blocked matrices' order)."""
    return _padded(m, P)


def constant_d(ctx, value: float, n: int):
    """A pooled 1 x n RGBA texture of `value`: the product's d when it is a plain
    sum (1) or an update C -= L L^T (-1).  Give it back when done."""
    return upload_rgba(ctx, np.full((1, n), value, np.float32), 1, n, f"d = {value:g}")


def rect_rows(ctx, x0, x1, y0, y1):
    """A cached rectangle x0..x1 by y0..y1 (blocks or texels)."""
    return ctx.geometry.cached_store(("blk-rect", x0, x1, y0, y1), lambda: [geo.rectangle(x0, y0, x1, y1)])[0]


def start_normal(system, A32, packed: bool, variant: str, ctx, watch) -> None:
    """What every blocked normal-equations system sets first (one texture or tiles):
    the options checked, the context and stopwatch, A's shape."""
    if packed or variant != "outer":
        raise ValueError("the blocked normal equations have no packed layout and only the outer variant")
    system.ctx = ctx = engine(ctx)
    require(ctx)
    system.watch = watch or Stopwatch(ctx, enabled=False)
    system.m, system.n = A32.shape
