"""The bucket scheduler of Yeralan, Davis, Sid-Lakhdar and Ranka (2015) (section 3.1, Figs. 6-8): which row tiles of a dense
front are factored together in each kernel launch.  Pure host logic, no GL.

A front of m x n is cut into tiles (32 x 32 in the paper); a row tile is one tile
row, and its leftmost column tile is its first nonzero one.  Row tile i sits in
column bucket j = its leftmost column tile.  The factorization is done when every
bucket holds exactly one row tile, upper triangular in that column tile (the rest
of the rows have moved right past the last bucket: zero).  Each launch:

  1. every row tile of a bucket that no task of this launch touches joins a new
     *bundle* of at most `bundle` row tiles (the paper's shared memory holds 3 on a
     C2070) -- a triangular tile on top -- and the bundle gets a Factorize task:
     block Householder QR of the bundle's column tile j, which leaves the top row
     tile triangular there and zeroes the others' (they advance to bucket j + 1);
  2. a bundle factored in the previous launch gets its Apply task: the block
     reflector applied to the bundle's column tiles right of j.
With pipelining (Fig. 8) the Apply and the next Factorize of the advancing rows
run as one Apply/Factorize task, and an idle row tile of bucket j + 1 may join
that bundle ("bundle growth": its column tile j + 1 is final, so it can be
factored while another task of the same launch updates its columns right of it).
A tile is in at most one Factorize per launch, and a launch's tasks never write
what another of its tasks reads: they can run in any order, all at once -- one
draw (or one draw sequence) per launch on the GPU.

`schedule` returns the launches as lists of `Task`s; `merge` interleaves the
schedules of many fronts launch by launch (the paper's many fronts per launch,
Fig. 5).  For the paper's 256 x 160 example with two zero row tiles it gives Fig. 8's
7 pipelined launches; without pipelining 11 (the paper's Fig. 7 shows 12: the
figure's bundling choices are not in its text).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    """One task of a launch.  kind "factorize": QR of the column tile `col` of the
    bundle `rows` (top row tile first); "apply": the reflector of that factorization
    (made in the previous launch) applied to the bundle's column tiles right of
    `col`; "apply_factorize": the apply, then "factorize" of `next_rows` at col + 1
    (the advancing rows, plus any grown delta) in the same task."""

    kind: str
    rows: tuple
    col: int
    next_rows: tuple = ()
    front: int = 0

    def factorized(self):
        """(rows, column tile) this task factors, or None."""
        if self.kind == "factorize":
            return self.rows, self.col
        if self.kind == "apply_factorize":
            return self.next_rows, self.col + 1
        return None


def tile_counts(m: int, n: int, tile: int = 32) -> tuple:
    """Row and column tiles of an m x n front."""
    return -(-m // tile), -(-n // tile)


def schedule(row_tiles: int, col_tiles: int, *, leftmost=None, bundle: int = 3, pipeline: bool = True,
             front: int = 0) -> list:
    """The launches (lists of Tasks) that factor a front of row_tiles x col_tiles tiles.
    leftmost: each row tile's first nonzero column tile (a staircase; default 0 for all;
    col_tiles for an all-zero row tile).  bundle: row tiles per bundle (>= 2; None: no
    limit, all of a bucket's free tiles at once -- the panel algorithm)."""
    M, N = row_tiles, col_tiles
    B = bundle or max(M, 2)
    if B < 2:
        raise ValueError(f"a bundle holds at least 2 row tiles, not {bundle}")
    col = list(leftmost) if leftmost is not None else [0] * M
    if len(col) != M or any(not 0 <= c <= N for c in col):
        raise ValueError(f"leftmost needs {M} column tiles in 0..{N}, got {col}")
    tri = [False] * M
    pending = []                                   # (rows, j) factored in the last launch
    launches = []
    order = lambda r: (not tri[r], r)              # noqa: E731 -- a triangular tile goes on top
    while True:
        tasks, claimed, grown = [], set(), {}
        for rows, j in pending:                    # the advancing rows: not free this launch
            adv = [r for r in rows[1:] if col[r] < N]
            claimed.update(adv)
            if pipeline and adv:
                grown[rows] = adv
        if pipeline:                               # bundle growth by idle tiles of bucket j + 1
            for rows, j in pending:
                nxt = grown.get(rows)
                if nxt is not None and len(nxt) < B:
                    idle = sorted((r for r in range(M) if col[r] == j + 1 and r not in claimed), key=order)
                    for r in idle[:B - len(nxt)]:
                        nxt.append(r)
                        claimed.add(r)
        for rows, j in pending:
            if rows in grown:
                tasks.append(Task("apply_factorize", rows, j, tuple(sorted(grown[rows], key=order)), front))
            elif j + 1 < N:
                tasks.append(Task("apply", rows, j, (), front))
        for j in range(N):                         # new bundles from each bucket's free tiles
            free = sorted((r for r in range(M) if col[r] == j and r not in claimed), key=order)
            for b0 in range(0, len(free), B):
                b = tuple(free[b0:b0 + B])
                if len(b) == 1 and tri[b[0]]:
                    continue                       # the bucket's finished triangle
                tasks.append(Task("factorize", b, j, (), front))
                claimed.update(b)
        if not tasks:
            return launches
        launches.append(tasks)
        pending = []
        for t in tasks:                            # advance: top triangular, the rest one bucket right
            f = t.factorized()
            if f is None:
                continue
            rows, j = f
            tri[rows[0]] = True
            for r in rows[1:]:
                col[r], tri[r] = j + 1, False
            pending.append((rows, j))


def merge(schedules: list) -> list:
    """Many fronts' launches side by side: launch k holds every front's k-th launch
    (their tasks are independent: different fronts)."""
    out = []
    for k in range(max((len(s) for s in schedules), default=0)):
        out.append([t for s in schedules if k < len(s) for t in s[k]])
    return out


def final_rows(row_tiles: int, col_tiles: int, launches: list) -> list:
    """Which row tile holds R's block row j (j < min(row_tiles, col_tiles)) once the
    launches ran: the top tile of the last factorization at column tile j (None for
    a column tile no row reaches: a staircase with an empty bucket)."""
    top = {}
    for tasks in launches:
        for t in tasks:
            f = t.factorized()
            if f is not None:
                top[f[1]] = f[0][0]
    return [top.get(j) for j in range(min(row_tiles, col_tiles))]
