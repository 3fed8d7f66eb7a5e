"""Sparse least squares by multifrontal QR (Yeralan, Davis, Sid-Lakhdar, Ranka 2015).

Denoise an image: min ||grad x||^2 + eps^2 ||x - noisy||^2 over an n x n grid, the
least-squares problem [grad; eps I] x = [0; eps noisy].  The matrix is sparse (two
nonzeros a row); glgpgpu.sparse_lstsq orders its columns (COLAMD), builds the column
elimination tree, groups columns into fronts -- small dense matrices -- and factors
every round of fronts together on the GPU, each front after its children.  Then
float64 refinement (LSMR preconditioned by the float32 R) gives float64 accuracy.

    python examples/sparse_least_squares.py [n]

Printed: the tree's fronts and rounds, one front's staircase (its rows sorted by
their leftmost column, Fig. 4: what a panel can skip), and the solution's accuracy.
`glgpgpu demo` (make demo) draws the same things for a 20 x 20 grid: the tree coloured
by round, a staircase, and the rectangles of one draw across a round's fronts.
"""
import sys

import numpy as np
import scipy.sparse as sp

import glgpgpu
from glgpgpu.bench.matrices import grid
from glgpgpu.symbolic import analyze


def staircase(an, f, width=48) -> str:
    """Front f's rows as text: '.' before a row's leftmost column, '#' from there; rows
    alike (same source kind and start) on one line with their count."""
    fn, lines = an.fn[f], []
    step = max(1, -(-fn // width))
    for r, lo in enumerate(an.leftmost[f]):
        src = "A" if an.sources[f][r] < 0 else f"c{an.sources[f][r]}"
        line = f"  {src:>4} " + "".join("." if c < lo else "#" for c in range(0, fn, step))
        if lines and lines[-1][0] == line:
            lines[-1][1] += 1
        else:
            lines.append([line, 1])
    return "\n".join(line + (f"  x{k}" if k > 1 else "") for line, k in lines)


def main(n: int = 24) -> int:
    eps = 0.3
    rng = np.random.default_rng(3)
    u, v = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    clean = (np.sin(3 * u) * np.cos(2 * v)).ravel()
    noisy = clean + 0.2 * rng.standard_normal(n * n)
    A = grid(n, 2, eps)                                    # [grad; eps I], sparse
    b = np.concatenate([np.zeros(A.shape[0] - n * n), eps * noisy])

    an = analyze(A)
    print(f"[grad; eps I] on a {n} x {n} grid: A is {A.shape[0]} x {A.shape[1]}, {A.nnz} nonzeros")
    print(f"analysis: {an.nfronts} fronts, largest {an.fm.max()} x {an.fn.max()}, nnz(R) {an.nnz_r}, "
          f"{an.flops:.3g} flops, intensity {an.intensity:.3g}")
    inner = [g for g in range(an.nfronts) if len(an.children[g]) >= 2] or list(range(an.nfronts))
    f = min(inner, key=lambda g: an.fm[g])                     # the shortest front with children, to print
    print(f"front {f}: {an.fm[f]} x {an.fn[f]}, {an.fp[f]} pivot columns, children {an.children[f]}; "
          "its rows (A: a row of A, cK: child K's block):")
    print(staircase(an, f))

    # method="blocked": on the GPU even though the intensity is under Fig. 15's 10, where
    # "auto" (the default) would take the host's LAPACK
    x, info = glgpgpu.sparse_lstsq(A, b, method="blocked")
    ref = sp.linalg.spsolve((A.T @ A).tocsc(), A.T @ b)
    fac = info.factor.info
    print(f"{fac['path']}: {fac['fronts']} fronts in {fac['rounds']} rounds "
          f"({', '.join(map(str, fac['fronts_per_round']))} fronts a round)")
    err = np.linalg.norm(x - ref) / np.linalg.norm(ref)
    print(f"refined in {info.iterations} LSMR steps: ||A^T r|| / (||A|| ||r||) = {info.optimality:.1e}, "
          f"x off the float64 solution by {err:.1e}; noise {np.linalg.norm(noisy - clean):.2f} -> "
          f"{np.linalg.norm(x - clean):.2f}")
    ok = info.converged and err < 1e-10
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(a) for a in sys.argv[1:])))
