"""Small, recorded runs of the papers' algorithms, for the trace, the demo and
the fragment-count tests: each returns the Recorder with every draw."""
from __future__ import annotations

import numpy as np

from .. import figures as geo
from ..figures.points import Points
from ..gl import resolve
from ..gl.transfer import upload_lower
from ..paper import assemble_texture, factor_texture, lu_texture

ALGORITHMS = ("assembly", "cholesky", "cholesky-inner", "lu", "sparse-assembly")

#: One line per kernel, for the trace, the pictures and the index page.
EXPLAIN = {
    "column_scaling": "Kernel 1: b(i) = A(i,k) d(k) over the m x 1 rectangle (Fig. 2(a)).",
    "outer_product_add": "Kernel 2: C += A(:,k) b^T, only where the triangle creates fragments: the lower half.",
    "sqrt": "Kernel 3: square root of the pivot, one texel.",
    "copy": "Copy kernel: bring what L_T just received back into L_S (no texture is read and written at once).",
    "normalize": "Kernel 4: divide the column below the pivot by it; the pivot comes through T0.",
    "outer_product_sub": "Kernel 5: L(i,j) -= L(i,k) L(j,k) over the trailing triangle; neighbour via T0, pivot via T1.yx.",
    "outer_product_sub_triad": "Kernel 5 with one index triad: neighbour at T0.zy, pivot at T0.zx.",
    "inner_product_sub": "Inner-product subtraction: column k+1 updated by a loop over all earlier columns.",
    "lu_elimination": "LU elimination over the whole square trailing block (both triangles): the comparator.",
    "sparse_outer_product_add": "Beyond the papers: A D A^T of a sparse A by points -- one point per nonzero pair "
                                "(i >= k) of a column, on C(i, k)'s texel, T0 = (a_ij, a_kj, j); additive blending "
                                "sums the columns (the LP's normal matrix).",
}


def sample_problem(algorithm: str, m: int, n: int | None = None, seed: int = 6):
    rng = np.random.default_rng(seed)
    if algorithm == "assembly":
        n = n or 3
        return rng.integers(1, 4, (m, n)).astype(np.float32), rng.integers(1, 3, n).astype(np.float32)
    if algorithm == "sparse-assembly":         # three sparse columns, one pattern repeated
        n = n or 3
        A = np.zeros((m, n), np.float32)
        for j in range(n):
            rows = rng.choice(m, size=min(m, 2 + j % 2), replace=False) if j != 2 else np.flatnonzero(A[:, 0])
            A[rows, j] = rng.integers(1, 4, len(rows))
        return A, rng.integers(1, 3, n).astype(np.float32)
    L = np.tril(rng.integers(1, 3, (m, m))).astype(np.float64) + np.diag(np.full(m, 2.0))
    return (L @ L.T).astype(np.float32)


def record(algorithm: str, m: int, *, packed: bool = False, n: int | None = None,
           snapshots: bool = False, contents: bool = False, ctx=None):
    """Run `algorithm` on a small sample problem with the draw recorder attached
    (`snapshots`: the target after each draw; `contents`: each texture as first drawn with)."""
    ctx = resolve(ctx)
    K = ctx.kernels
    with K.recording(snapshots=snapshots, contents=contents) as rec:
        if algorithm == "assembly":
            A, d2 = sample_problem("assembly", m, n)
            out = assemble_texture(A, d2, packed=packed, ctx=ctx)
        elif algorithm in ("cholesky", "cholesky-inner", "cholesky-triad"):
            variant = {"cholesky": "outer", "cholesky-inner": "inner", "cholesky-triad": "triad"}[algorithm]
            C = sample_problem("cholesky", m)
            out = factor_texture(upload_lower(C, packed, ctx, "C"), m, packed=packed, variant=variant, ctx=ctx)
        elif algorithm == "sparse-assembly":
            import scipy.sparse as sp

            from ..paper.normal import SparseNormal

            A, d2 = sample_problem("sparse-assembly", m, n)
            system = SparseNormal(sp.csc_matrix(A), packed=packed, ctx=ctx)
            try:
                system.form(d2)
            finally:
                system.release()
            return rec
        elif algorithm == "lu":
            C = sample_problem("cholesky", m)
            tex = ctx.pool.take(m, m)
            tex.write(C)
            out = lu_texture(tex, m, ctx=ctx)
        else:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, not {algorithm!r}")
    ctx.pool.give(out)
    return rec


def format_trace(rec, algorithm: str, m: int, packed: bool) -> str:
    """Every draw as it ran: kernel, target, vertices with attached coordinates, fragments."""
    lines = [f"# {algorithm}, m = {m}, {'packed' if packed else 'full'} format: {len(rec.draws)} draws, "
             f"{rec.fragments()} fragments in all (GPU occlusion queries)"]
    for i, d in enumerate(rec.draws):
        lines.append(f"[{i:3d}] {d.kernel:<24s} -> {d.target} ({d.size[0]}x{d.size[1]})  "
                     f"{d.fragments:5d} fragments   {d.label}")
        for n, c in enumerate(d.corners, 1):
            parts = [f"V({_n(c[0])}, {_n(c[1])})"]
            if "T0" in d.names:
                parts.append(f"T0({_n(c[2])}, {_n(c[3])}" + (f", {_n(c[4])})" if c[4] else ")"))
            if "T1" in d.names:
                parts.append(f"T1({_n(c[5])}, {_n(c[6])})")
            lines.append(f"        {n}. " + " ".join(parts))
    return "\n".join(lines)


def _n(v: float) -> str:
    return f"{v:g}"


def coverage_and_view(draw, margin: float):
    """What the pictures and the window show of a recorded draw: which texels got a
    fragment (the numpy rasterizer) and the world box (x0, x1, y0, y1) around the
    target and the triangles, `margin` texels wide."""
    w, h = draw.size
    shape = (Points(draw.corners, draw.label, draw.names) if draw.primitive == "points"
             else geo.Geometry(draw.corners, draw.triangles, draw.label, draw.names))
    count, _, _ = geo.rasterize(shape, w, h)
    xs, ys = draw.corners[:, 0], draw.corners[:, 1]
    return count, (min(-1.0, xs.min() - margin), max(w + 1.0, xs.max() + margin),
                   min(-1.0, ys.min() - margin), max(h + 1.0, ys.max() + margin))
