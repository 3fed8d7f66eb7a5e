"""A sparse QR's fronts assembled and factored on the GPU by drawing (method="blocked";
Yeralan et al. 2015, sections 3.3-3.4), the fragment stage's counterpart of
compute/fronts.py.

Per round, each atlas of fronts (place_blocked: side by side in RGBA texels) is
cleared, then
  S-assembly   one point per nonzero of A's rows, added into its texel
               (shaders/blocked/front_entries.frag);
  children     each child's contribution block gathered into its parent's rows
               through the column map (front_block_gather.frag; every parent row
               has one source, so no write conflicts), one draw per texture the
               blocks wait in;
  factor       factor_atlas, the tile QR on the fronts' staircases;
  R            the atlas's top rows read back once (each front's pivot rows);
  blocks       copied out (front_block_copy.frag) into shelves of a texture of the
               round's own, where they wait for their parents; the atlas goes back.
A block texture goes back to the pool when its last block has been gathered.  At a
stage's end (`pull`) the waiting blocks are read to the host, and sent again in a
texture of their own for the round that gathers them.  Geometry: figures/fronts.py.

Each front is scaled by a power of two of the solver's choosing (exact); a block is
multiplied by the ratio of the two fronts' scales as it moves (ldexp, exact).
"""
from __future__ import annotations

import numpy as np

from ..figures import fronts as geo
from ..figures.qr import place_blocked
from .qr import _check_nb, _with_reach, factor_atlas, panel_width
from .sizes import require


def _size_class(v: int, limit: int) -> int:
    """A texture side rounded up to a multiple of 128 (within the limit): the pool
    keeps textures by exact size, so the rounds' scratch textures are reused."""
    return min(limit, -(-max(v, 1) // 128) * 128)


class _Waiting:
    """A texture of blocks waiting for their parents; given back after its last gather."""

    def __init__(self, ctx, tex, users: int):
        self.ctx, self.tex, self.users = ctx, tex, users

    def drop(self) -> None:
        self.users -= 1
        if self.users <= 0 and self.tex is not None:
            self.ctx.pool.give(self.tex)
            self.tex = None


class FrontStore:
    """The fronts of one factorization; `release()` gives back whatever is left."""

    def __init__(self, ctx):
        require(ctx)
        self.ctx = ctx
        self.nb = panel_width(ctx)
        self.blocks = {}       # front -> [_Waiting | host array, first component, first row, rows, cols, scale]

    def _pack_limit(self) -> int:
        """The side of the textures blocks wait in."""
        return self.ctx.max_texture_size

    def _map_rows(self) -> int:
        """The most (parent, child) pairs one gather draw takes: a column map's height."""
        return self.ctx.max_texture_size

    def row_limit(self, n: int) -> int | None:
        """The most rows a front can have here: a texture's height."""
        return self.ctx.max_texture_size

    def round(self, fronts: list) -> list:
        """Assemble and factor each front of a round (compute/fronts.FrontStore.round's
        dicts); returns each one's R rows (fr x n, float32, unscaled)."""
        ctx, nb = self.ctx, self.nb
        out = [None] * len(fronts)
        self._resend([c for fr in fronts for c, _, _ in fr["children"]])
        atlases = place_blocked([(fr["m"], fr["n"]) for fr in fronts], ctx.max_texture_size, nb,
                                lambda m: _check_nb(nb, None, m))
        for atlas in atlases:
            placed = [(i, _with_reach(bf, fronts[i]["leftmost"], nb)) for i, bf in atlas]
            for i, R in zip([i for i, _ in placed], self._atlas([fronts[i] for i, _ in placed],
                                                                [bf for _, bf in placed])):
                out[i] = R
        return out

    def _atlas(self, fronts, placed) -> list:
        ctx = self.ctx
        W = max(bf.ox + bf.texels for bf in placed)
        H = max(bf.m for bf in placed)
        a_tex = ctx.pool.take(H, W, "sparse QR fronts", components=4)
        try:
            a_tex.clear(0.0)
            self._entries(a_tex, fronts, placed)
            self._children(a_tex, fronts, placed)
            ctx.pool.give(factor_atlas(a_tex, placed, nb=self.nb, ctx=ctx))
            top = max(fr["fr"] for fr in fronts)
            flat = np.empty((top, W, 4), np.float32)
            if top:
                a_tex.read_region_into(flat, 0, 0)
            flat = flat.reshape(top, 4 * W)
            out = []
            for fr, bf in zip(fronts, placed):
                R = flat[:fr["fr"], 4 * bf.ox:4 * bf.ox + fr["n"]]
                out.append(R * np.float32(1.0 / fr["scale"]) if fr["scale"] != 1.0 else R.copy())
            self._keep_blocks(a_tex, fronts, placed)
            return out
        finally:
            ctx.pool.give(a_tex)

    def _entries(self, a_tex, fronts, placed) -> None:
        """S-assembly: A's entries of every front of the atlas, one point each."""
        x0 = np.concatenate([np.full(fr["rows"].shape[0], bf.ox) for fr, bf in zip(fronts, placed)])
        if not x0.size:
            return
        pts = geo.entry_points(x0, np.concatenate([fr["rows"] for fr in fronts]),
                               np.concatenate([fr["cols"] for fr in fronts]),
                               np.concatenate([fr["vals"] * fr["scale"] for fr in fronts]).astype(np.float32), 4)
        self.ctx.kernels.draw("front_entries", a_tex, pts, blend=True)

    def _children(self, a_tex, fronts, placed) -> None:
        """Every child block into its parent's rows: one draw per texture the blocks
        wait in (and per column-map texture of at most a texture's height of pairs)."""
        ctx, limit, side = self.ctx, self._map_rows(), self.ctx.max_texture_size
        by_src = {}
        for fr, bf in zip(fronts, placed):
            for c, prow, pcol in fr["children"]:
                src, c0, y0, k, cols, cscale = self.blocks.pop(c)
                by_src.setdefault(id(src), (src, []))[1].append((fr, bf, prow, pcol, c0, y0, cscale))
        for src, pairs in by_src.values():
            for lo in range(0, len(pairs), limit):
                part = pairs[lo:lo + limit]
                shape = (_size_class(len(part), side), _size_class(max(bf.texels for _, bf, *_ in part), side))
                cmap = np.full((len(part), shape[1], 4), -1.0, np.float32)
                rects = []
                for p, (fr, bf, prow, pcol, c0, y0, cscale) in enumerate(part):
                    cmap[p, :bf.texels] = geo.column_map(pcol, fr["n"], 4)
                    brow = np.flatnonzero(prow >= 0)
                    at = prow[brow]
                    order = np.argsort(at, kind="stable")
                    e = int(np.frexp(fr["scale"] / cscale)[1]) - 1           # the ratio is a power of two
                    rects.append((p, bf.ox, fr["n"], at[order], brow[order], c0, y0, e))
                geom = geo.gather_rects(rects, 4)
                m_tex = ctx.pool.take(*shape, "sparse QR column maps", components=4)
                try:
                    m_tex.upload(cmap)
                    if geom is not None:
                        ctx.kernels.draw("front_block_gather", a_tex, geom, {"B": src.tex, "COLMAP": m_tex})
                finally:
                    ctx.pool.give(m_tex)
            for _ in pairs:
                src.drop()

    def _keep_blocks(self, a_tex, fronts, placed) -> None:
        """Copy each front's contribution block out to shelves of a texture of the
        round's own (whole texels from the one holding its first column)."""
        ctx = self.ctx
        todo = [(fr, bf) for fr, bf in zip(fronts, placed) if fr["cm"]]
        if not todo:
            return
        sizes = [(bf.texels - fr["fp"] // 4, fr["cm"]) for fr, bf in todo]
        places, dims = geo.shelves(sizes, self._pack_limit())
        for t, (w, h) in enumerate(dims):
            mine = [j for j, pl in enumerate(places) if pl[0] == t]
            lim = ctx.max_texture_size
            tex = ctx.pool.take(_size_class(h, lim), _size_class(w, lim), "sparse QR contribution blocks", components=4)
            held = _Waiting(ctx, tex, len(mine))
            try:
                copies = []
                for j in mine:
                    fr, bf = todo[j]
                    _, x, y = places[j]
                    copies.append((bf.ox + fr["fp"] // 4, fr["fr"], x, y, sizes[j][0], fr["cm"]))
                    self.blocks[fr["f"]] = [held, 4 * x + fr["fp"] % 4, y, fr["cm"], fr["n"] - fr["fp"], fr["scale"]]
                ctx.kernels.draw("front_block_copy", tex, geo.copy_rects(copies), {"S": a_tex})
            except BaseException:
                ctx.pool.give(tex)
                raise

    def _resend(self, children) -> None:
        """The blocks this round gathers that wait on the host (pulled at a stage's
        end): sent again, packed in shelves of textures of their own."""
        ctx = self.ctx
        back = [c for c in children if isinstance(self.blocks[c][0], np.ndarray)]
        if not back:
            return
        sizes = [(-(-self.blocks[c][4] // 4), self.blocks[c][3]) for c in back]
        places, dims = geo.shelves(sizes, self._pack_limit())
        for t, (w, h) in enumerate(dims):
            mine = [j for j, pl in enumerate(places) if pl[0] == t]
            lim = ctx.max_texture_size
            tex = ctx.pool.take(_size_class(h, lim), _size_class(w, lim), "sparse QR contribution blocks, sent again",
                                components=4)
            data = np.zeros((h, tex.cols * 4), np.float32)
            for j in mine:
                _, x, y = places[j]
                blk = self.blocks[back[j]]
                data[y:y + blk[3], 4 * x:4 * x + blk[4]] = blk[0]
            tex.upload(data.reshape(h, tex.cols, 4))
            held = _Waiting(ctx, tex, len(mine))
            for j in mine:
                _, x, y = places[j]
                self.blocks[back[j]][:3] = [held, 4 * x, y]

    def pull(self) -> None:
        """Every waiting block to the host (a stage ends; its parents come later)."""
        whole = {}
        for blk in self.blocks.values():
            src, c0, y0, k, cols = blk[:5]
            if isinstance(src, np.ndarray):
                continue
            if id(src) not in whole:
                whole[id(src)] = src.tex.read().reshape(src.tex.rows, 4 * src.tex.cols)
            blk[:3] = [whole[id(src)][y0:y0 + k, c0:c0 + cols].copy(), 0, 0]
            src.drop()

    def fetch(self, c: int) -> np.ndarray:
        """Front c's contribution block, taken from the store to the host: unscaled,
        its upper triangle (for a parent the host assembles: one taller than a texture)."""
        src, c0, y0, k, cols, scale = self.blocks.pop(c)
        if not isinstance(src, np.ndarray):
            x0 = c0 // 4
            flat = src.tex.read_region(x0, y0, -(-(c0 + cols) // 4) - x0, k).reshape(k, -1)
            src.drop()
            src = flat[:, c0 - 4 * x0:c0 - 4 * x0 + cols]
        return np.triu(src) * np.float32(1.0 / scale)

    def put(self, f: int, block: np.ndarray, scale: float) -> None:
        """Front f's contribution block from the host (unscaled), to wait for its parent."""
        self.blocks[f] = [(block * np.float32(scale)).astype(np.float32), 0, 0, block.shape[0], block.shape[1], scale]

    def release(self) -> None:
        for blk in self.blocks.values():
            if isinstance(blk[0], _Waiting):
                blk[0].drop()
        self.blocks.clear()
