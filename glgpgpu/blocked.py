"""method="blocked": register-blocked fragment kernels beside the faithful ones.

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
  * triangular solves: one pass per P unknowns.
Blocks are written in place through image load/store (GL 4.3), so a fragment
may own more outputs than render targets allow.  The matrix is padded to a
multiple of P with the identity.  Tile sizes and variants come from
`glgpgpu bench tune` on an H100 (benchmarks/RESULTS.md).
"""
from __future__ import annotations

import numpy as np

from . import geometry as geo
from .context import Context, resolve

ADAT_TILE = (8, 8)   # rows x columns of the C block one fragment of blocked_adat owns
# blocked_adat reads the column side of each block through a storage buffer and
# the row side through the texture units: two load pipes side by side
ADAT_VARIANT = {"A_FROM_BUFFER": 1}
B_TILE = 4           # rows = columns of the block one fragment of the trailing update owns
P_PANEL = 16         # columns per Cholesky panel (a multiple of 4 and of B_TILE)
# (defaults from the tuning suite on an H100, see benchmarks/RESULTS.md)


METHODS = ("auto", "paper", "blocked")


def choose(method: str, ctx: Context, *, packed: bool = False, variant: str = "outer",
           packed_ok: bool = False) -> str:
    """'paper' or 'blocked' for a call: 'auto' takes the blocked path where the
    GPU has image load/store and the call asks nothing only the paper's kernels
    do (the packed format -- unless the blocked kernel has it too, packed_ok --,
    the inner-product or triad variants)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    if method == "auto":
        fits = (packed_ok or not packed) and variant == "outer"
        return "blocked" if ctx.caps.image_load_store and fits else "paper"
    if method == "blocked":
        if packed and not packed_ok:
            raise ValueError("method='blocked' has no packed layout; use packed=False or method='paper'")
        if variant != "outer":
            raise ValueError(f"variant={variant!r} is a paper kernel; use method='paper'")
        require(ctx)
    return method


def require(ctx: Context):
    if not ctx.caps.image_load_store:
        raise RuntimeError(f"method='blocked' needs OpenGL 4.3 (image load/store); {ctx.caps.renderer} "
                           f"offers {ctx.caps.version}. Use method='paper'.")


def padded(m: int, P: int = P_PANEL) -> int:
    return -(-m // P) * P


class GridTarget:
    """A framebuffer with no attachments: it only sets how many fragments a draw
    creates (one per block); the kernels write through image stores."""

    def __init__(self, ctx, cols: int, rows: int, name="grid"):
        self.fbo = ctx.gl.empty_framebuffer((cols, rows))
        self.cols, self.rows, self.name = cols, rows, name

    def release(self):
        self.fbo.release()


def _grid(ctx, cols, rows):
    K = ctx.kernels
    cache = K.__dict__.setdefault("_grids", {})
    g = cache.get((cols, rows))
    if g is None:
        g = cache[(cols, rows)] = GridTarget(ctx, cols, rows, f"block grid {cols}x{rows}")
    return g


def to_rgba(M: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(rows, cols/4, 4) float32 array of M zero-padded to rows x cols."""
    out = np.zeros((rows, cols), np.float32)
    out[:M.shape[0], :M.shape[1]] = M
    return out.reshape(rows, cols // 4, 4)


def upload(ctx, M: np.ndarray, rows: int, cols: int, what="matrix"):
    t = ctx.kernels.pool.take(rows, cols // 4, what=what, components=4)
    t.write(to_rgba(M, rows, cols))
    return t


def read(tex, rows: int, cols: int) -> np.ndarray:
    return tex.read().reshape(tex.rows, tex.cols * 4)[:rows, :cols]


# ------------------------------------------------------------------------- A D^2 A^T

def block_triangle(gx: int, gy: int, s: int) -> geo.Geometry:
    """The lower block triangle on a grid of BR x BC blocks with BR = s * BC.

    Block (X, Y) is needed when its first column is at most its last row,
    X BC <= Y BR + BR - 1, i.e. X <= s Y + s - 1.  The edge x = s y + s/2 passes
    half a block beside that boundary at every block centre (for s = 1 it is
    Fig. 2(b)'s hypotenuse through (0, -.5) and (m + .5, m))."""
    c = s / 2
    rows = [((0, -c / s), (), ()), ((0, gy), (), ()), ((s * gy + c, gy), (), ())]
    return geo.Geometry(geo.vertex_table(rows), ((0, 1, 2),), f"lower block triangle, {gx}x{gy} blocks, slope {s}")


def adat_texture(a_tex, d_tex, m: int, *, tile=ADAT_TILE, mp: int | None = None, chunk: int = 1024,
                 packed: bool = False, ctx: Context | None = None, variant: dict | None = None):
    """C (blocked RGBA, mp/4 x mp) from A (RGBA, n4 x >=m) and d (RGBA, n4 x 1);
    tile = (BR, BC): rows and columns of C per fragment, BR a multiple of BC;
    variant: shader defines for tuning (default ADAT_VARIANT; BUFFER_LOADS,
    A_FROM_BUFFER, AD_FROM_BUFFER, HOLD_ROWS, KUNROLL: see blocked_adat.frag)."""
    ctx = resolve(ctx)
    require(ctx)
    K = ctx.kernels
    BR, BC = tile
    if BC % 4 or BR % BC:
        raise ValueError(f"tile {tile}: columns must be a multiple of 4 and rows a multiple of columns")
    mp = mp or padded(m, max(BR, 4))
    gx, gy = -(-m // BC), -(-m // BR)
    defines = {"BR": BR, "BC": BC, **(ADAT_VARIANT if variant is None else variant)}
    if packed:
        if BR != BC:
            raise ValueError("the packed blocked layout needs square tiles")
        rows, cols = packed_block_shape(m, BR)
        c_tex = K.pool.take(rows, cols // 4, components=4)
        grid = _grid(ctx, cols // BC, rows // BR)
        # Fig. 4 on the block grid: T0.y / T1.x carry the block row / column
        tri = K.cached_store(("blk-packed", gx), lambda: [geo.fig4_packed_outer_product_add(gx, 0)])[0]
        defines["PACKED"] = 1
    else:
        c_tex = K.pool.take(mp, mp // 4, components=4)
        grid = _grid(ctx, gx, gy)
        tri = K.cached_store(("blk-tri", gx, gy, BR // BC), lambda: [block_triangle(gx, gy, BR // BC)])[0]
    c_tex.clear(0.0)
    n4 = a_tex.cols
    ad_tex = K.pool.take(a_tex.rows, n4, components=4)
    K.draw("blocked_scale", ad_tex, _rect_rows(K, 0, n4, 0, a_tex.rows), {"A": a_tex, "d": d_tex})
    buffers = None
    uniforms = {"u_m": m}
    if {"BUFFER_LOADS", "A_FROM_BUFFER", "AD_FROM_BUFFER"} & set(defines):
        # the same numbers, copied GPU-side into storage buffers (row-major vec4)
        nbytes = a_tex.rows * n4 * 16
        buffers = {}
        for binding, tex, flags in ((1, a_tex, ("BUFFER_LOADS", "A_FROM_BUFFER")),
                                    (2, ad_tex, ("BUFFER_LOADS", "AD_FROM_BUFFER"))):
            if set(flags) & set(defines):      # copy only what the kernel reads from a buffer
                buffers[binding] = K.scratch_buffer(f"adat{binding}", nbytes)
                tex.tex.read_into(buffers[binding], alignment=4)
        uniforms["u_n4"] = n4
    unroll = int(defines.get("KUNROLL", 1))
    if n4 % unroll:
        raise ValueError(f"KUNROLL={unroll} needs n/4 ({n4}) to be a multiple of it")
    for k0 in range(0, n4, chunk):
        K.draw("blocked_adat", grid, tri, {"A": a_tex, "AD": ad_tex},
               dict(uniforms, u_k0=k0, u_k1=min(n4, k0 + chunk), u_first=int(k0 == 0)),
               images={"C": c_tex}, defines=defines, buffers=buffers)
    K.pool.give(ad_tex)
    return c_tex


def adat(A, d2, *, tile=ADAT_TILE, packed: bool = False, ctx: Context | None = None) -> np.ndarray:
    ctx = resolve(ctx)
    require(ctx)
    m, n = A.shape
    n4 = -(-n // 4) * 4
    if packed:
        tile = (tile[1], tile[1])          # the packed grid of Fig. 4 needs square blocks
    mp = padded(m, max(tile[0], 4))
    ctx.check_size(mp, n4 // 4, f"A (m={m}, blocked)")
    a_tex = upload(ctx, A, mp, n4, "A")
    d_tex = upload(ctx, d2[None, :], 1, n4, "d")
    c_tex = adat_texture(a_tex, d_tex, m, tile=tile, mp=mp, packed=packed, ctx=ctx)
    try:
        if packed:
            return unpack_blocks(c_tex.read().reshape(c_tex.rows, -1), m, tile[0])
        return np.tril(read(c_tex, m, m))
    finally:
        ctx.kernels.pool.give(a_tex, d_tex, c_tex)


def packed_block_shape(m: int, B: int):
    """(rows, columns) of the blocked packed storage of an m x m lower triangle:
    the rectangular packed format of Fig. 3 applied to the grid of B x B blocks."""
    from .packed import PackedLayout

    lay = PackedLayout(-(-m // B))
    return lay.h * B, lay.w * B


def unpack_blocks(P: np.ndarray, m: int, B: int) -> np.ndarray:
    """The (m, m) lower triangle from blocked packed storage (numpy)."""
    from .packed import PackedLayout

    G = -(-m // B)
    lay = PackedLayout(G)
    I, J = np.tril_indices(G)
    X, Y = lay.texel(I, J)
    blocks = P.reshape(lay.h, B, lay.w, B)[Y, :, X, :]          # (nblocks, B, B)
    full = np.zeros((G, B, G, B), P.dtype)
    full[I, :, J, :] = blocks
    return np.tril(full.reshape(G * B, G * B)[:m, :m])


# ------------------------------------------------------------------------- Cholesky

UPDATE_VARIANT = {"COLS_FROM_BUFFER": 1}   # blocked_update defines (see the shader)


def factor_texture(c_tex, m: int, *, P: int = P_PANEL, B: int = B_TILE, pivot_floor: float | None = None,
                   ctx: Context | None = None, variant: dict | None = None):
    """Factor blocked C (RGBA, mp/4 x mp, mp a multiple of P) in place; returns it."""
    ctx = resolve(ctx)
    require(ctx)
    K = ctx.kernels
    mp = c_tex.rows
    if mp % P or P % B or P % 4:
        raise ValueError(f"blocked Cholesky needs the padded order ({mp}) a multiple of P={P}, "
                         f"and P a multiple of B={B} and of 4")
    pnl = K.pool.take(mp, P // 4, components=4)
    G = mp // B
    grid_update = _grid(ctx, G, G)
    floor = -1.0 if pivot_floor is None else float(pivot_floor)
    d = {"P": P, "B": B, **(UPDATE_VARIANT if variant is None else variant)}
    pbuf = {1: K.scratch_buffer("PNL", mp * P * 4)} if "COLS_FROM_BUFFER" in d else None
    for kb in range(0, mp, P):
        K.draw("blocked_panel", _grid(ctx, 1, mp), _rect_rows(K, 0, 1, kb, mp), None,
               {"u_kb": kb, "u_m": m, "u_floor": floor}, images={"A": c_tex, "PNL": pnl}, defines={"P": P})
        if kb + P < mp:
            kk = (kb + P) // B - 1
            tri = K.cached_store(("blk-sub", G, kk), lambda: [geo.fig5_outer_product_sub(G, kk)])[0]
            if pbuf:
                pnl.tex.read_into(pbuf[1], alignment=4)
            K.draw("blocked_update", grid_update, tri, {"PNL": pnl}, None, images={"A": c_tex}, defines=d,
                   buffers=pbuf)
        K.draw("blocked_copyback", _grid(ctx, P // 4, mp), _rect_rows(K, 0, P // 4, kb, mp), {"PNL": pnl},
               {"u_kb": kb}, images={"A": c_tex})
    K.pool.give(pnl)
    return c_tex


def _rect_rows(K, x0, x1, y0, y1):
    return K.cached_store(("blk-rect", x0, x1, y0, y1), lambda: [geo.rectangle(x0, y0, x1, y1)])[0]


def diagonal(l_tex, m: int, ctx: Context | None = None) -> np.ndarray:
    ctx = resolve(ctx)
    K = ctx.kernels
    out = K.pool.take(1, m)
    K.draw("blocked_diagonal", out, _rect_rows(K, 0, m, 0, 1), {"L": l_tex}, {"u_m": m})
    d = out.read()[0]
    K.pool.give(out)
    return d


def cholesky(C, *, P: int = P_PANEL, B: int = B_TILE, ctx: Context | None = None) -> np.ndarray:
    from .cholesky import NotPositiveDefiniteError

    ctx = resolve(ctx)
    require(ctx)
    m = C.shape[0]
    mp = padded(m, P)
    ctx.check_size(mp, mp // 4, f"C (m={m}, blocked)")
    tex = upload(ctx, np.tril(C), mp, mp, "C")
    try:
        factor_texture(tex, m, P=P, B=B, ctx=ctx)
        d = diagonal(tex, m, ctx)
        bad = np.flatnonzero(~(d > 0) | ~np.isfinite(d))
        if bad.size:
            raise NotPositiveDefiniteError(int(bad[0]), m)
        return np.tril(read(tex, m, m))
    finally:
        ctx.kernels.pool.give(tex)


# ------------------------------------------------------------------------- solves

def substitute_texture(l_tex, m: int, b_tex, *, backward: bool, P: int = P_PANEL, ctx: Context | None = None):
    """Blocked forward (L y = b) or backward (L^T x = y) substitution; `b_tex`
    (mp x nrhs, R32F) is consumed, the result returned."""
    ctx = resolve(ctx)
    K = ctx.kernels
    mp = l_tex.rows
    S, T = b_tex, K.pool.take(b_tex.rows, b_tex.cols)
    rect = _rect_rows(K, 0, b_tex.cols, 0, mp)
    panels = range(mp - P, -1, -P) if backward else range(0, mp, P)
    for kb in panels:
        K.draw("blocked_solve", T, rect, {"L": l_tex, "Bs": S},
               {"u_kb": kb, "u_m": m, "u_backward": int(backward)}, defines={"P": P})
        S, T = T, S
    K.pool.give(T)
    return S


def solve(L_lower: np.ndarray, Bm: np.ndarray, steps, *, P: int = P_PANEL, ctx: Context | None = None):
    ctx = resolve(ctx)
    require(ctx)
    m = L_lower.shape[0]
    mp = padded(m, P)
    l_tex = upload(ctx, L_lower, mp, mp, "L")
    x = np.zeros((mp, Bm.shape[1]), np.float32)
    x[:m] = Bm
    t = ctx.kernels.pool.take(mp, Bm.shape[1])
    t.write(x)
    try:
        for backward in steps:
            t = substitute_texture(l_tex, m, t, backward=backward, P=P, ctx=ctx)
        return t.read()[:m]
    finally:
        ctx.kernels.pool.give(l_tex, t)
