"""Cholesky by rasterization, pass by pass (Jung & O'Leary 2008, Algorithm 5).

Factors a small SPD matrix in the full and the packed format and prints the
texture after every draw: square root (Kernel 3), copy back, normalization
(Kernel 4), copy back, outer-product subtraction (Kernel 5 over the triangle of
Fig. 5, or the two/one triangles of Figs. 6 and 7 in the packed format).
Then checks L L^T against C and that both formats give the same bits.

Run:  python examples/cholesky_steps.py [m]
"""
import sys

import numpy as np

import glgpgpu
from glgpgpu.teach import runs


def main(m: int = 5) -> int:
    C = runs.sample_problem("cholesky", m).astype(np.float64)
    print(f"GPU: {glgpgpu.get_context().caps.renderer}\nC =\n{C}\n")
    np.set_printoptions(precision=4, suppress=True, linewidth=120)
    print("Each texture is printed with row 0 on top, as the papers' figures and `make demo`'s pictures\n"
          "show it (GL itself counts y upwards, so row 0 is the texture's bottom row).\n")
    for packed in (False, True):
        fmt = "packed" if packed else "full"
        rec = runs.record("cholesky", m, packed=packed, snapshots=True)
        print(f"===== {fmt} format: {len(rec.draws)} draws =====")
        for i, (d, img) in enumerate(zip(rec.draws, rec.images)):
            print(f"--- pass {i + 1}: {d.kernel} -> {d.target}, {d.fragments} fragments ({d.label})")
            print(img)
        print()
    ok = True
    L_full = glgpgpu.cholesky(C, method="paper")
    L_packed = glgpgpu.cholesky(C, packed=True, method="paper")
    resid = np.abs(L_full.astype(np.float64) @ L_full.T - C).max() / np.abs(C).max()
    print(f"max |L L^T - C| / max |C| = {resid:.2e}  (float32: O(m * 6e-8))")
    ok &= resid < 10 * m * 2.0 ** -24
    same = np.array_equal(L_full, L_packed)
    print(f"full and packed factors identical bit for bit: {same}")
    ok &= same
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*[int(a) for a in sys.argv[1:2]]))
