"""A sparse QR's fronts kept on the GPU (method="compute"): assembled there, factored
in place, only R's rows read back (Yeralan et al. 2015, sections 3.3-3.4).

A front is zeroed, its own rows of A are scattered in (S-assembly), and each child's
contribution block is gathered into it through the child's row and column maps
(every parent entry has one source, so no write conflicts).  After the front's
Householder QR (`qr.factor_buffer`, on its staircase) its contribution block is
copied out to a buffer of its own, the front's R rows are read back and the front
is given back.  Blocks wait on the GPU for their parent, or on the host when the
parent is in a later stage (`pull`), and are sent again for that stage.

Each front is scaled by a power of two of the solver's choosing (exact); a block
moving from child to parent is multiplied by the ratio of their scales.
"""
from __future__ import annotations

import numpy as np

from .blas import download, fill, require, take, upload, write
from .qr import factor_buffer


def _ints(ctx, values: np.ndarray, what: str):
    """int32 values in a compact buffer (their bits, as the shaders read them)."""
    a = np.ascontiguousarray(values, np.int32).reshape(1, -1)
    buf = ctx.buffers.take(1, max(a.shape[1], 1), what, ld=max(a.shape[1], 1))
    if a.size:
        write(ctx, buf, a.view(np.float32))
    return buf


#: a front of at most this many entries (and columns) is factored with the other small
#: ones of its round in one dispatch, in shared memory (front_qr_small.comp's SMALL)
SMALL = 6144
SMALL_COLS = 256


class _Arena:
    """One buffer holding a round's small fronts side by side (row stride = columns);
    given back when its last contribution block has been gathered."""

    def __init__(self, buf):
        self.buf, self.users = buf, 0

    def drop(self) -> None:
        self.users -= 1
        if self.users <= 0 and self.buf is not None:
            self.buf.give()
            self.buf = None


class FrontStore:
    """The fronts of one factorization; `release()` gives back whatever is left."""

    #: no panel: rounds as soon as possible (symbolic.front_rounds), a round's small fronts
    #: in one dispatch and the leaves all in the first (by levels grid3d_40 took twice as long)
    panel = None

    def __init__(self, ctx):
        require(ctx)
        self.ctx = ctx
        self.blocks = {}       # front -> [buffer | _Arena | host array, offset, stride, rows, cols, scale]

    def row_limit(self, n: int) -> int | None:
        """The most rows an n-column front can have here (one storage block)."""
        lim = self.ctx.max_storage_block
        return lim // (4 * (-(-n // 4) * 4)) if lim else None

    def round(self, fronts: list) -> list:
        """Assemble and factor each front of a round (methods.contract.FrontSpec); returns each
        one's R rows (fr x n, float32, unscaled).  Small fronts share one buffer and one
        dispatch; the others each have a buffer and the dense QR's panels.  Five phases:
        place, assemble, factor, keep the contribution blocks, read R."""
        small = [i for i, fr in enumerate(fronts) if fr.m * fr.n <= SMALL and fr.n <= SMALL_COLS]
        large = sorted(set(range(len(fronts))) - set(small))
        held = []
        arena = None
        try:
            place, arena = self._place(fronts, small, large, held)
            self._assemble(fronts, small, large, place, arena, held)
            self._factor(fronts, small, large, place, arena, held)
            self._keep_contributions(fronts, place, arena)
            return self._read_r(fronts, small, large, place, arena, held)
        finally:
            for b in held:
                b.give()
            if arena is not None:
                arena.drop()

    def _place(self, fronts, small, large, held):
        """({front: (buffer, first float, row stride)}, the small fronts' shared arena or None)."""
        place, arena = {}, None
        if small:
            sizes = np.array([fronts[i].m * fronts[i].n for i in small], np.int64)
            starts = np.concatenate([[0], np.cumsum(sizes)])
            abuf = self.ctx.buffers.take(1, max(int(starts[-1]), 1), "small fronts", ld=max(int(starts[-1]), 1))
            arena = _Arena(abuf)
            arena.users = 1                                  # this round, until R is read
            for i, o in zip(small, starts[:-1]):
                place[i] = (abuf, int(o), fronts[i].n)
        try:
            for i in large:
                F = take(self.ctx, fronts[i].m, fronts[i].n, "a front")
                held.append(F)
                place[i] = (F, 0, F.ld)
        except BaseException:
            if arena is not None:                        # round()'s finally has no arena yet
                arena.drop()
            raise
        return place, arena

    def _assemble(self, fronts, small, large, place, arena, held):
        """A's entries (absolute positions) and the children's maps, one upload each; then
        every front zeroed, its entries scattered and its children's blocks gathered."""
        ctx = self.ctx
        ents, maps, moffs, at = [], [], {}, 0
        for i, fr in enumerate(fronts):
            buf, o, ld = place[i]
            e = np.empty((fr.rows.shape[0], 2), np.int32)
            e[:, 0] = o + fr.rows * ld + fr.cols
            e[:, 1] = (fr.vals * fr.scale).astype(np.float32).view(np.int32)
            ents.append(e)
            moffs[i] = []
            for _c, prow, pcol in fr.children:
                moffs[i].append(at)
                maps += [prow, pcol]
                at += prow.shape[0] + pcol.shape[0]
        E = _ints(ctx, np.concatenate(ents).ravel() if ents else np.zeros(0, np.int32), "front entries")
        held.append(E)
        Mp = _ints(ctx, np.concatenate(maps) if maps else np.zeros(0, np.int32), "assembly maps")
        held.append(Mp)
        lens = [e.shape[0] for e in ents]
        eoff = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        if small:
            fill(ctx, arena.buf, 0.0)
            lo, hi = self._scatter_range(small, eoff)
            for a, b in zip(lo, hi):
                self._scatter(arena.buf, E, a, b - a)
        for i in large:
            fill(ctx, place[i][0], 0.0)
            self._scatter(place[i][0], E, int(eoff[i]), lens[i])
        for i, fr in enumerate(fronts):
            buf, o, ld = place[i]
            for (c, _prow, _pcol), mo in zip(fr.children, moffs[i]):
                self._gather(c, buf, o, ld, Mp, mo, fr.scale)

    def _factor(self, fronts, small, large, place, arena, held):
        """The small fronts in one dispatch (front_qr_small), the large ones by the dense QR."""
        ctx = self.ctx
        if small:
            tab = np.array([[place[i][1], fronts[i].m, fronts[i].n] for i in small], np.int32)
            T = _ints(ctx, tab.ravel(), "small fronts' table")
            held.append(T)
            ctx.kernels.dispatch("front_qr_small", (len(small), 1, 1), buffers={0: arena.buf.buf, 1: T.buf},
                                 defines={"SMALL": max(SMALL, 1)},
                                 work=int(sum(fronts[i].m * fronts[i].n ** 2 for i in small)) // 4096)
        for i in large:
            fr = fronts[i]
            tau, T_ = factor_buffer(ctx, place[i][0], fr.m, fr.n, fr.leftmost)
            tau.give()
            T_.give()

    def _keep_contributions(self, fronts, place, arena):
        """Each front's contribution block kept for its parent: a small front's stays in the
        arena (one more user of it), a large one's is copied out of the front."""
        arena_buf = arena.buf if arena is not None else None
        for i, fr in enumerate(fronts):
            k, fp, nr = fr.cm, fr.fp, fr.fr
            if not k:
                continue
            buf, o, ld = place[i]
            if buf is not arena_buf:
                C = take(self.ctx, k, fr.n - fp, "a contribution block")
                self._copy(buf, nr * ld + fp, C, 0, k, C.cols, C.ld)
                self.blocks[fr.f] = [C, 0, C.ld, k, C.cols, fr.scale]
            else:
                arena.users += 1
                self.blocks[fr.f] = [arena, o + nr * ld + fp, ld, k, fr.n - fp, fr.scale]

    def _read_r(self, fronts, small, large, place, arena, held) -> list:
        """R's rows: the large fronts' copied into one buffer, the arena read whole; unscaled."""
        ctx, out = self.ctx, [None] * len(fronts)
        rsz = [fronts[i].fr * fronts[i].n for i in large]
        roff = np.concatenate([[0], np.cumsum(rsz)]).astype(np.int64)
        if large and roff[-1]:
            Rall = ctx.buffers.take(1, int(roff[-1]), "R's rows", ld=int(roff[-1]))
            held.append(Rall)
            for i, o in zip(large, roff):
                if fronts[i].fr:
                    self._copy(place[i][0], 0, Rall, int(o), fronts[i].fr, fronts[i].n, fronts[i].n)
                place[i][0].give()                      # the front itself is done with
            flat = download(ctx, Rall)[0]
            for i, o, size in zip(large, roff, rsz):
                out[i] = flat[o:o + size].reshape(fronts[i].fr, fronts[i].n)
        if small:
            whole = download(ctx, arena.buf)[0]
            for i in small:
                o, fr = place[i][1], fronts[i]
                out[i] = whole[o:o + fr.m * fr.n].reshape(fr.m, fr.n)[:fr.fr]
        for i, fr in enumerate(fronts):
            if out[i] is None:
                out[i] = np.zeros((0, fr.n), np.float32)
            elif fr.scale != 1.0:
                out[i] = out[i] * np.float32(1.0 / fr.scale)
        return out

    @staticmethod
    def _scatter_range(idx, eoff):
        """Runs of consecutive fronts' entries (one scatter per run)."""
        lo, hi = [], []
        for i in idx:
            if hi and hi[-1] == eoff[i]:
                hi[-1] = int(eoff[i + 1])
            else:
                lo.append(int(eoff[i]))
                hi.append(int(eoff[i + 1]))
        return lo, hi

    def _scatter(self, buf, E, first: int, count: int) -> None:
        if count:
            self.ctx.kernels.dispatch("front_scatter", (-(-count // 256), 1, 1), buffers={0: buf.buf, 1: E.buf},
                                      uniforms={"u_off": first, "u_count": count})

    def _gather(self, c, buf, doff: int, ldd: int, Mp, mo: int, scale: float) -> None:
        """Child c's block into the front at (buf, doff, ldd) through the maps at mo."""
        ctx = self.ctx
        src, soff, lds, k, cols, cscale = self.blocks.pop(c)
        if isinstance(src, np.ndarray):                     # pulled at a stage's end: sent again
            src = upload(ctx, src, "a contribution block")
            soff, lds = 0, src.ld
        sbuf = src.buf if isinstance(src, _Arena) else src
        try:
            ctx.kernels.dispatch("front_gather", (-(-cols // 16), -(-k // 16)),
                                 buffers={0: sbuf.buf, 1: buf.buf, 2: Mp.buf},
                                 uniforms={"u_rows": k, "u_cols": cols, "u_soff": soff, "u_lds": lds,
                                           "u_ldd": ldd, "u_moff": mo, "u_doff": doff, "u_factor": scale / cscale})
        finally:
            src.drop() if isinstance(src, _Arena) else src.give()

    def _copy(self, src, soff: int, dst, doff: int, rows: int, cols: int, ldd: int) -> None:
        """rows x cols of src from float soff on, upper triangle only, to dst at doff."""
        self.ctx.kernels.dispatch("front_gather", (-(-cols // 16), -(-rows // 16)), buffers={0: src.buf, 1: dst.buf},
                                  defines={"IDENTITY": 1},
                                  uniforms={"u_rows": rows, "u_cols": cols, "u_soff": soff, "u_lds": src.ld,
                                            "u_ldd": ldd, "u_moff": 0, "u_doff": doff, "u_factor": 1.0})

    def pull(self) -> None:
        """Every waiting block to the host (a stage ends; its parents come later)."""
        whole = {}
        for blk in self.blocks.values():
            if not isinstance(blk[0], np.ndarray):
                self._pull_one(blk, whole)

    def _pull_one(self, blk, whole) -> None:
        """One waiting block to the host (whole: the arenas already read)."""
        src, soff, lds, k, cols = blk[:5]
        if isinstance(src, _Arena):
            if id(src) not in whole:
                whole[id(src)] = download(self.ctx, src.buf)[0]
            flat = whole[id(src)]
            host = np.stack([flat[soff + r * lds:soff + r * lds + cols] for r in range(k)]) if k else \
                np.zeros((0, cols), np.float32)
            src.drop()
        else:
            host = download(self.ctx, src)
            src.give()
        blk[:3] = [np.triu(host), 0, cols]

    def fetch(self, c: int) -> np.ndarray:
        """Front c's contribution block, taken from the store to the host: unscaled,
        its upper triangle (for a parent the host assembles)."""
        if not isinstance(self.blocks[c][0], np.ndarray):
            self._pull_one(self.blocks[c], {})
        host, _, _, _, _, scale = self.blocks.pop(c)
        return host * np.float32(1.0 / scale)

    def put(self, f: int, block: np.ndarray, scale: float) -> None:
        """Front f's contribution block from the host (unscaled), to wait for its parent."""
        b = np.triu(block * np.float32(scale)).astype(np.float32)
        self.blocks[f] = [b, 0, b.shape[1], b.shape[0], b.shape[1], scale]

    def release(self) -> None:
        for blk in self.blocks.values():
            if isinstance(blk[0], _Arena):
                blk[0].drop()
            elif not isinstance(blk[0], np.ndarray):
                blk[0].give()
        self.blocks.clear()
