"""`glgpgpu demo [--window | --web DIR]`: pictures, GIFs and index.html of every
pass, a window, or the page that replays the passes in the reader's browser."""
from __future__ import annotations

from pathlib import Path

from .common import Formatter, out_folder, positive_int, size_list, sizes


def run(args) -> int:
    if args.window:
        from ..teach import window

        return window.run(algorithm=args.algorithm, m=args.m, packed=args.packed,
                          screenshot=args.screenshot, step=args.step)
    if args.web:
        from ..teach import web

        chosen = tuple(sizes(args.sizes or "1-64"))
        if max(chosen) > web.MAX_SIZE:
            print(f"error: the web page replays m up to {web.MAX_SIZE} (its grids and files grow as m^2), "
                  f"got {max(chosen)}")
            return 2
        index = web.write(Path(args.web), sizes=chosen)
        print(f"wrote {index}: open it in a browser (no server needed), or serve the folder: "
              f"python -m http.server -d {args.web}")
        return 0
    from ..bench.matrices import grid
    from ..teach import demo

    n = 20                                  # the sparse QR's pictures: a least-squares problem on a grid
    index = demo.build(Path(args.out), sizes=tuple(sizes(args.sizes or "6,7")),
                       sparse_matrix=(grid(n, 2, 0.3), f"[grad; eps I] on a {n} x {n} grid"))
    print(f"wrote the pictures, GIFs and {index}  (open it in a browser)")
    return 0


def register(sub):
    s = sub.add_parser("demo", help="pictures (or a window) of which fragments each triangle computes",
                       formatter_class=Formatter)
    s.add_argument("--out", default="demo_out", type=out_folder, help="folder for PNG, GIF and index.html")
    s.add_argument("--sizes", default=None, type=size_list,
                   help="matrix orders to show: pictures 6,7 (one even, one odd); --web 1-64, any of 1-128")
    s.add_argument("--web", default=None, metavar="DIR",
                   help="write the WebGL2 page that replays every draw in the browser to DIR")
    s.add_argument("--window", action="store_true", help="interactive glfw window instead of files")
    s.add_argument("--algorithm", default="cholesky", choices=["assembly", "cholesky"],
                   help="(window) the algorithm to step through")
    s.add_argument("--m", type=positive_int, default=6, help="(window) matrix order")
    s.add_argument("--packed", action="store_true", help="(window) start in the packed format")
    s.add_argument("--step", type=int, default=0, help="(window) pass to show first (0-based)")
    s.add_argument("--screenshot", default=None, help="(window) save this PNG of the first frame and exit")
    s.set_defaults(func=run)
