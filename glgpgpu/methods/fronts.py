"""A sparse QR's fronts assembled and factored on the GPU by drawing, for the fragment
methods (Yeralan et al. 2015, sections 3.3-3.4): what blocked/fronts.py (RGBA
atlases, the tile QR) and paper/fronts.py (R32F atlases, the papers' kernels)
share; compute/fronts.py is the same job by dispatches.

Per round, each atlas of fronts (the method's placement) is cleared, then
  S-assembly   one point per nonzero of A's rows, added into its texel
               (shaders/methods/front_entries.frag);
  children     each child's contribution block gathered into its parent's rows
               through the column map (front_block_gather.frag; every parent row
               has one source, so no write conflicts), one draw per texture the
               blocks wait in;
  factor       the method's QR of the atlas;
  R            each result texture's top rows read back once (the pivot rows);
  blocks       copied out (front_block_copy.frag) into shelves of a texture of the
               round's own, where they wait for their parents; the atlas goes back.
A block texture goes back to the pool when its last block has been gathered.  At a
stage's end (`pull`) the waiting blocks are read to the host, and sent again in a
texture of their own for the round that gathers them.  Geometry: figures/fronts.py.

Each front is scaled by a power of two of the solver's choosing (exact); a block is
multiplied by the ratio of the two fronts' scales as it moves (exact).
"""
from __future__ import annotations

import numpy as np

from ..figures import fronts as geo


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


class DrawnFrontStore:
    """The fronts of one factorization; `release()` gives back whatever is left.
    A method fills in `components` (matrix columns a texel), `_place` and `_factor`."""

    components = 4
    #: columns a launch factors in every front of an atlas (they go in lockstep): the
    #: solver then groups the rounds by whichever of front_levels / front_rounds counts
    #: fewer launches (as quick either way on the H100, nearer the critical path by levels)
    panel = 32

    def __init__(self, ctx):
        self.ctx = ctx
        self.blocks = {}       # front -> [_Waiting | host array, first column, first row, rows, cols, scale]

    # -- what a method provides -------------------------------------------------------
    def _place(self, fronts: list) -> list:
        """Atlases: [[(index into fronts, placed front with .ox (texel) and .m), ...], ...]."""
        raise NotImplementedError

    def _factor(self, a_tex, fronts: list, placed: list) -> tuple:
        """Factor the atlas (which it takes over): (each front's result texture, a
        function giving back everything the factorization holds)."""
        raise NotImplementedError

    # -- the store --------------------------------------------------------------------
    def _pack_limit(self) -> int:
        """The side of the textures blocks wait in."""
        return self.ctx.max_texture_size

    def _map_rows(self) -> int:
        """The most (parent, child) pairs one gather draw takes: a column map's height."""
        return self.ctx.max_texture_size

    def row_limit(self, n: int) -> int | None:
        """The most rows a front can have here: a texture's height."""
        return self.ctx.max_texture_size

    def _texels(self, n: int) -> int:
        return -(-n // self.components)

    def _take(self, rows: int, cols: int, what: str):
        return self.ctx.pool.take(rows, cols, what, components=self.components)

    def round(self, fronts: list) -> list:
        """Assemble and factor each front of a round (methods.contract.FrontSpec); returns
        each one's R rows (fr x n, float32, unscaled)."""
        out = [None] * len(fronts)
        self._resend([c for fr in fronts for c, _, _ in fr.children])
        for atlas in self._place(fronts):
            idx = [i for i, _ in atlas]
            for i, R in zip(idx, self._atlas([fronts[i] for i in idx], [pf for _, pf in atlas])):
                out[i] = R
        return out

    def _atlas(self, fronts, placed) -> list:
        ctx, C = self.ctx, self.components
        W = max(pf.ox + self._texels(fr.n) for fr, pf in zip(fronts, placed))
        H = max(pf.m for pf in placed)
        ctx.check_size(H, W, f"the sparse QR's atlas ({len(fronts)} fronts, {H} x {W} texels)")
        a_tex = self._take(H, W, "sparse QR fronts")
        try:
            a_tex.clear(0.0)
            self._entries(a_tex, fronts, placed)
            self._children(a_tex, fronts, placed)
        except BaseException:
            ctx.pool.give(a_tex)
            raise
        texs, done = self._factor(a_tex, fronts, placed)
        try:
            top = max(fr.fr for fr in fronts)
            tops = {}
            for t in texs:
                if id(t) not in tops:
                    flat = np.empty((top, W, C) if C > 1 else (top, W), np.float32)
                    if top:
                        t.read_region_into(flat, 0, 0)
                    tops[id(t)] = flat.reshape(top, C * W)
            out = []
            for fr, pf, t in zip(fronts, placed, texs):
                R = tops[id(t)][:fr.fr, C * pf.ox:C * pf.ox + fr.n]
                out.append(R * np.float32(1.0 / fr.scale) if fr.scale != 1.0 else R.copy())
            self._keep_blocks(texs, fronts, placed)
            return out
        finally:
            done()

    def _entries(self, a_tex, fronts, placed) -> None:
        """S-assembly: A's entries of every front of the atlas, one point each."""
        x0 = np.concatenate([np.full(fr.rows.shape[0], pf.ox) for fr, pf in zip(fronts, placed)])
        if not x0.size:
            return
        pts = geo.entry_points(x0, np.concatenate([fr.rows for fr in fronts]),
                               np.concatenate([fr.cols for fr in fronts]),
                               np.concatenate([fr.vals * fr.scale for fr in fronts]).astype(np.float32),
                               self.components)
        self.ctx.kernels.draw("front_entries", a_tex, pts, blend=True)

    def _children(self, a_tex, fronts, placed) -> None:
        """Every child block into its parent's rows: one draw per texture the blocks
        wait in (and per column-map texture of at most _map_rows pairs)."""
        limit, side = self._map_rows(), self.ctx.max_texture_size
        by_src = {}
        for fr, pf in zip(fronts, placed):
            for c, prow, pcol in fr.children:
                src, c0, y0, k, cols, cscale = self.blocks.pop(c)
                by_src.setdefault(id(src), (src, []))[1].append((fr, pf, prow, pcol, c0, y0, cscale))
        try:
            for src, pairs in by_src.values():
                self._gather(a_tex, src, pairs, limit, side)
        finally:                            # each gathered block's texture is one user lighter
            for src, pairs in by_src.values():
                for _ in pairs:
                    src.drop()

    def _gather(self, a_tex, src, pairs, limit: int, side: int) -> None:
        """The blocks of `pairs` that wait in src into their parents' rows."""
        ctx, C = self.ctx, self.components
        for lo in range(0, len(pairs), limit):
            part = pairs[lo:lo + limit]
            shape = (_size_class(len(part), side),
                     _size_class(max(self._texels(fr.n) for fr, *_ in part), side))
            cmap = np.full((len(part), shape[1], C), -1.0, np.float32)
            rects = []
            for p, (fr, pf, prow, pcol, c0, y0, cscale) in enumerate(part):
                cmap[p, :self._texels(fr.n)] = geo.column_map(pcol, fr.n, C)
                brow = np.flatnonzero(prow >= 0)
                at = prow[brow]
                order = np.argsort(at, kind="stable")
                e = int(np.frexp(fr.scale / cscale)[1]) - 1           # the ratio is a power of two
                rects.append((p, pf.ox, fr.n, at[order], brow[order], c0, y0, e))
            geom = geo.gather_rects(rects, C)
            m_tex = self._take(*shape, "sparse QR column maps")
            try:
                m_tex.upload(cmap if C > 1 else cmap[:, :, 0])
                if geom is not None:
                    ctx.kernels.draw("front_block_gather", a_tex, geom, {"B": src.tex, "COLMAP": m_tex},
                                     defines={"COMPONENTS": C})
            finally:
                ctx.pool.give(m_tex)

    def _keep_blocks(self, texs, fronts, placed) -> None:
        """Copy each front's contribution block out to shelves of a texture of the
        round's own (whole texels from the one holding its first column)."""
        ctx, C = self.ctx, self.components
        todo = [(fr, pf, t) for fr, pf, t in zip(fronts, placed, texs) if fr.cm]
        if not todo:
            return
        sizes = [(self._texels(fr.n) - fr.fp // C, fr.cm) for fr, _, _ in todo]
        places, dims = geo.shelves(sizes, self._pack_limit())
        side = ctx.max_texture_size
        for t, (w, h) in enumerate(dims):
            mine = [j for j, pl in enumerate(places) if pl[0] == t]
            tex = self._take(_size_class(h, side), _size_class(w, side), "sparse QR contribution blocks")
            held = _Waiting(ctx, tex, len(mine))
            try:
                by_src = {}
                for j in mine:
                    fr, pf, s = todo[j]
                    _, x, y = places[j]
                    by_src.setdefault(id(s), (s, []))[1].append((pf.ox + fr.fp // C, fr.fr, x, y, sizes[j][0],
                                                                 fr.cm))
                    self.blocks[fr.f] = [held, C * x + fr.fp % C, y, fr.cm, fr.n - fr.fp, fr.scale]
                for s, copies in by_src.values():
                    ctx.kernels.draw("front_block_copy", tex, geo.copy_rects(copies), {"S": s})
            except BaseException:
                ctx.pool.give(tex)
                raise

    def _resend(self, children) -> None:
        """The blocks this round gathers that wait on the host (pulled at a stage's
        end): sent again, packed in shelves of textures of their own."""
        ctx, C = self.ctx, self.components
        back = [c for c in children if isinstance(self.blocks[c][0], np.ndarray)]
        if not back:
            return
        sizes = [(self._texels(self.blocks[c][4]), self.blocks[c][3]) for c in back]
        places, dims = geo.shelves(sizes, self._pack_limit())
        side = ctx.max_texture_size
        for t, (w, h) in enumerate(dims):
            mine = [j for j, pl in enumerate(places) if pl[0] == t]
            tex = self._take(_size_class(h, side), _size_class(w, side), "sparse QR contribution blocks, sent again")
            data = np.zeros((h, tex.cols * C), np.float32)
            for j in mine:
                _, x, y = places[j]
                blk = self.blocks[back[j]]
                data[y:y + blk[3], C * x:C * x + blk[4]] = blk[0]
            try:
                tex.upload(data.reshape(h, tex.cols, C) if C > 1 else data)
            except BaseException:
                ctx.pool.give(tex)
                raise
            held = _Waiting(ctx, tex, len(mine))
            for j in mine:
                _, x, y = places[j]
                self.blocks[back[j]][:3] = [held, C * x, y]

    def pull(self) -> None:
        """Every waiting block to the host (a stage ends; its parents come later)."""
        whole = {}
        for blk in self.blocks.values():
            src, c0, y0, k, cols = blk[:5]
            if isinstance(src, np.ndarray):
                continue
            if id(src) not in whole:
                whole[id(src)] = src.tex.read().reshape(src.tex.rows, -1)
            blk[:3] = [whole[id(src)][y0:y0 + k, c0:c0 + cols].copy(), 0, 0]
            src.drop()

    def fetch(self, c: int) -> np.ndarray:
        """Front c's contribution block, taken from the store to the host: unscaled,
        its upper triangle (for a parent the host assembles: one taller than a texture)."""
        src, c0, y0, k, cols, scale = self.blocks.pop(c)
        if not isinstance(src, np.ndarray):
            C = self.components
            x0 = c0 // C
            flat = src.tex.read_region(x0, y0, -(-(c0 + cols) // C) - x0, k).reshape(k, -1)
            src.drop()
            src = flat[:, c0 - C * x0:c0 - C * x0 + cols]
        return np.triu(src) * np.float32(1.0 / scale)

    def put(self, f: int, block: np.ndarray, scale: float) -> None:
        """Front f's contribution block from the host (unscaled), to wait for its parent."""
        self.blocks[f] = [(block * np.float32(scale)).astype(np.float32), 0, 0, block.shape[0], block.shape[1], scale]

    def release(self) -> None:
        for blk in self.blocks.values():
            if isinstance(blk[0], _Waiting):
                blk[0].drop()
        self.blocks.clear()
