"""`glgpgpu trace ALGORITHM`: every draw of a small run."""
from __future__ import annotations



def run(args) -> int:
    from ..teach import runs

    rec = runs.record(args.algorithm, args.m, packed=args.packed, n=args.n)
    print(runs.format_trace(rec, args.algorithm, args.m, args.packed))
    return 0


def register(sub):
    from ..teach.runs import ALGORITHMS

    s = sub.add_parser("trace", help="print every draw of a small run: kernel, vertices, fragments")
    s.add_argument("algorithm", choices=ALGORITHMS)
    s.add_argument("--m", type=int, default=6)
    s.add_argument("--n", type=int, default=None, help="columns of A (assembly)")
    s.add_argument("--packed", action="store_true")
    s.set_defaults(func=run)
