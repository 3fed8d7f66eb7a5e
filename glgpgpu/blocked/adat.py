"""Blocked A D^2 A^T: one fragment accumulates a BR x BC block of C over all of k,
drawn as Fig. 2(b)'s triangle on the block grid (figures.blocks), or as Fig. 4's
two triangles on the blocked packed grid.  The row side of each block comes
through the texture units, the column side through a storage buffer holding the
same numbers (two load pipes side by side)."""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..gl import Context, resolve
from ..layouts.rgba import expand_blocks, packed_block_shape, to_rgba
from ..layouts.transfer import read_rgba_lower, upload_rgba
from .tiles import ADAT_TILE, ADAT_VARIANT, QUAD_VARIANT, constant_d, padded, rect_rows, require


def adat_texture(a_tex, d_tex, m: int, *, tile=ADAT_TILE, mp: int | None = None, chunk: int = 1024,
                 packed: bool = False, ctx: Context | None = None, variant: dict | None = None,
                 epilogue: tuple | None = None):
    """C (blocked RGBA, mp/4 x mp) from A (RGBA, n4 x >=m) and d (RGBA, n4 x 1);
    tile = (BR, BC): rows and columns of C per fragment, BR a multiple of BC;
    variant: shader defines for tuning (default ADAT_VARIANT; BUFFER_LOADS,
    A_FROM_BUFFER, AD_FROM_BUFFER, HOLD_ROWS, KUNROLL: see blocked_adat.frag).
    epilogue: (norms texture, kernel uniforms[, column norms]) runs blocked_kernel_matrix.frag
    instead, which applies the kernel function to each block before storing it."""
    ctx = resolve(ctx)
    require(ctx)
    K = ctx.kernels
    BR, BC = tile
    if BC % 4 or BR % BC:
        raise ValueError(f"tile {tile}: columns must be a multiple of 4 and rows a multiple of columns")
    mp = mp or padded(m, max(BR, 4))
    if packed:
        if BR != BC:
            raise ValueError("the packed blocked layout needs square tiles")
        rows, cols = packed_block_shape(m, BR)
        c_tex = K.pool.take(rows, cols // 4, components=4)
    else:
        c_tex = K.pool.take(mp, mp // 4, components=4)
    c_tex.clear(0.0)
    try:
        return product_texture(c_tex, a_tex, a_tex, d_tex, m, tile=tile, chunk=chunk, packed=packed, ctx=ctx,
                               variant=variant, epilogue=epilogue)
    except BaseException:
        K.pool.give(c_tex)
        raise


def _grid(K, gx, gy, defines):
    """The draw's target grid; even in both directions for the quad variants, so
    every 2 x 2 quad lies inside the viewport (fragments outside the geometry in
    a quad run as helpers; outside the viewport none may run)."""
    if QUAD_FLAGS & set(defines):
        gx, gy = gx + gx % 2, gy + gy % 2
    return K.grid(gx, gy)


QUAD_FLAGS = {"QUAD_ROWS", "QUAD_COLS"}


def quad_sharing(ctx) -> bool:
    """May blocked_adat share fetches within 2 x 2 quads (QUAD_VARIANT, opt-in: on
    the H100 it was 13% slower than the plain kernel, benchmarks/RESULTS.md)?  Only
    where the driver offers GL_KHR_shader_subgroup and a small product drawn both
    ways -- a lower triangle with odd block counts, so helper fragments on the
    diagonal must swap too -- comes out the same bit for bit (the quad variant
    adds the same dot products in the same order).  Checked once per context."""
    ok = getattr(ctx, "_quad_sharing", None)
    if ok is None:
        ok = False
        if "GL_KHR_shader_subgroup" in (getattr(ctx.gl, "extensions", None) or ()):
            ok = _quad_self_test(ctx)
        ctx._quad_sharing = ok
    return ok


def _quad_self_test(ctx) -> bool:
    K = ctx.kernels
    A = np.random.default_rng(5).standard_normal((40, 44)).astype(np.float32)
    a_tex = upload_rgba(ctx, A, 40, 44, "A")
    d_tex = constant_d(ctx, 1.0, 44)
    out = []
    try:
        for extra in ({}, QUAD_VARIANT):
            c = adat_texture(a_tex, d_tex, 40, mp=40, ctx=ctx, variant={**ADAT_VARIANT, **extra})
            out.append(read_rgba_lower(c, 40))
            K.pool.give(c)
    except Exception:                          # noqa: BLE001 -- a compiler that refuses it: not offered
        return False
    finally:
        K.pool.give(a_tex, d_tex)
    return bool(np.array_equal(out[0], out[1]))


def product_texture(c_tex, row_tex, col_tex, d_tex, m: int, *, tile=ADAT_TILE, chunk: int = 1024,
                    packed: bool = False, full: bool = False, first: bool = True, ctx: Context | None = None,
                    variant: dict | None = None, epilogue: tuple | None = None, k_range: tuple | None = None,
                    col_blocks: tuple | None = None, row_blocks: int | None = None, region=None):
    """C (+)= (R D) S^T by blocked_adat into c_tex, for R = row_tex and S = col_tex
    (RGBA, k along texels; the same texture for A D^2 A^T).  full=False draws the
    lower block triangle of an m x m C (Fig. 2(b) on the block grid, or Fig. 4's
    packed grid); full=True every block of C (an off-diagonal tile, issue 17).
    first=False adds to what C holds (the tile algorithms' updates, with d = -1).
    k_range = (k0, k1) texels sums over k = 4 k0 .. 4 k1 - 1 only; col_blocks =
    (x0, x1) (full=True) draws only those BC-wide block columns of C -- the
    blocked TRSM's trailing update (tiled.trsm); row_blocks (full=True) only the
    first row_blocks BR-tall block rows (a tile's real rows, not its padding);
    region (lower triangle) a geometry on the block grid to draw instead of the
    whole lower block triangle -- the slab Cholesky's trailing product
    (blocked/cholesky.py), whose step tables hold it."""
    ctx = resolve(ctx)
    K = ctx.kernels
    BR, BC = tile
    defines = {"BR": BR, "BC": BC, **(ADAT_VARIANT if variant is None else variant)}
    if packed:
        gx = -(-m // BC)
        grid = K.grid(c_tex.cols * 4 // BC, c_tex.rows // BR)
        # Fig. 4 on the block grid: T0.y / T1.x carry the block row / column
        tri = K.cached_store(("blk-packed", gx), lambda: [geo.fig4_packed_outer_product_add(gx, 0)])[0]
        defines["PACKED"] = 1
    elif full:
        gx, gy = c_tex.cols * 4 // BC, c_tex.rows // BR
        grid = _grid(K, gx, gy, defines)
        x0, x1 = col_blocks or (0, gx)
        tri = rect_rows(K, x0, x1, 0, min(gy, row_blocks or gy))
        defines["FULL"] = 1
    else:
        gx, gy = -(-m // BC), -(-m // BR)
        grid = _grid(K, gx, gy, defines)
        tri = region or K.cached_store(("blk-tri", gx, gy, BR // BC),
                                       lambda: [geo.block_triangle(gx, gy, BR // BC)])[0]
    n4 = row_tex.cols
    if col_tex.cols != n4:
        raise ValueError(f"the two operands must share k: {n4} and {col_tex.cols} texels")
    kr0, kr1 = k_range or (0, n4)
    ad_tex = K.pool.take(row_tex.rows, n4, components=4)
    # R D only where the product reads it: the k range (a TRSM slab is an eighth of a tile)
    K.draw("blocked_scale", ad_tex, rect_rows(K, kr0, kr1, 0, row_tex.rows), {"A": row_tex, "d": d_tex})
    buffers = None
    uniforms = {"u_m": m}
    if max(col_tex.rows, row_tex.rows) * n4 * 16 > ctx.caps.max_storage_block:
        # an operand larger than one storage block (128 MiB on llvmpipe, 2 GiB on the
        # H100): bound anyway it would be read short, silently -- use the texture units
        for flag in ("BUFFER_LOADS", "A_FROM_BUFFER", "AD_FROM_BUFFER", "ROWS_FROM_BUFFER"):
            defines.pop(flag, None)
    if {"BUFFER_LOADS", "A_FROM_BUFFER", "AD_FROM_BUFFER", "ROWS_FROM_BUFFER"} & set(defines):
        # the same numbers, copied GPU-side into storage buffers (row-major vec4)
        buffers = {}
        for binding, tex, flags in ((1, col_tex, ("BUFFER_LOADS", "A_FROM_BUFFER")),
                                    (2, ad_tex, ("BUFFER_LOADS", "AD_FROM_BUFFER", "ROWS_FROM_BUFFER"))):
            if set(flags) & set(defines):      # copy only what the kernel reads from a buffer
                buffers[binding] = K.scratch_buffer(f"adat{binding}", tex.rows * n4 * 16)
                tex.copy_into_buffer(buffers[binding])
        uniforms["u_n4"] = n4
    unroll = int(defines.get("KUNROLL", 1))
    if n4 % unroll:
        K.pool.give(ad_tex)
        raise ValueError(f"KUNROLL={unroll} needs n/4 ({n4}) to be a multiple of it")
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
    K.pool.give(ad_tex)
    return c_tex


#: rows of A from which blocked adat uploads A in OVERLAP_BANDS row bands, drawing each
#: band's rows of C while the next band goes up (issue 14's overlap).  Off (None): on the
#: H100 (2026-11-23, interleaved runs) it was 5-25% slower at m = 1024 .. 4096 -- the
#: driver's uploads do not run beside the draws, and each band pays the product's fixed costs
OVERLAP_FROM = None
OVERLAP_BANDS = 4


def _banded(ctx, A, d_tex, m, mp, n4, tile):
    """Upload A by row bands and draw C's lower block triangle band by band: band b's
    rows of C need only A's rows up to the band's end, so the GPU computes band b
    while the host hands the driver band b + 1.  Each block is computed by one
    fragment from the same data as in one draw: the same bits."""
    K = ctx.kernels
    B = tile[0]
    g = mp // B
    cuts = sorted({round(g * q / OVERLAP_BANDS) for q in range(OVERLAP_BANDS + 1)})
    bands = K.cached_steps(("adat-bands", g, tuple(cuts)),
                           lambda: [(geo.block_band(g, y0, y1),) for y0, y1 in zip(cuts, cuts[1:])])
    rgba = to_rgba(A, mp, n4)                 # a view of A when it needs no padding
    a_tex = K.pool.take(mp, n4 // 4, "A", components=4)
    c_tex = K.pool.take(mp, mp // 4, components=4)
    try:
        c_tex.clear(0.0)
        for (y0, y1), (band,) in zip(zip(cuts, cuts[1:]), bands):
            a_tex.write_rows(rgba[y0 * B:y1 * B], y0 * B)
            product_texture(c_tex, a_tex, a_tex, d_tex, m, tile=tile, ctx=ctx, region=band)
    except BaseException:
        K.pool.give(a_tex, c_tex)
        raise
    return a_tex, c_tex


#: bytes of an m x m result up to which a blocked packed result is expanded on the GPU
#: and read whole, beyond which its packed half is read and expanded on the host (H100,
#: 2026-11-23: at m = 1024 the host expansion cost 1.2 ms against 0.4 ms more reading;
#: at 4096 reading the whole costs 13 ms more against 5-7 ms of expansion)
GPU_UNPACK_BYTES = 16 << 20


def read_packed_lower(ctx, tex, m: int, B: int) -> np.ndarray:
    """The (m, m) lower triangle (upper zero) of a blocked packed texture (B x B
    blocks), read straight into the result: expanded by one draw (blocked_unpack.frag)
    for small m, by expand_blocks on the host for large."""
    if 4 * m * m > GPU_UNPACK_BYTES:
        return expand_blocks(tex.read().reshape(tex.rows, -1), m, B)
    K = ctx.kernels
    mp = padded(m, B)
    full = K.pool.take(mp, mp // 4, "unpacked result", components=4)
    try:
        K.draw("blocked_unpack", full, rect_rows(K, 0, mp // 4, 0, mp), {"P": tex},
               {"u_m": mp // B, "u_packed": 1, "u_B": B})
        return read_rgba_lower(full, m, upper_zero=True)
    finally:
        K.pool.give(full)


def adat(A, d2, *, packed: bool = False, ctx: Context | None = None, tile=ADAT_TILE) -> np.ndarray:
    """C = A diag(d2) A^T (float32, lower triangle) by the blocked kernel; A, d2
    float32 and validated (glgpgpu.adat chooses this for method="blocked")."""
    ctx = resolve(ctx)
    require(ctx)
    m, n = A.shape
    n4 = -(-n // 4) * 4
    if packed:
        tile = (tile[1], tile[1])          # the packed grid of Fig. 4 needs square blocks
    mp = padded(m, max(tile[0], 4))
    ctx.check_size(mp, n4 // 4, f"A (m={m}, blocked)")
    d_tex = upload_rgba(ctx, d2[None, :], 1, n4, "d")
    if packed or tile[0] != tile[1] or OVERLAP_FROM is None or m < OVERLAP_FROM:
        a_tex = upload_rgba(ctx, A, mp, n4, "A")
        c_tex = adat_texture(a_tex, d_tex, m, tile=tile, mp=mp, packed=packed, ctx=ctx)
    else:
        a_tex, c_tex = _banded(ctx, A, d_tex, m, mp, n4, tile)
    try:
        if packed:
            return read_packed_lower(ctx, c_tex, m, tile[0])
        return read_rgba_lower(c_tex, m, upper_zero=True)        # cleared, and the kernel keeps it zero
    finally:
        ctx.kernels.pool.give(a_tex, d_tex, c_tex)
