"""Form C = A D^2 A^T on the GPU in both formats and check it against numpy.

What happens (Jung & O'Leary 2008, Algorithm 3): for every column k of A the
GPU draws
  1. a 1-texel-high rectangle over b (Fig. 2(a)): Kernel 1 computes b = d(k) * A(:, k);
  2. one triangle over the lower half of C (Fig. 2(b)): Kernel 2 adds A(:, k) b^T,
     but only where row >= column -- the rasterizer never even creates the
     fragments of the upper half, which is why a triangle halves the work.
In the packed format the same numbers are written into a ceil(m/2) x (m+1-m%2)
texture by drawing two triangles (Fig. 4): the lower-right triangle of C,
rotated by 180 degrees, fills the otherwise empty upper-left corner.

Run:  python examples/assemble_adat.py [m] [n]
"""
import sys

import numpy as np

import glgpgpu


def main(m: int = 6, n: int = 8) -> int:
    rng = np.random.default_rng(1)
    A = rng.integers(0, 4, size=(m, n)).astype(np.float32)   # small integers: exact in float32
    d2 = rng.integers(1, 3, size=n).astype(np.float32)

    ctx = glgpgpu.get_context()
    print(f"GPU: {ctx.caps.renderer}   m = {m}, n = {n}\n")

    ref = np.tril((A.astype(np.float64) * d2) @ A.T.astype(np.float64))
    full = glgpgpu.adat(A, d2)
    packed_C = glgpgpu.adat(A, d2, packed=True)

    # The raw packed texture, as the GPU holds it (rows printed top = y = h-1).
    tex = glgpgpu.assemble_texture(A, d2, packed=True, ctx=ctx)
    raw = tex.read()
    ctx.pool.give(tex)

    np.set_printoptions(linewidth=120, formatter={"float": lambda v: f"{v:5.0f}"})
    print(f"Full format: {m}x{m} texture, lower triangle computed ({m * (m + 1) // 2} of {m * m} texels per pass)")
    print(full)
    h, w = raw.shape
    print(f"\nPacked format: the same matrix in a {w}x{h} (width x height) texture, every texel used")
    print(raw)
    print("\nUnpacked again:")
    print(packed_C)

    ok = True
    for name, got in (("full", full), ("packed", packed_C)):
        err = np.abs(got - ref).max()
        good = err == 0.0   # integers below 2^24: float32 arithmetic is exact here
        ok &= good
        print(f"check {name:6s}: max |GPU - numpy| = {err:.3g}  {'OK' if good else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    sys.exit(main(*args))
