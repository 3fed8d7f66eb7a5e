"""`glgpgpu trace ALGORITHM`: every draw of a small run."""
from __future__ import annotations

from .common import Formatter, positive_int



def run(args) -> int:
    from ..teach import runs

    rec = runs.record(args.algorithm, args.m, packed=args.packed, n=args.n)
    print(runs.format_trace(rec, args.algorithm, args.m, args.packed))
    return 0


def register(sub):
    from ..teach.runs import ALGORITHMS

    s = sub.add_parser("trace", help="print every draw of a small run: kernel, vertices, fragments",
                       formatter_class=Formatter)
    s.add_argument("algorithm", choices=ALGORITHMS, help="the run to trace")
    s.add_argument("--m", type=positive_int, default=6, help="matrix order (rows)")
    s.add_argument("--n", type=positive_int, default=None, help="columns of A (assembly; default m + 1)")
    s.add_argument("--packed", action="store_true", help="the rectangular packed format")
    s.set_defaults(func=run)
