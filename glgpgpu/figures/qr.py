"""Vertex tables of Householder QR by drawing), no GL.

Matrices ("fronts", as Yeralan et al. (2015) calls the dense blocks of a multifrontal
factorization) lie side by side in one texture atlas: front f occupies columns
ox .. ox + n - 1 and rows 0 .. m - 1.  Every rectangle of a QR draw carries its
front's (ox, m, n) as the attached coordinate T0, constant over the rectangle,
so a fragment knows which front it belongs to and where that front starts.
One draw with one rectangle per front factors all fronts at once; a single
matrix is the one-front atlas (no second code path).

Per column k there are four draws (paper/qr.py):
  dots   PART(c, j) = sum_{i > k, i in chunk c} A(i, k) A(i, j), j >= k   (reduction, stage 1)
  sum    G(j) = sum_c PART(c, j)                                           (reduction, stage 2)
  house  HH(k) = (beta, tau, 1 / (alpha - beta)) from alpha = A(k, k), sigma = G(k)
  update the reflection of the trailing columns and column k (v, beta); columns
         left of k are copied (column k - 1 only: see `update_rect`)
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .vertices import Geometry, rectangle, rectangles, rectangles_subset

#: rows summed by one fragment of the first reduction stage
CHUNK = 64


@dataclass(frozen=True)
class Front:
    """One matrix of the atlas: x offset and shape."""

    ox: int
    m: int
    n: int

    @property
    def steps(self) -> int:
        """Householder reflections: one per column, and none past the last row."""
        return min(self.m, self.n)

    def chunks(self, chunk: int = CHUNK) -> int:
        return -(-self.m // chunk)


def place(shapes, max_width: int) -> list:
    """Atlases for `shapes` [(m, n), ...]: fronts left to right, a new atlas when
    the next one would pass `max_width` columns.  Returns [[(index, Front), ...], ...]."""
    atlases, cur, x = [], [], 0
    for idx, (m, n) in enumerate(shapes):
        if n > max_width:
            raise ValueError(f"matrix {idx} has {n} columns, more than the texture limit {max_width}")
        if x + n > max_width and cur:
            atlases.append(cur)
            cur, x = [], 0
        cur.append((idx, Front(x, int(m), int(n))))
        x += n
    if cur:
        atlases.append(cur)
    return atlases


def _front_rect(f: Front, x0, y0, x1, y1, label) -> Geometry:
    return rectangle(f.ox + x0, y0, f.ox + x1, y1, t0=(f.ox, f.m, f.n), label=label, names=("T0",))


def dots_rect(f: Front, k: int, chunk: int = CHUNK) -> Geometry | None:
    """Chunks that hold rows below k, columns k .. n - 1."""
    c0 = (k + 1) // chunk
    c1 = f.chunks(chunk)
    if c0 >= c1:
        return None          # no row below k: sigma = 0, nothing to sum
    return _front_rect(f, k, c0, f.n, c1, f"column dots, step {k}")


def sum_rect(f: Front, k: int) -> Geometry:
    return _front_rect(f, k, 0, f.n, 1, f"sum of chunks, step {k}")


def house_rect(f: Front, k: int) -> Geometry:
    return _front_rect(f, k, 0, k + 1, 1, f"Householder scalars, step {k}")


def update_rect(f: Front, k: int) -> Geometry:
    """Columns k - 1 .. n - 1, all rows.  Column k - 1 is final; drawing it copies
    it into the target, which (ping-pong) last held the matrix two steps ago, so
    the target ends every step complete without copying all finished columns."""
    return _front_rect(f, max(k - 1, 0), 0, f.n, f.m, f"reflection, step {k}")


def atlas_table(fronts) -> tuple:
    """The atlas's fronts as arrays (ox, m, n), for building a step's rectangles for
    all of them at once (step_geometries)."""
    return tuple(np.array([getattr(f, a) for f in fronts], np.int64).reshape(-1) for a in ("ox", "m", "n"))


def step_geometries(fronts, k: int, chunk: int = CHUNK, table=None):
    """(dots, sum, house, update) for step k over the fronts still active, or None
    when no front has a step k.  dots may be None (no rows below k anywhere).  The
    same tables as dots_rect, sum_rect, house_rect and update_rect front by front,
    joined in order, built in one pass (table: atlas_table(fronts), made when None)."""
    ox, m, n = atlas_table(fronts) if table is None else table
    sel = np.flatnonzero(np.minimum(m, n) > k)
    if not sel.size:
        return None
    o, mm, nn = ox[sel], m[sel], n[sel]
    t0 = np.stack([o, mm, nn], 1)
    z, one, ks = np.zeros((sel.size, 3)), np.ones(sel.size), np.full(sel.size, k)

    def rects(keep, x0, y0, x1, y1, label):
        return rectangles(x0[keep], y0[keep], x1[keep], y1[keep], t0[keep], t0[keep], z[keep], label, ("T0",))
    c0, c1 = np.full(sel.size, (k + 1) // chunk), -(-mm // chunk)
    has = c1 > c0                                  # chunks holding rows below k
    every = np.ones(sel.size, bool)
    return (rects(has, o + k, c0, o + nn, c1, f"column dots, step {k}") if has.any() else None,
            rects(every, o + k, 0 * one, o + nn, one, f"sum of chunks, step {k}"),
            rects(every, o + k, 0 * one, o + ks + 1, one, f"Householder scalars, step {k}"),
            rects(every, o + max(k - 1, 0), 0 * one, o + nn, mm, f"reflection, step {k}"))


def apply_geometries(m: int, p: int, s: int, chunk: int = CHUNK):
    """Applying s reflectors to all p columns of an m x p block B: per k the dots
    (None when no row lies below k), their sum and the reflection (rows >= k
    change, the rest is copied)."""
    f = Front(0, m, p)
    out = []
    for k in range(s):
        c0, c1 = (k + 1) // chunk, f.chunks(chunk)
        dots = _front_rect(f, 0, c0, p, c1, f"dots with v_{k}") if c0 < c1 else None
        out.append((dots, _front_rect(f, 0, 0, p, 1, f"sum of chunks, H_{k}"),
                    _front_rect(f, 0, 0, p, m, f"apply H_{k}")))
    return out


# -- the blocked path's atlas (blocked/qr.py): fronts side by side, whole RGBA texels --------

#: the blocked QR's attached coordinates: T0 = (ox, m, chunk), T1 = (f, bw, 0)
BLOCKED_NAMES = ("T0", "T1")


@dataclass(frozen=True)
class BlockedFront:
    """One matrix of the blocked QR's atlas.  ox: its first texel column (4 matrix
    columns a texel; A and C alike); f: its slot in the scratch textures (panel
    textures NB/4 texels a slot, YZ and TT NB texels); chunk: its rows per fragment
    in the chunked reductions.  reach: for a front with a staircase (rows sorted by
    their leftmost nonzero), the rows each panel works on -- below them its columns
    are zero, and so are its reflectors' entries and their updates (empty: all m)."""

    ox: int
    m: int
    n: int
    f: int
    chunk: int
    reach: tuple = ()

    def at(self, kb: int, nb: int) -> "BlockedFront":
        """The front as panel kb sees it: m cut to the rows the panel reaches."""
        p = kb // nb
        return replace(self, m=self.reach[p], reach=()) if p < len(self.reach) else self

    @property
    def steps(self) -> int:
        return min(self.m, self.n)

    @property
    def texels(self) -> int:
        return -(-self.n // 4)

    def chunks(self) -> int:
        return -(-self.m // self.chunk)

    def bw(self, kb: int, nb: int) -> int:
        """The width of its panel at kb (0 once its reflectors are all made)."""
        return max(0, min(nb, self.steps - kb))


def place_blocked(shapes, limit: int, nb: int, chunk_for) -> list:
    """Atlases for the blocked QR of `shapes` [(m, n), ...]: fronts left to right in
    whole texels, a new atlas when the next would pass the texture limit (A's texels,
    or NB columns a front in YZ and TT).  Returns [[(index, BlockedFront), ...], ...]."""
    atlases, cur, ox = [], [], 0
    for idx, (m, n) in enumerate(shapes):
        w = -(-n // 4)
        if w > limit or -(-min(m, n) // nb) * nb > limit or m > limit:
            raise ValueError(f"matrix {idx} ({m} x {n}) does not fit a {limit}-texel texture")
        if cur and (ox + w > limit or (len(cur) + 1) * nb > limit):
            atlases.append(cur)
            cur, ox = [], 0
        cur.append((idx, BlockedFront(ox, int(m), int(n), len(cur), chunk_for(m))))
        ox += w
    if cur:
        atlases.append(cur)
    return atlases


def front_table(fronts, nb: int):
    """The atlas's fronts as arrays (the blocked draws' rectangles are built for all
    fronts at once): ox, m, n, chunk, f, steps, texels, and reach[f, p] -- the rows
    panel p works on (m where the front has no staircase)."""
    ox, m, n, chunk, f = (np.array([getattr(fr, a) for fr in fronts], np.int64) for a in ("ox", "m", "n", "chunk", "f"))
    panels = max(-(-min(int(a), int(b)) // nb) for a, b in zip(m, n)) if len(fronts) else 0
    reach = np.repeat(m[:, None], max(panels, 1), axis=1)
    for i, fr in enumerate(fronts):
        if fr.reach:
            reach[i, :len(fr.reach)] = fr.reach
    return ox, m, n, chunk, f, np.minimum(m, n), -(-n // 4), reach


def _brects(T, sel, kb: int, nb: int, x0, y0, x1, y1, bw, label) -> Geometry:
    """One rectangle per selected front, T0 = (ox, m at panel kb, chunk), T1 = (f, bw, 0)."""
    ox, _, _, chunk, f, _, _, reach = T
    t0 = np.stack([ox[sel], reach[sel, kb // nb], chunk[sel]], 1)
    t1 = np.stack([f[sel], bw, np.zeros(bw.shape[0])], 1)
    return rectangles(x0, y0, x1, y1, t0, t0, t1, label, BLOCKED_NAMES)


def _panel(fronts, kb: int, nb: int, table):
    """The table (front_table(fronts, nb), made here when None), and each front's
    panel width at kb (0 once its reflectors are made)."""
    T = front_table(fronts, nb) if table is None else table
    return T, np.clip(T[5] - kb, 0, nb)


def blocked_panel_columns(fronts, kb: int, nb: int, table=None) -> list:
    """Every column kl of the panels at kb, built at once: [(dots_reflect on the panel
    slots x chunks grid, house on the YZ grid) for kl in range(widest panel)].  A column's
    rectangles are the panel's first column's, of the fronts still wider than kl, house
    moved down to row kl."""
    T, bw = _panel(fronts, kb, nb, table)
    sel = np.flatnonzero(bw > 0)
    if not sel.size:
        return []
    nbq, b, f, chunk = nb // 4, bw[sel], T[4][sel], T[3][sel]
    chunks = -(-T[7][sel, kb // nb] // chunk)
    dr = _brects(T, sel, kb, nb, f * nbq, kb // chunk, f * nbq + -(-b // 4), chunks, b, "")
    house = _brects(T, sel, kb, nb, f * nb, np.zeros(sel.size), f * nb + b, np.ones(sel.size), b, "")
    out = []
    for kl in range(int(b.max())):
        keep = np.flatnonzero(b > kl)
        out.append((rectangles_subset(dr, keep, f"dots + reflection, column {kb + kl}"),
                    rectangles_subset(house, keep, f"house, column {kb + kl}", dy=kl)))
    return out


def blocked_column_rects(fronts, kb: int, kl: int, nb: int, table=None):
    """Column kb + kl of every front whose panel at kb is wider than kl (one column of
    blocked_panel_columns), or None."""
    cols = blocked_panel_columns(fronts, kb, nb, table)
    return cols[kl] if kl < len(cols) else None


def blocked_panel_end_rects(fronts, kb: int, nb: int, table=None):
    """The end of panel kb: (store into A's texels, T into TT: the front's NB columns,
    rows kb .. kb + bw) for every front with a panel there."""
    T, bw = _panel(fronts, kb, nb, table)
    sel = np.flatnonzero(bw > 0)
    if not sel.size:
        return None
    b, f, ox = bw[sel], T[4][sel], T[0][sel]
    kbs = np.full(sel.size, kb)
    store = _brects(T, sel, kb, nb, ox + kb // 4, kbs, ox + kb // 4 + -(-b // 4), T[7][sel, kb // nb], b,
                    f"panel store, {kb}")
    tri = _brects(T, sel, kb, nb, f * nb, kbs, f * nb + b, kb + b, b, f"T, {kb}")
    return store, tri


def blocked_apply_rects(fronts, kb: int, nb: int, *, c_texels: int | None = None, table=None):
    """The Apply of panel kb to the columns right of it -- or, with c_texels (one front:
    Q C / Q^T C), to all c_texels texels of another matrix C: (V^T C by chunks, the sum
    and T^T W1 on the NB x texels grid, C -= V W2 on the rows / 4 x texels grid), or
    None when no front has columns left to update."""
    T, bw = _panel(fronts, kb, nb, table)
    ox, _, n, chunk, _, _, texels, reach = T
    keep = bw > 0 if c_texels is not None else (bw > 0) & (kb + bw < n)
    sel = np.flatnonzero(keep)
    if not sel.size:
        return None
    b, o = bw[sel], ox[sel]
    q0 = o if c_texels else o + ((kb + b) >> 2)
    q1 = o + (c_texels if c_texels else texels[sel])
    mr = reach[sel, kb // nb]
    z = np.zeros(sel.size)
    return (_brects(T, sel, kb, nb, q0, z, q1, -(-mr // chunk[sel]) * nb // 4, b, "V^T C"),
            _brects(T, sel, kb, nb, q0, z, q1, np.full(sel.size, nb), b, "W sums"),
            _brects(T, sel, kb, nb, q0, z, q1, -(-(mr - kb) // 4), b, "C -= V W"))
