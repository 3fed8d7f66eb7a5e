"""The rasterization demo: pictures of which fragments each triangle computes.

For assembly and Cholesky, full and packed, m even and odd, every draw of a
small run is recorded (kernel, target, vertices with T0/T1, fragments counted
by an occlusion query, and the target texture after the draw).  Each draw
becomes a picture: the target's values as a heat map (row 0 at the top, as in
the papers' figures), the texels that received a fragment outlined, and the
drawn triangle(s) with their vertices labelled V / T0 / T1 as in Figs. 2, 4-7.
Each run also becomes an animated GIF, and index.html shows them all in order
with a one-line explanation per pass, and the sparse QR's pictures (teach/sparse.py).
"""
from __future__ import annotations

import html
import textwrap
from pathlib import Path

import numpy as np

from . import runs

CASES = [("assembly", False), ("assembly", True), ("cholesky", False), ("cholesky", True), ("sparse-assembly", False)]


def _label(corner, names, n):
    s = f"{n}: V({corner[0]:g},{corner[1]:g})"
    if "T0" in names:
        s += f"\nT0({corner[2]:g},{corner[3]:g}" + (f",{corner[4]:g})" if corner[4] else ")")
    if "T1" in names:
        s += f"\nT1({corner[5]:g},{corner[6]:g})"
    return s


def render_pass(draw, image, path: Path, title: str, explain: str):
    """One picture of one draw; returns the number of texels the numpy rasterizer
    says the draw covered (the caller checks it against the GPU's count)."""
    from .plotting import subplots
    from matplotlib import patheffects
    from matplotlib.patches import Polygon, Rectangle

    w, h = draw.size
    count, (x0, x1, y0, y1) = runs.coverage_and_view(draw, .8)
    scale = 0.55
    fig, ax = subplots(figsize=(max(4.0, (x1 - x0) * scale + 1.5) + 1.3, max(3.5, (y1 - y0) * scale + 1.2)))
    finite = np.where(np.isfinite(image), image, np.nan)
    ax.imshow(finite, cmap="viridis", extent=(0, w, h, 0), interpolation="nearest", alpha=.85)
    for y in range(h):
        for x in range(w):
            v = image[y, x]
            ax.text(x + .5, y + .5, f"{v:.3g}" if np.isfinite(v) else "nan", ha="center", va="center",
                    fontsize=6, color="black", path_effects=[patheffects.withStroke(linewidth=2, foreground="white")])
            if count[y, x]:
                ax.add_patch(Rectangle((x + .06, y + .06), .88, .88, fill=False, ec="orange", lw=2.2))
    for tri in draw.triangles:
        ax.add_patch(Polygon(draw.corners[list(tri), :2], closed=True, fill=False, ec="red", lw=1.3, ls="--"))
    # vertex labels in the right margin, top to bottom by row, each with a leader line to its
    # vertex: written beside the vertices they covered the cells' values and each other
    order = sorted(range(len(draw.corners)), key=lambda i: (draw.corners[i][1], draw.corners[i][0]))
    for slot, i in enumerate(order):
        c = draw.corners[i]
        ax.plot(c[0], c[1], "o", color="red", ms=3)
        ax.annotate(_label(c, draw.names, i + 1), (c[0], c[1]), fontsize=5.5, color="darkred", va="center",
                    xytext=(1.03, 1 - (slot + 0.5) / len(order)), textcoords="axes fraction", annotation_clip=False,
                    arrowprops=dict(arrowstyle="-", color="darkred", lw=0.5, alpha=0.6))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y1, y0)            # row 0 at the top, as in the papers' figures
    ax.set_xticks(range(w + 1))
    ax.set_yticks(range(h + 1))
    ax.tick_params(labelsize=6)
    ax.grid(True, color="0.6", lw=.4)
    ax.set_xlabel("x = column", fontsize=7)
    ax.set_ylabel("y = row", fontsize=7)
    wrap = max(50, int((x1 - x0) * scale * 16))
    ax.set_title("\n".join(textwrap.wrap(title, wrap)), fontsize=7.5)
    fig.text(0.5, 0.01, "\n".join(textwrap.wrap(explain, wrap + 20)), ha="center", va="bottom", fontsize=6.5,
             color="0.25")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=90)
    return int(count.sum())


def make_gif(frames, path: Path, ms: int = 700):
    from PIL import Image

    imgs = [Image.open(f).convert("RGB") for f in frames]
    size = (max(i.width for i in imgs), max(i.height for i in imgs))
    canvas = []
    for im in imgs:
        c = Image.new("RGB", size, "white")
        c.paste(im, (0, 0))
        canvas.append(c.convert("P", palette=Image.ADAPTIVE))
    canvas[0].save(path, save_all=True, append_images=canvas[1:], duration=ms, loop=0)


def build(out: Path, sizes=(6, 7), n: int = 3, ctx=None, progress: bool = True, sparse_matrix=None) -> Path:
    """Write all pictures, GIFs and index.html under `out`; returns the index path.
    sparse_matrix: (A, what it is) adds the sparse QR's pictures (teach/sparse.py)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sections = []
    jobs = [(alg, packed, m) for alg, packed in CASES for m in sizes]
    if progress:
        try:
            import sys

            from tqdm import tqdm

            jobs = tqdm(jobs, desc="demo", leave=False, disable=not sys.stderr.isatty())   # no bar in logs
        except ImportError:  # pragma: no cover
            pass
    for alg, packed, m in jobs:
        fmt = "packed" if packed else "full"
        name = f"{alg}-{fmt}-m{m}"
        rec = runs.record(alg, m, packed=packed, n=n, snapshots=True, ctx=ctx)
        frames, items = [], []
        for i, (d, img) in enumerate(zip(rec.draws, rec.images)):
            path = out / f"{name}-pass{i:03d}.png"
            explain = runs.EXPLAIN.get(d.kernel, d.kernel)
            title = (f"{alg}, {fmt} format, m={m}: pass {i + 1}/{len(rec.draws)}, {d.kernel} -> {d.target} "
                     f"({d.size[0]}x{d.size[1]}), {d.fragments} fragments. {d.label}")
            covered = render_pass(d, img, path, title, explain)
            if covered != d.fragments:
                raise RuntimeError(f"{name} pass {i}: the GPU generated {d.fragments} fragments, "
                                   f"the numpy rasterizer predicts {covered}")
            frames.append(path)
            items.append((path.name, i, d, explain))
        gif = out / f"{name}.gif"
        make_gif(frames, gif)
        sections.append((name, alg, fmt, m, gif.name, items, rec))
    figures = ()
    if sparse_matrix is not None:           # (A, what it is): the sparse QR's pictures too
        from . import sparse
        figures = sparse.write(out, *sparse_matrix)
    index = out / "index.html"
    index.write_text(_html(sections, figures))
    return index


#: the step from the papers' fragments to compute shaders, on the index page
THREE_METHODS = (
    "<h2 id='methods'>From one multiply-add per fragment to the whole chip</h2>"
    "<p>The pictures below are the papers' kernels (<code>method=\"paper\"</code>): every fragment does one "
    "multiply-add per pass and fetches its operands through the texture units -- in 2005-2008 the fragment "
    "stage was the only programmable stage that could write floats. <code>method=\"blocked\"</code> still draws "
    "triangles, but each fragment owns an 8 &times; 8 block of the output in registers and writes it through "
    "image stores (OpenGL 4.3): every fetch feeds eight multiply-adds. <code>method=\"compute\"</code> uses the "
    "compute stage OpenGL 4.3 added: workgroups of 256 threads share tiles of the operands in shared memory, "
    "and on a datacenter GPU the compute stage runs on every SM, where the fragment stage uses a few. On an "
    "NVIDIA H100 the same multiply-add loop runs at 1.85 TFLOP/s as a fragment shader and 59 TFLOP/s as a "
    "compute shader; a 4096 &times; 4096 Cholesky takes 1.3 s with the papers' kernels, 0.10 s blocked and "
    "28 ms by compute shaders (numpy in, numpy out; benchmarks/RESULTS.md). <code>examples/three_methods.py"
    "</code> runs one Cholesky by each and counts their draws and dispatches.</p>")


def _html(sections, sparse_figures=()) -> str:
    parts = ["<!doctype html><meta charset='utf-8'><title>glgpgpu: triangles as kernels</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}"
             "img.t{width:260px;border:1px solid #ccc}figure{display:inline-block;margin:4px;width:270px;"
             "vertical-align:top;font-size:11px}</style>",
             "<h1>Which fragments does each triangle compute?</h1>",
             "<p>Every picture is one draw call. Colours are the target texture's values after the draw "
             "(row 0 at the top, as in the papers' figures); <b style='color:orange'>orange</b> boxes are the "
             "texels that received a fragment (their number is the GPU's own occlusion-query count); the "
             "<b style='color:red'>red</b> dashed shape is what was drawn, its vertices labelled with the "
             "position V and the attached texture coordinates T0, T1. A triangle whose hypotenuse passes half "
             "a texel beside the diagonal creates fragments only for row &ge; column: half the work of a square.</p>"]
    parts.append("<ul>" + "".join(f"<li><a href='#{s[0]}'>{html.escape(s[0])}</a> ({len(s[5])} draws, "
                                  f"{s[6].fragments()} fragments)</li>" for s in sections) + "</ul>")
    parts.append(THREE_METHODS)
    if sparse_figures:
        parts.append("<h2 id='sparse-qr'>Sparse QR: a tree of fronts, a staircase, many fronts per draw</h2>"
                     "<p>The multifrontal QR of Yeralan, Davis, Sid-Lakhdar and Ranka (2015) as glgpgpu.sparse_qr runs "
                     "it (<code>examples/sparse_least_squares.py</code>): the symbolic analysis, one front, and one "
                     "draw over a round of fronts.</p>")
        for fname, caption in sparse_figures:
            parts.append(f"<p><img src='{fname}' alt='{html.escape(fname)}' style='max-width:100%'><br>"
                         f"{html.escape(caption)}</p>")
    for name, alg, fmt, m, gif, items, rec in sections:
        parts.append(f"<h2 id='{name}'>{html.escape(alg)}, {fmt} format, m = {m}</h2>")
        parts.append(f"<p><img src='{gif}' alt='{name} animation'></p>")
        for fname, i, d, explain in items:
            parts.append(f"<figure><a href='{fname}'><img class='t' src='{fname}'></a><figcaption>"
                         f"<b>{i + 1}. {html.escape(d.kernel)}</b> &rarr; {html.escape(d.target)}, "
                         f"{d.fragments} fragments. {html.escape(explain)}</figcaption></figure>")
    return "\n".join(parts)
