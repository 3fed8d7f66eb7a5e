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


class FrontStore:
    """The fronts of one factorization; `release()` gives back whatever is left."""

    def __init__(self, ctx):
        require(ctx)
        self.ctx = ctx
        self.blocks = {}           # front -> [buffer or host array, rows, cols, scale]

    def row_limit(self, n: int) -> int | None:
        """The most rows an n-column front can have here (one storage block)."""
        lim = self.ctx.caps.max_storage_block
        return lim // (4 * (-(-n // 4) * 4)) if lim else None

    def round(self, fronts: list) -> list:
        """Assemble and factor each front of a round; returns each one's R rows (fr x n,
        float32, unscaled).  A front is a dict: m, n, scale, rows / cols / vals (its
        own entries of A, unscaled), children [(child, prow, pcol)] with prow[r] the
        parent row of the child block's row r and pcol its columns' parent columns,
        leftmost (the staircase or None), fr (pivot rows), fp (pivot columns), cm
        (contribution rows)."""
        ctx = self.ctx
        held = []
        try:
            ents = []
            offs = [0]
            for fr in fronts:
                e = np.empty((fr["rows"].shape[0], 2), np.int32)
                ents.append(e)
                offs.append(offs[-1] + e.shape[0])
            bufs = [take(ctx, fr["m"], fr["n"], "a front") for fr in fronts]
            held += bufs
            maps, moffs = [], []
            at = 0
            for fr, F, e in zip(fronts, bufs, ents):
                e[:, 0] = fr["rows"] * F.ld + fr["cols"]
                e[:, 1] = (fr["vals"] * fr["scale"]).astype(np.float32).view(np.int32)
                mo = []
                for _c, prow, pcol in fr["children"]:
                    mo.append(at)
                    maps += [prow, pcol]
                    at += prow.shape[0] + pcol.shape[0]
                moffs.append(mo)
            E = _ints(ctx, np.concatenate(ents).ravel() if ents else np.zeros(0, np.int32), "front entries")
            held.append(E)
            Mp = _ints(ctx, np.concatenate(maps) if maps else np.zeros(0, np.int32), "assembly maps")
            held.append(Mp)
            for i, (fr, F) in enumerate(zip(fronts, bufs)):
                self._assemble(fr, F, E, offs[i], Mp, moffs[i])
                tau, T = factor_buffer(ctx, F, fr["m"], fr["n"], fr["leftmost"])
                tau.give()
                T.give()
            sizes = [fr["fr"] * fr["n"] for fr in fronts]
            offs = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
            Rall = ctx.buffers.take(1, max(int(offs[-1]), 1), "R's rows", ld=max(int(offs[-1]), 1))
            held.append(Rall)
            for fr, F, off in zip(fronts, bufs, offs):
                k, fp, nr, n = fr["cm"], fr["fp"], fr["fr"], fr["n"]
                if k:
                    C = take(ctx, k, n - fp, "a contribution block")
                    self._copy(F, nr * F.ld + fp, C, 0, k, C.cols, C.ld)
                    self.blocks[fr["f"]] = [C, k, C.cols, fr["scale"]]
                if nr:
                    self._copy(F, 0, Rall, int(off), nr, n, n)
                F.give()
            flat = download(ctx, Rall)[0] if offs[-1] else np.zeros(0, np.float32)
            out = []
            for fr, off in zip(fronts, offs):
                R = flat[off:off + fr["fr"] * fr["n"]].reshape(fr["fr"], fr["n"])
                if fr["scale"] != 1.0:
                    R = R * np.float32(1.0 / fr["scale"])
                out.append(R)
            return out
        finally:
            for b in held:
                b.give()

    def _copy(self, src, soff: int, dst, doff: int, rows: int, cols: int, ldd: int) -> None:
        """rows x cols of src from float soff on, upper triangle only, to dst at doff."""
        self.ctx.kernels.dispatch("front_gather", (-(-cols // 16), -(-rows // 16)), buffers={0: src.buf, 1: dst.buf},
                                  defines={"IDENTITY": 1},
                                  uniforms={"u_rows": rows, "u_cols": cols, "u_soff": soff, "u_lds": src.ld,
                                            "u_ldd": ldd, "u_moff": 0, "u_doff": doff, "u_factor": 1.0})

    def _assemble(self, fr, F, E, off, Mp, moffs) -> None:
        ctx = self.ctx
        fill(ctx, F, 0.0)
        count = fr["rows"].shape[0]
        if count:
            ctx.kernels.dispatch("front_scatter", (-(-count // 256), 1, 1), buffers={0: F.buf, 1: E.buf},
                                 uniforms={"u_off": off, "u_count": count})
        for (c, prow, pcol), mo in zip(fr["children"], moffs):
            blk = self.blocks.pop(c)
            C, k, cols, scale = blk
            if isinstance(C, np.ndarray):                   # pulled at a stage's end: sent again
                C = upload(ctx, C, "a contribution block")
            try:
                ctx.kernels.dispatch("front_gather", (-(-cols // 16), -(-k // 16)),
                                     buffers={0: C.buf, 1: F.buf, 2: Mp.buf},
                                     uniforms={"u_rows": k, "u_cols": cols, "u_soff": 0, "u_lds": C.ld,
                                               "u_ldd": F.ld, "u_moff": mo, "u_doff": 0,
                                               "u_factor": fr["scale"] / scale})
            finally:
                C.give()

    def pull(self) -> None:
        """Every waiting block to the host (a stage ends; its parents come later)."""
        for blk in self.blocks.values():
            if not isinstance(blk[0], np.ndarray):
                buf = blk[0]
                blk[0] = download(self.ctx, buf)
                buf.give()

    def release(self) -> None:
        for blk in self.blocks.values():
            if not isinstance(blk[0], np.ndarray):
                blk[0].give()
        self.blocks.clear()
