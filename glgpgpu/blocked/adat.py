"""Blocked A D^2 A^T: one fragment accumulates a BR x BC block of C over all of k,
drawn as Fig. 2(b)'s triangle on the block grid (figures.blocks), or as Fig. 4's
two triangles on the blocked packed grid.  The row side of each block comes
through the texture units, the column side through a storage buffer holding the
same numbers (two load pipes side by side)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import figures as geo
from ..gl import Context, engine
from ..layouts.rgba import expand_blocks, packed_block_shape
from ..gl.transfer import read_rgba_lower, upload_rgba
from .sizes import ADAT_BLOCK, padded, rect_rows, require


def adat_texture(a_tex, d_tex, m: int, *, block=ADAT_BLOCK, mp: int | None = None, chunk: int = 1024,
                 packed: bool = False, ctx: Context, epilogue: tuple | None = None):
    """C (blocked RGBA, mp/4 x mp) from A (RGBA, n4 x >=m) and d (RGBA, n4 x 1);
    block = (BR, BC): rows and columns of C per fragment, BR a multiple of BC;
    epilogue: (norms texture, kernel uniforms[, column norms]) runs blocked_kernel_matrix.frag
    instead, which applies the kernel function to each block before storing it."""
    ctx = engine(ctx)
    require(ctx)
    BR, BC = block
    if BC % 4 or BR % BC:
        raise ValueError(f"block {block}: columns must be a multiple of 4 and rows a multiple of columns")
    mp = mp or padded(m, max(BR, 4))
    if packed:
        if BR != BC:
            raise ValueError("the packed blocked layout needs square tiles")
        rows, cols = packed_block_shape(m, BR)
        c_tex = ctx.pool.take(rows, cols // 4, components=4)
    else:
        c_tex = ctx.pool.take(mp, mp // 4, components=4)
    c_tex.clear(0.0)
    try:
        return product_texture(c_tex, a_tex, a_tex, d_tex, m, cover=PACKED if packed else LOWER, block=block,
                               chunk=chunk, epilogue=epilogue, ctx=ctx)
    except BaseException:
        ctx.pool.give(c_tex)
        raise


@dataclass(frozen=True)
class Cover:
    """Which blocks of C a product draws.  kind "lower": the lower block triangle of an
    m x m C (Fig. 2(b) on the block grid), or `region`, a geometry on the block grid
    drawn instead (the slab Cholesky's trailing product, whose step tables hold it);
    "packed": Fig. 4's two triangles on the blocked packed grid; "full": every block
    (an off-diagonal tile), or only block columns col_blocks = (x0, x1) (the blocked
    TRSM's trailing update) and the first row_blocks block rows (a tile's real rows)."""

    kind: str = "lower"
    region: object = None
    col_blocks: tuple | None = None
    row_blocks: int | None = None


LOWER = Cover()
PACKED = Cover("packed")


def full_cover(col_blocks: tuple | None = None, row_blocks: int | None = None) -> Cover:
    """Every block of C, or those block columns and the first row blocks."""
    return Cover("full", None, col_blocks, row_blocks)


def product_texture(c_tex, row_tex, col_tex, d_tex, m: int, *, cover: Cover = LOWER, block=ADAT_BLOCK,
                    chunk: int = 1024, first: bool = True, k_range: tuple | None = None,
                    epilogue: tuple | None = None, ctx: Context):
    """C (+)= (R D) S^T by blocked_adat into c_tex, for R = row_tex and S = col_tex
    (RGBA, k along texels; the same texture for A D^2 A^T), over the blocks `cover`
    names.  first=False adds to what C holds (the tile algorithms' updates, with
    d = -1).  k_range = (k0, k1) texels sums over k = 4 k0 .. 4 k1 - 1 only.
    epilogue: (norms texture, kernel uniforms[, column norms]) runs
    blocked_kernel_matrix.frag, which applies the kernel function to each block
    before storing it."""
    ctx = engine(ctx)
    K = ctx.kernels
    BR, BC = block
    defines = {"BR": BR, "BC": BC}
    if cover.kind == "packed":
        gx = -(-m // BC)
        grid = K.grid(c_tex.cols * 4 // BC, c_tex.rows // BR)
        # Fig. 4 on the block grid: T0.y / T1.x carry the block row / column
        tri = ctx.geometry.cached_store(("blk-packed", gx), lambda: [geo.fig4_packed_outer_product_add(gx, 0)])[0]
        defines["PACKED"] = 1
    elif cover.kind == "full":
        gx, gy = c_tex.cols * 4 // BC, c_tex.rows // BR
        grid = K.grid(gx, gy)
        x0, x1 = cover.col_blocks or (0, gx)
        tri = rect_rows(ctx, x0, x1, 0, min(gy, cover.row_blocks or gy))
        defines["FULL"] = 1
    else:
        gx, gy = -(-m // BC), -(-m // BR)
        grid = K.grid(gx, gy)
        tri = cover.region or ctx.geometry.cached_store(("blk-tri", gx, gy, BR // BC),
                                       lambda: [geo.block_triangle(gx, gy, BR // BC)])[0]
    n4 = row_tex.cols
    if col_tex.cols != n4:
        raise ValueError(f"the two operands must share k: {n4} and {col_tex.cols} texels")
    kr0, kr1 = k_range or (0, n4)
    ad_tex = ctx.pool.take(row_tex.rows, n4, components=4)
    # R D only where the product reads it: the k range (a TRSM slab is an eighth of a tile)
    K.draw("blocked_scale", ad_tex, rect_rows(ctx, kr0, kr1, 0, row_tex.rows), {"A": row_tex, "d": d_tex})
    buffers = None
    uniforms = {"u_m": m}
    # the column side through a storage buffer (A_FROM_BUFFER), unless the operand is
    # larger than one storage block (128 MiB on llvmpipe, 2 GiB on the H100): bound
    # anyway it would be read short, silently -- then the texture units read both
    if col_tex.rows * n4 * 16 <= ctx.max_storage_block:
        defines["A_FROM_BUFFER"] = 1
        buffers = {1: K.scratch_buffer("adat1", col_tex.rows * n4 * 16)}
        col_tex.copy_into_buffer(buffers[1])       # the same numbers, copied GPU-side (row-major vec4)
        uniforms["u_n4"] = n4
    shader, inputs = "blocked_adat", {"A": col_tex, "AD": ad_tex}
    if epilogue is not None:
        shader = "blocked_kernel_matrix"
        inputs["NORMS"] = epilogue[0]
        if len(epilogue) > 2:                      # the columns' own norms (a tiled off-diagonal tile)
            inputs["NORMS_J"] = epilogue[2]
            defines["COL_NORMS"] = 1
        uniforms.update(epilogue[1])
    for k0 in range(kr0, kr1, chunk):
        K.draw(shader, grid, tri, inputs,
               dict(uniforms, u_k0=k0, u_k1=min(kr1, k0 + chunk), u_first=int(first and k0 == kr0),
                    u_last=int(k0 + chunk >= kr1)),
               images={"C": c_tex}, defines=defines, buffers=buffers,
               weight=(min(kr1, k0 + chunk) - k0) * BR * BC // 64)
    ctx.pool.give(ad_tex)
    return c_tex


#: bytes of an m x m result up to which a blocked packed result is expanded on the GPU
#: and read whole, beyond which its packed half is read and expanded on the host
#: (where each was faster on the H100: benchmarks/RESULTS.md)
GPU_UNPACK_BYTES = 16 << 20


def read_packed_lower(ctx, tex, m: int, B: int) -> np.ndarray:
    """The (m, m) lower triangle (upper zero) of a blocked packed texture (B x B
    blocks), read straight into the result: expanded by one draw (blocked_unpack.frag)
    for small m, by expand_blocks on the host for large."""
    if 4 * m * m > GPU_UNPACK_BYTES:
        return expand_blocks(tex.read().reshape(tex.rows, -1), m, B)
    K = ctx.kernels
    mp = padded(m, B)
    full = ctx.pool.take(mp, mp // 4, "unpacked result", components=4)
    try:
        K.draw("blocked_unpack", full, rect_rows(ctx, 0, mp // 4, 0, mp), {"P": tex},
               {"u_m": mp // B, "u_packed": 1, "u_B": B})
        return read_rgba_lower(full, m, upper_zero=True)
    finally:
        ctx.pool.give(full)


def adat(A, d2, *, packed: bool = False, ctx: Context, block=ADAT_BLOCK) -> np.ndarray:
    """C = A diag(d2) A^T (float32, lower triangle) by the blocked kernel; A, d2
    float32 and validated (glgpgpu.adat chooses this for method="blocked")."""
    ctx = engine(ctx)
    require(ctx)
    m, n = A.shape
    n4 = -(-n // 4) * 4
    if packed:
        block = (block[1], block[1])          # the packed grid of Fig. 4 needs square blocks
    mp = padded(m, max(block[0], 4))
    ctx.check_size(mp, n4 // 4, f"A (m={m}, blocked)")
    d_tex = upload_rgba(ctx, d2[None, :], 1, n4, "d")
    a_tex = upload_rgba(ctx, A, mp, n4, "A")
    c_tex = adat_texture(a_tex, d_tex, m, block=block, mp=mp, packed=packed, ctx=ctx)
    try:
        if packed:
            return read_packed_lower(ctx, c_tex, m, block[0])
        return read_rgba_lower(c_tex, m, upper_zero=True)        # cleared, and the kernel keeps it zero
    finally:
        ctx.pool.give(a_tex, d_tex, c_tex)
