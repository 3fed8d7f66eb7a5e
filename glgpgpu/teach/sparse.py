"""Pictures of the sparse multifrontal QR (Yeralan, Davis, Sid-Lakhdar, Ranka 2015),
for the demo page: the tree of fronts coloured by the round each is factored in, one
front's staircase (section 2.1.1, Fig. 4: its rows sorted by leftmost column, the
part a panel skips), the draws that assemble that front (section 3.3.1: a point per
entry of A, a rectangle per run of rows a child's block fills), and the rectangles
one draw covers across the fronts of a round in their shared atlas (section 3: many
fronts per launch).  No GL: everything comes from the symbolic analysis (symbolic/)
and the vertex tables of the draws (figures/qr.py, figures/fronts.py), the same
ones the GPU path uses."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import scipy.sparse as sp

from ..figures import fronts as drawn
from ..figures.qr import place, update_rect
from ..symbolic import analyze, block_rows, colamd_available, depths, front_rounds, own_entries

__all__ = ["assembly", "depths", "launch", "write"]


def launch(an, fronts, step: int, max_width: int = 1 << 14):
    """(atlas, rectangles): the fronts of one round placed side by side as
    figures.qr.place does, and the rectangles one reflection draw covers at `step`
    -- one per front that still has that step, [(x0, y0, x1, y1, front), ...]."""
    atlas = place([(int(an.fm[f]), int(an.fn[f])) for f in fronts], max_width)[0]
    rects = []
    for idx, fr in atlas:
        if step < fr.steps:
            g = update_rect(fr, step)
            xs, ys = g.corners[:, 0], g.corners[:, 1]
            rects.append((float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()), int(fronts[idx])))
    return [(int(fronts[i]), fr) for i, fr in atlas], rects


def assembly(an, A, f: int) -> tuple:
    """(points, rectangles) of front f's assembly in one column a texel: the points of
    its rows of A (figures.fronts.entry_points, value 1), and the gather rectangles of
    its children's blocks (gather_rects; T0's third coordinate: which child, 0, 1, ...)."""
    rows, cols, _ = own_entries(an, f, sp.csr_matrix(A)[:, an.perm])
    points = drawn.entry_points(np.zeros(rows.size, np.int64), rows, cols, np.ones(rows.size), 1)
    pairs = [(i, 0, int(an.pattern[f].size), *block_rows(an, f, c), 0, 0, 0) for i, c in enumerate(an.children[f])]
    return points, drawn.gather_rects(pairs, 1)


def write(out: Path, A, title: str = "A") -> list:
    """The four pictures of the sparse QR of A (scipy.sparse) as PNGs in `out`;
    returns [(file name, caption), ...].  title: what A is, for the first picture.
    The columns in COLAMD's order, as sparse_qr orders them; in A's own where the
    system has no COLAMD (the caption says which)."""
    out.mkdir(parents=True, exist_ok=True)
    ordering = "colamd" if colamd_available() else "natural"
    an = analyze(A, ordering)
    rounds = front_rounds(an, np.arange(an.nfronts))
    rnd = np.zeros(an.nfronts, np.int64)
    for r, fs in enumerate(rounds):
        rnd[fs] = r
    # the front the staircase and assembly pictures show: the largest that has children and
    # rows of A and passes a contribution block on
    inner = [g for g in range(an.nfronts) if an.children[g] and an.parent[g] >= 0 and (an.sources[g] < 0).any()]
    f = max(inner or range(an.nfronts), key=lambda g: an.fm[g] * an.fn[g])
    return [_tree(out, an, rounds, rnd, title, ordering), _staircase(out, an, f), _assembled(out, an, A, f),
            _launch(out, an, rounds)]


def _tree(out, an, rounds, rnd, title, ordering) -> tuple:
    """The tree: x = postorder position, y = depth, size ~ front columns, colour = round."""
    from .plotting import colormap, subplots

    depth = depths(an)
    fig, ax = subplots(figsize=(9, 4.5))
    cmap = colormap("viridis", len(rounds))
    for f in range(an.nfronts):
        if an.parent[f] >= 0:
            ax.plot([f, an.parent[f]], [-depth[f], -depth[an.parent[f]]], color="#bbb", lw=0.6, zorder=1)
    sc = ax.scatter(np.arange(an.nfronts), -depth, s=8 + 4 * an.fn, c=rnd, cmap=cmap, zorder=2, edgecolors="k",
                    linewidths=0.3)
    fig.colorbar(sc, ax=ax, label="round (a front runs after its last child)")
    ax.set_xlabel("front (postorder)")
    ax.set_ylabel("depth")
    ax.set_title(f"{title}: {an.nfronts} fronts in {len(rounds)} rounds")
    fig.tight_layout()
    fig.savefig(out / "sparse-qr-tree.png", dpi=90)
    return ("sparse-qr-tree.png",
            f"The column elimination tree, grouped into {an.nfronts} fronts ({ordering} order, relaxed supernodes). "
            f"A front waits only for its own children: fronts of different subtrees and depths share a round, "
            f"{len(rounds)} rounds for a tree {int(depth.max()) + 1} deep.")


def _staircase(out, an, f) -> tuple:
    """One front's staircase: its rows by source (rows of A, each child's block), from the leftmost column."""
    from .plotting import subplots

    fm, fn, fp = int(an.fm[f]), int(an.fn[f]), int(an.fp[f])
    img = np.zeros((fm, fn))
    kids = {c: i + 1 for i, c in enumerate(an.children[f])}
    for r, (lo, src) in enumerate(zip(an.leftmost[f], an.sources[f])):
        img[r, lo:] = 1 + (kids[src] if src >= 0 else 0)
    fig, ax = subplots(figsize=(6, 6 * fm / max(fn, 1) if fm < 2 * fn else 8))
    ax.imshow(np.ma.masked_equal(img, 0), cmap="tab10", vmin=1, vmax=10, interpolation="nearest", aspect="equal")
    ax.axvline(fp - 0.5, color="red", ls="--", lw=1)
    ax.axhline(min(fm, fp) - 0.5, color="red", ls=":", lw=1)
    ax.set_title(f"front {f}: {fm} x {fn}, {fp} pivot columns (left of the dashed line);\n"
                 "below the dotted line: its contribution block, assembled into its parent", fontsize=10)
    ax.set_xlabel("column of the front")
    ax.set_ylabel("row (sorted by leftmost column)")
    fig.tight_layout()
    fig.savefig(out / "sparse-qr-staircase.png", dpi=90)
    return ("sparse-qr-staircase.png",
            f"Front {f}'s staircase (Fig. 4): blue rows are rows of A, the other colours the contribution blocks "
            f"of its {len(an.children[f])} children (colours repeat past nine), each row from its leftmost "
            "nonzero column. Blank cells are zeros a Householder panel never touches: the panel for column k "
            "stops at the last row that reaches k.")


def _assembled(out, an, A, f) -> tuple:
    """The same front assembled by drawing: points for its rows of A, a rectangle per run of block rows."""
    from matplotlib.patches import Rectangle

    from .plotting import colormap, subplots

    fm, fn = int(an.fm[f]), int(an.fn[f])
    points, rects = assembly(an, A, f)
    fig, ax = subplots(figsize=(6, 6 * fm / max(fn, 1) if fm < 2 * fn else 8))
    tab = colormap("tab10")
    if rects is not None:
        c = rects.corners.reshape(-1, 4, rects.corners.shape[1])
        for q in c:
            x0, y0, x1, y1 = q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()
            ax.add_patch(Rectangle((x0 - .5, y0 - .5), x1 - x0, y1 - y0, fc=tab((int(q[0, 4]) + 1) % 10), ec="k",
                                   lw=0.4, alpha=0.7))
    ax.scatter(points.corners[:, 0] - .5, points.corners[:, 1] - .5, s=6, c=[tab(0)], marker="s")
    ax.set_xlim(-.5, fn - .5)
    ax.set_ylim(fm - .5, -.5)
    nrect = 0 if rects is None else len(rects.corners) // 4
    ax.set_title(f"front {f} assembled by drawing: {len(points.corners)} points (rows of A),\n"
                 f"{nrect} rectangles (runs of rows from its children's blocks)", fontsize=10)
    ax.set_xlabel("column of the front")
    ax.set_ylabel("row")
    fig.tight_layout()
    fig.savefig(out / "sparse-qr-assembly.png", dpi=90)
    return ("sparse-qr-assembly.png",
            f"Front {f} assembled on the GPU (section 3.3.1): each nonzero of its rows of A is one point, added "
            f"into the cleared front; each child's contribution block is gathered by {nrect} rectangles, one per "
            "run of the front's rows that take consecutive rows of that block, across the front's whole width -- "
            "a column-map texture says which block column feeds each front column. Every row has one source, "
            "so nothing is written twice (figures/fronts.py, methods/fronts.py).")


def _launch(out, an, rounds) -> tuple:
    """One launch across the fronts of the busiest round."""
    from matplotlib.patches import Rectangle

    from .plotting import subplots

    busiest = max(rounds, key=len)
    step = 4
    atlas, rects = launch(an, np.array(busiest), step)
    W = max(fr.ox + fr.n for _, fr in atlas)
    H = max(fr.m for _, fr in atlas)
    fig, ax = subplots(figsize=(10, 3.5))
    for g, fr in atlas:
        ax.add_patch(Rectangle((fr.ox, 0), fr.n, fr.m, fill=False, ec="k", lw=0.6))
    for x0, y0, x1, y1, g in rects:
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fc="orange", ec="red", lw=0.4, alpha=0.6))
    ax.set_xlim(0, W)
    ax.set_ylim(H, 0)
    ax.set_aspect("auto")
    ax.set_xlabel("atlas column (texels)")
    ax.set_ylabel("row")
    ax.set_title(f"round {rounds.index(busiest)}: {len(atlas)} fronts in one atlas; one reflection draw, step {step}, "
                 f"covers {len(rects)} rectangles", fontsize=10)
    fig.tight_layout()
    fig.savefig(out / "sparse-qr-launch.png", dpi=90)
    return ("sparse-qr-launch.png",
            f"The {len(atlas)} fronts of round {rounds.index(busiest)} side by side in one texture (black), and "
            f"the {len(rects)} rectangles (orange) of the single draw that applies reflection {step} in every one "
            "of them: each rectangle's vertices carry its front's offset and shape, so one launch factors many "
            "fronts (Yeralan et al., section 3).")
