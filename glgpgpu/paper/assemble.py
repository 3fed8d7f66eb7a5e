"""Forming C = A D^2 A^T by triangular rasterization (Jung & O'Leary 2008, section 3).

Algorithm 3: for each column k of A,
  * Kernel 1 (column scaling) draws the m x 1 rectangle of Fig. 2(a) into b:
    b(i) = A(i, k) * d(k);
  * Kernel 2 (outer-product addition) draws one triangle (Fig. 2(b), full
    format) or two (Fig. 4, packed format) into C_T, reading C_S, A and b:
    C(j, i) += A(j, k) * b(i) over the lower triangle only;
  * C_S and C_T swap.
Only the lower triangle is computed: half the fragments of a square draw.

`n` may exceed the GPU's texture limit (data fitting has n >> m): A is then
uploaded in column blocks and the same C keeps accumulating.
"""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Context, PingPong, Stopwatch, engine, resolve
from ..layouts.triangle import layout_for
from .packing import unpack_and_read


def assembly_geometries(m: int, nk: int, packed: bool):
    """Per column k: the Fig. 2(a) rectangle, then the Fig. 2(b) / Fig. 4 triangle(s)."""
    out = []
    for k in range(nk):
        out.append(geo.fig2a_column_scaling(m, k))
        out.append(geo.outer_product_add(m, k, packed))
    return out


def assemble_texture(A, d2, *, packed: bool = False, ctx: Context | None = None,
                     watch: Stopwatch | None = None):
    """Algorithm 3 on the GPU; returns the MatrixTexture holding C's lower triangle
    in the chosen layout (it stays on the GPU; give it back to `ctx.pool`
    when done).  A is (m, n) float32, d2 (n,)."""
    ctx = resolve(ctx)
    pool = ctx.pool
    watch = watch or Stopwatch(ctx, enabled=False)
    m, n = A.shape
    block = min(n, ctx.max_texture_size)
    ctx.check_size(m, block, f"A (m={m})", hint=ctx.TILED_HINT)
    acc = Accumulator(ctx, m, packed)
    a_tex = pool.take(m, block)
    d_tex = pool.take(1, block)
    a_tex.name, d_tex.name = "A", "d"
    try:
        for c0 in range(0, n, block):
            c1 = min(n, c0 + block)
            with watch("transfer"):
                if c1 - c0 == block:             # a whole block: straight from A (no copy if float32)
                    a_tex.write(A if block == n else A[:, c0:c1])
                    d_tex.write(d2[None, c0:c1])
                else:                            # the last, partial block: zero-padded
                    blockA = np.zeros((m, block), np.float32)
                    blockA[:, :c1 - c0] = A[:, c0:c1]
                    blockd = np.zeros((1, block), np.float32)
                    blockd[0, :c1 - c0] = d2[c0:c1]
                    a_tex.write(blockA)
                    d_tex.write(blockd)
            acc.add(a_tex, d_tex, c1 - c0, watch)
    except BaseException:
        acc.discard()
        raise
    finally:
        pool.give(a_tex, d_tex)
    return acc.finish()


class Accumulator:
    """C_S / C_T and b of Algorithm 3, kept across blocks of columns of A."""

    def __init__(self, ctx, m: int, packed: bool):
        self.ctx, self.m, self.packed = ctx, m, packed
        lay = layout_for(m, packed)
        ctx.check_size(lay.height, lay.width, f"C = A D^2 A^T ({'packed' if packed else 'full'}, m={m})", hint=ctx.TILED_HINT)
        ctx.check_size(1, m, f"the scaled column b (m={m})")
        pool = ctx.pool
        self.pp = PingPong(pool.take(lay.height, lay.width), pool.take(lay.height, lay.width))
        self.pp.source.name, self.pp.target.name = "C_S", "C_T"
        self.b = pool.take(1, m)
        self.b.name = "b"
        self.pp.source.clear(0.0)
        self.pp.target.clear(0.0)

    def add(self, a_tex, d_tex, nk: int, watch=None):
        """Add the first nk columns of A (texture m x >=nk) scaled by d (1 x >=nk)."""
        K = self.ctx.kernels
        m, packed, pp, b = self.m, self.packed, self.pp, self.b
        store = self.ctx.geometry.cached_store(("adat", m, nk, packed), lambda: assembly_geometries(m, nk, packed))
        with (watch or Stopwatch(self.ctx, enabled=False))("assemble"):
            for k in range(nk):
                K.draw("column_scaling", b, store[2 * k], {"A": a_tex, "d": d_tex})
                K.draw("outer_product_add", pp.target, store[2 * k + 1], {"C": pp.source, "A": a_tex, "b": b})
                pp.swap()

    def finish(self):
        """The texture holding C; the rest goes back to the pool."""
        self.ctx.pool.give(self.b, self.pp.target)
        return self.pp.source

    def discard(self):
        self.ctx.pool.give(self.b, self.pp.target, self.pp.source)


def assemble_resident(a_tex, d_row, *, packed: bool = False, ctx: Context):
    """Algorithm 3 with A (m x n) and d (1 x n) already in textures: nothing crosses
    to the host (the interior-point solver forms A X S^-1 A^T this way)."""
    ctx = engine(ctx)
    acc = Accumulator(ctx, a_tex.rows, packed)
    acc.add(a_tex, d_row, a_tex.cols)
    return acc.finish()


def adat(A, d2, *, packed: bool = False, ctx: Context) -> np.ndarray:
    """C = A diag(d2) A^T by Algorithm 3: float32 (m, m), lower triangle filled, upper zero.

    A: (m, n) float32, d2: (n,) float32, already validated (glgpgpu.adat does
    that and chooses this implementation for method="paper").
    """
    ctx = engine(ctx)
    tex = assemble_texture(A, d2, packed=packed, ctx=ctx)
    try:
        return unpack_and_read(tex, A.shape[0], packed)
    finally:
        ctx.pool.give(tex)
