"""`glgpgpu sparseqr MATRIX`: sparse multifrontal QR of a Matrix Market file or a
generated member of the paper's families, with its analysis and phase times;
`glgpgpu sparseqr --table 4|5|fig15 --from CSV`: Yeralan et al.'s Table IV, Table V
or Fig. 15 from a run of benchmarks/sparse_qr_gpu.py."""
from __future__ import annotations

from pathlib import Path

from .common import Formatter, add_out, run_stamp

#: generated matrices by name: the two of Table III exactly, and the families' smaller members
GENERATED = ("ch7-8-b3", "ch6-7-b3", "ch5-6-b2", "nug20", "nug15", "nug12", "nug08", "grid2d_200", "grid3d_40",
             "grid3d_20")


#: nonzeros a generated matrix may have: beyond, it is refused before it is built
MAX_GENERATED_NNZ = 2 * 10 ** 8


def _generated(name: str):
    """A generated matrix by name (chM-N-bK, nugN, griddD_N), its size checked first."""
    import math

    from ..bench import matrices
    try:
        if name.startswith("ch"):
            m, n, k = (int(v) for v in name[2:].replace("-b", "-").split("-"))
            nnz, make = (k + 1) * math.comb(m, k + 1) * math.perm(n, k + 1), lambda: matrices.chessboard(m, n, k)
        elif name.startswith("nug"):
            n = int(name[3:])
            nnz, make = 4 * n ** 4, lambda: matrices.nug(n)
        elif name.startswith("grid"):
            dim, size = (int(v) for v in name[4:].split("d_"))
            nnz, make = (2 * dim + 1) * size ** dim, lambda: matrices.grid(size, dim)
        else:
            raise ValueError
    except ValueError:
        raise ValueError(f"no generated matrix {name!r}: one of {', '.join(GENERATED)} "
                         "(chM-N-bK, nugN, griddD_N)") from None
    if nnz > MAX_GENERATED_NNZ:
        raise ValueError(f"{name} would have about {nnz:.3g} nonzeros ({16 * nnz / 2 ** 30:.3g} GiB to build), "
                         f"more than {MAX_GENERATED_NNZ:.0e}: pick a smaller one")
    return make()


def _load(spec: str):
    path = Path(spec)
    if path.suffix in (".mtx", ".gz") or path.exists():
        if not path.is_file():
            raise FileNotFoundError(f"no such matrix file: {spec} (a Matrix Market .mtx, or one of {', '.join(GENERATED)})")
        import scipy.io

        import scipy.sparse as sp

        return sp.csc_matrix(scipy.io.mmread(str(path)))    # coordinate or array (dense) format
    return _generated(spec)


def run(args) -> int:
    if args.table:
        from ..bench import sparse_tables as T

        if not args.source:
            raise ValueError("--table needs --from CSV: a run of benchmarks/sparse_qr_gpu.py")
        rows = T.read(args.source)
        if args.table == "4":
            print(T.format_table4(rows))
        elif args.table == "5":
            print(T.format_table5(rows))
        else:
            print("wrote", T.plot_fig15(rows, Path(args.out) / f"sparse-qr-fig15-{run_stamp()}.png"))
        return 0
    if not args.matrix:
        raise ValueError("give a matrix (a Matrix Market file or a generated name) or --table 4|5|fig15")
    import time

    import numpy as np

    from ..solvers.sparse_lstsq import sparse_qr

    A = _load(args.matrix)
    t0 = time.perf_counter()
    f = sparse_qr(A, method=args.method, tol=-1.0 if args.r_only else None)
    seconds = time.perf_counter() - t0
    info = f.info
    print(f"A: {A.shape[0]} x {A.shape[1]}, {A.nnz} nonzeros; R: {f.R.nnz} nonzeros, rank {f.rank}")
    print(f"column singletons {info.get('singletons', 0)}, fronts {info.get('fronts')}, rounds {info.get('rounds')}, "
          f"flops {info.get('flops', 0):.3g} (SuiteSparseQR's count), intensity {info.get('intensity', float('nan')):.3g}, "
          f"path {info.get('path')}")
    if info.get("times"):
        print("phases: " + ", ".join(f"{k} {v:.3f} s" for k, v in info["times"].items()))
    print(f"{seconds:.3f} s in all ({info.get('flops', 0) / seconds / 1e9:.2f} GFLOP/s)")
    if args.check and A.shape[1] <= 20000:
        R = f.R.toarray().astype(np.float64)
        AP = A[:, f.E[:R.shape[1]]].toarray()          # the live columns (dead ones were dropped)
        err = np.linalg.norm(R.T @ R - AP.T @ AP) / np.linalg.norm(AP) ** 2
        print(f"backward error ||R^T R - (AP)^T (AP)||_F / ||A||_F^2 = {err:.2e}")
    return 0


def register(sub):
    s = sub.add_parser("sparseqr", help="sparse multifrontal QR (Yeralan et al.): a matrix, or Tables IV/V, Fig. 15",
                       formatter_class=Formatter)
    s.add_argument("matrix", nargs="?", help="a Matrix Market file, or generated: " + ", ".join(GENERATED))
    s.add_argument("--method", default="auto", choices=["auto", "blocked", "paper", "compute", "host"],
                   help="auto: the host below Fig. 15's intensity 10, the GPU above")
    s.add_argument("--r-only", action="store_true", help="tol < 0: every column kept, as the paper's GPU path")
    s.add_argument("--check", action="store_true", help="print R's float32 backward error (dense: small n only)")
    s.add_argument("--table", choices=["4", "5", "fig15"], help="the paper's Table IV, Table V or Fig. 15 from --from")
    s.add_argument("--from", dest="source", default=None, help="(--table) a CSV written by benchmarks/sparse_qr_gpu.py")
    add_out(s)
    s.set_defaults(func=run)
