"""The tiled Cholesky on several GPUs through Dask: who owns which tile, and what each
worker did when.

    python examples/distributed_tiles.py [N] [tile] [workers] [out.png]

A LocalGLCluster starts one worker process per GPU (here `workers` of them; on a machine
with one device -- llvmpipe -- they share it).  Each lower tile of A lives on one worker,
2-D block-cyclic over a p x q grid of the workers, and every task on a tile runs where
the tile lives ("owner computes"): POTRF on a diagonal tile, TRSM below it, SYRK / GEMM
updates to the right.  A finished tile another worker reads travels once, worker to
worker, as the result of a FETCH on its owner.  The picture: left, the owner of each
tile; right, Dask's task stream -- every task as a bar on its worker's row, coloured by
operation, so the waits for the panel (the critical path POTRF -> TRSM -> update ->
POTRF ...) show as gaps.  The factor equals the one-process tiled factor bit for bit.
"""
import sys
from pathlib import Path

import numpy as np
from distributed import get_task_stream

import glgpgpu
from glgpgpu.distributed import LocalGLCluster, cholesky, owners
from glgpgpu.layouts.tiles import TileGrid

#: a task's kind by its key's first word; "_share": the finished tile also written into shared memory
#: for the workers that read it (one task: no scheduler round trip between), "update_potrf": a diagonal
#: tile's last update and its POTRF
COLOURS = {"put": "#bbbbbb", "potrf": "#d62728", "potrf_share": "#ff9896", "trsm": "#ff7f0e",
           "trsm_share": "#ffbb78", "update": "#1f77b4", "update_potrf": "#8c564b", "update_potrf_share": "#c49c94",
           "share": "#17becf", "fetch": "#2ca02c", "plan": "#9467bd", "release": "#7f7f7f"}


def main(N: int = 512, tile: int = 128, n_workers: int = 2, out: str = "demo_out/distributed_tiles.png") -> int:
    rng = np.random.default_rng(0)
    B = rng.standard_normal((N, N))
    A = B @ B.T / N + np.eye(N)
    with LocalGLCluster(n_workers=n_workers) as cluster, cluster.get_client() as client:
        with get_task_stream(client) as stream:
            L = cholesky(A, client=client, tile=tile, method="compute")
        workers = sorted(client.scheduler_info()["workers"])
        tasks = stream.data
    ref = glgpgpu.cholesky(A, method="compute", ctx=glgpgpu.Context(max_texture_size=tile))
    g = TileGrid(N, tile)
    own = owners(g.count, workers)
    print(f"{N} x {N} in {g.count} x {g.count} tiles of {tile} on {len(workers)} workers; "
          f"{len(tasks)} tasks; equal to the one-process factor: {np.array_equal(L, ref)}; "
          f"max |L L^T - A| / max |A| = {np.abs(L.astype(float) @ L.T - A).max() / np.abs(A).max():.2e}")
    for w in workers:
        mine = [t for t in tasks if t["worker"] == w]
        kinds = {}
        for t in mine:
            name = t["key"].split("-")[0]
            kinds[name] = kinds.get(name, 0) + 1
        print(f"  {w}: {sum(1 for v in own.values() if v == w)} tiles, tasks {kinds}")
    draw(g, own, workers, tasks, Path(out))
    print("wrote", out)
    return 0


def draw(g, own, workers, tasks, path: Path) -> None:
    from glgpgpu.teach.plotting import subplots
    from matplotlib.patches import Rectangle

    fig, (left, right) = subplots(1, 2, figsize=(12, 4.4))
    palette = ["#8dd3c7", "#fdb462", "#bebada", "#fb8072", "#80b1d3", "#b3de69", "#fccde5", "#d9d9d9"]
    for (I, J), w in own.items():
        left.add_patch(Rectangle((J, I), 1, 1, fc=palette[workers.index(w) % len(palette)], ec="k", lw=0.5))
        left.text(J + 0.5, I + 0.5, str(workers.index(w)), ha="center", va="center", fontsize=8)
    left.set_xlim(0, g.count)
    left.set_ylim(g.count, 0)
    left.set_aspect("equal")
    left.set_xticks(np.arange(g.count) + 0.5, range(g.count))
    left.set_yticks(np.arange(g.count) + 0.5, range(g.count))
    left.set_title("owner of each lower tile (worker number)", fontsize=9)
    left.set_xlabel("tile column J")
    left.set_ylabel("tile row I")
    t0 = min(t["startstops"][0]["start"] for t in tasks)
    for t in tasks:
        row = workers.index(t["worker"]) if t["worker"] in workers else -1
        name = t["key"].split("-")[0]
        for ss in t["startstops"]:
            if ss["action"] == "compute":
                right.barh(row, ss["stop"] - ss["start"], left=ss["start"] - t0, height=0.8,
                           color=COLOURS.get(name, "#000000"))
    for name, c in COLOURS.items():
        right.barh(-5, 0, color=c, label=name)
    right.set_yticks(range(len(workers)), [f"worker {i}" for i in range(len(workers))])
    right.set_xlabel("seconds")
    right.set_title("Dask's task stream: what each worker computed when", fontsize=9)
    right.set_ylim(-0.6, len(workers) + 0.6)              # room above the bars for the legend
    right.legend(fontsize=6, ncol=4, loc="upper right")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    sys.exit(main(*(int(a) for a in args[:3]), *args[3:4]))
