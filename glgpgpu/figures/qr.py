"""Vertex tables of Householder QR by drawing (issue 16), no GL.

Matrices ("fronts", as seed 004 calls the dense blocks of a multifrontal
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

from dataclasses import dataclass

from .vertices import Geometry, rectangle

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


def _union(parts, label) -> Geometry | None:
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    g = parts[0]
    for p in parts[1:]:
        g = g + p
    g.label = label
    return g


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


def step_geometries(fronts, k: int, chunk: int = CHUNK):
    """(dots, sum, house, update) for step k over the fronts still active, or None
    when no front has a step k.  dots may be None (no rows below k anywhere)."""
    act = [f for f in fronts if k < f.steps]
    if not act:
        return None
    return (_union([dots_rect(f, k, chunk) for f in act], f"column dots, step {k}"),
            _union([sum_rect(f, k) for f in act], f"sum of chunks, step {k}"),
            _union([house_rect(f, k) for f in act], f"Householder scalars, step {k}"),
            _union([update_rect(f, k) for f in act], f"reflection, step {k}"))


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
