"""The web demo (`glgpgpu demo --web DIR`): a static page that replays the
papers' draws in WebGL2 on the reader's own GPU, one draw at a time.

The page computes nothing its own way.  Its kernels are the files in `shaders/`
turned into GLSL ES 3.00 (`to_glsl_es`); each run it offers is the list of draws
this package made on a small problem (`export_run`): kernel, target, the
figure's vertex table with T0/T1, which texture each sampler read, the
uniforms, and what every texture held when a draw first used it.  The files are
JavaScript (`GLGPGPU.addRun({...})`) loaded by <script> tags, so the page opens
from disk with no server and no network.
"""
from __future__ import annotations

import json
import re
import shutil
from importlib import resources
from pathlib import Path

import numpy as np

from ..gl import resolve
from ..gl.programs import load_shader, shader_index
from ..layouts.triangle import layout_for
from . import runs

ALGORITHMS = ("assembly", "cholesky", "sparse-assembly")
SIZES = tuple(range(1, 65))
#: the largest m the page is written for: its grids and run files grow as m^2
MAX_SIZE = 128
#: kernels the page runs besides the recorded ones: the fragment counter and the probe
PAGE_KERNELS = ("constant", "probe_coordinates")
#: columns of A in the assembly runs (the demo pictures use the same)
ASSEMBLY_COLUMNS = 3


def web_dir() -> Path:
    """The page's own files (HTML, script, style): inside the installed package, or
    `web/` of a checkout."""
    packaged = resources.files("glgpgpu") / "web"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "web"


_VERSION = re.compile(r"^#version\s+330\b.*$")


def to_glsl_es(source: str) -> str:
    """A kernel (GLSL 3.30, includes expanded) as GLSL ES 3.00 for WebGL2.

    Two changes: the version line (with the default precisions ES needs), and
    `noperspective` dropped -- ES 3.00 has no such qualifier, and it changes
    nothing here: every position has w = 1 (common.vert's projection is
    orthographic), so perspective-correct interpolation is the linear one."""
    lines = source.splitlines()
    if not lines or not _VERSION.match(lines[0]):
        raise ValueError("expected a GLSL 3.30 shader (first line '#version 330'), "
                         f"got {lines[0] if lines else 'an empty source'!r}")
    head = ["#version 300 es", "precision highp float;", "precision highp int;", "precision highp sampler2D;"]
    body = [re.sub(r"\bnoperspective\s+", "", line) for line in lines[1:]]
    return "\n".join(head + body) + "\n"


def shader_sources(kernels) -> dict:
    """{file name: {"es": GLSL ES source, "path": where it lives in shaders/}} for
    common.vert and each kernel's fragment shader."""
    index = shader_index()
    out = {}
    for name in ("common.vert", *(k + ".frag" for k in kernels)):
        path = index[name]
        rel = f"shaders/{path.parent.name}/{path.name}" if path.parent.name != "shaders" else f"shaders/{path.name}"
        out[name] = {"es": to_glsl_es(load_shader(name)), "path": rel}
    return out


def _floats(a) -> list:
    """float32 values as JSON numbers that read back to the same float32."""
    return [float(v) if np.isfinite(v) else None for v in np.asarray(a, np.float32).ravel()]


def run_name(algorithm: str, packed: bool, m: int) -> str:
    return f"{algorithm}-{'packed' if packed else 'full'}-{m}"


def export_run(algorithm: str, m: int, packed: bool, ctx=None) -> dict:
    """One recorded run as the page replays it (see the module docstring)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {ALGORITHMS}, not {algorithm!r}")
    ctx = resolve(ctx)
    rec = runs.record(algorithm, m, packed=packed, n=ASSEMBLY_COLUMNS, contents=True, ctx=ctx)
    textures = sorted(rec.textures.values(), key=lambda e: e[0])
    tex_json = [{"key": key, "name": name, "w": int(tex.cols), "h": int(tex.rows), "data": _floats(data)}
                for key, tex, name, data in textures]
    draws = []
    for d in rec.draws:
        w, h = d.size
        draws.append({
            "kernel": d.kernel, "target": d.target_key, "targetName": d.target, "size": [int(w), int(h)],
            "label": d.label, "explain": runs.EXPLAIN.get(d.kernel, d.kernel),
            "corners": [[float(v) for v in c] for c in d.corners], "triangles": [[int(i) for i in t] for t in d.triangles],
            "names": list(d.names), "inputs": {s: [k, n] for s, (k, n) in d.inputs.items()},
            "primitive": d.primitive, "blend": d.blend,
            "uniforms": d.uniforms, "fragments": int(d.fragments),     # the package's GL run counted them
        })
    lay = layout_for(m, packed)
    i, j = np.tril_indices(m)
    x, y = lay.texel(i, j)
    by_name = {name: key for key, _, name, _ in textures}
    if algorithm == "assembly":
        reference = {"kind": "adat", "A": by_name["A"], "d": by_name["d"]}
    elif algorithm == "cholesky":
        reference = {"kind": "cholesky", "C": draws[0]["inputs"]["L"][0]}
    else:                  # the points carry A; its values and d come along for the check
        A, d = runs.sample_problem("sparse-assembly", m, ASSEMBLY_COLUMNS)
        reference = {"kind": "adat-values", "A": _floats(A), "n": ASSEMBLY_COLUMNS, "d": _floats(d)}
    return {"name": run_name(algorithm, packed, m), "algorithm": algorithm, "m": m, "packed": packed,
            "textures": tex_json, "draws": draws, "result": draws[-1]["target"],
            "layout": np.stack([np.atleast_1d(x), np.atleast_1d(y)], 1).astype(int).tolist(),
            "reference": reference}


def write(out, sizes=SIZES, algorithms=ALGORITHMS, ctx=None, progress: bool = True) -> Path:
    """The page under `out`: index.html, app.js, style.css, data.js (kernels, sizes)
    and runs/<algorithm>-<full|packed>-<m>.js; returns the index path."""
    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    for f in web_dir().iterdir():
        if f.is_file():
            shutil.copyfile(f, out / f.name)
    ctx = resolve(ctx)
    jobs = [(a, p, m) for a in algorithms for p in (False, True) for m in sizes]
    if progress:
        try:
            import sys

            from tqdm import tqdm

            jobs = tqdm(jobs, desc="web demo", leave=False, disable=not sys.stderr.isatty())
        except ImportError:  # pragma: no cover
            pass
    kernels = set(PAGE_KERNELS)
    for a, p, m in jobs:
        run = export_run(a, m, p, ctx=ctx)
        kernels.update(d["kernel"] for d in run["draws"])
        (out / "runs" / f"{run['name']}.js").write_text("GLGPGPU.addRun(" + json.dumps(run, separators=(",", ":")) + ");\n")
    data = {"sizes": sorted(set(int(m) for m in sizes)), "algorithms": list(algorithms),
            "shaders": shader_sources(sorted(kernels))}
    (out / "data.js").write_text("(window.GLGPGPU = window.GLGPGPU || {}).data = " + json.dumps(data, indent=1) + ";\n")
    return out / "index.html"
