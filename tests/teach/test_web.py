"""The web demo: the shaders' GLSL ES form, the exported runs, and the page itself
in headless Chromium (skipped only where no Chromium is installed; `make test`
installs it where it can)."""
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from bounds import check_adat, check_factor
from glgpgpu import figures as geo
from glgpgpu.figures.points import Points
from glgpgpu.cli.common import sizes as parse_sizes
from glgpgpu.gl.programs import load_shader, shader_index
from glgpgpu.layouts.triangle import layout_for
from glgpgpu.teach import runs, web

BROWSER_SIZES = (1, 2, 6, 7, 17)
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


def test_glsl_es_form_of_every_paper_kernel_compiles(ctx):
    # Mesa compiles "#version 300 es" too (ARB_ES3_compatibility): the transform is checked
    # on this machine's GL, not only in a browser
    vert = web.to_glsl_es(load_shader("common.vert"))
    names = [n[:-5] for n, p in shader_index().items()
             if n.endswith(".frag") and p.parent.name in ("paper", "teach") and n != "display.frag"]
    assert "outer_product_sub" in names and "probe_coordinates" in names
    for name in names:
        es = web.to_glsl_es(load_shader(name + ".frag"))
        assert es.startswith("#version 300 es\n") and "noperspective" not in es
        prog = ctx.gl.program(vertex_shader=vert, fragment_shader=es)
        prog.release()


def test_glsl_es_refuses_what_it_does_not_know():
    with pytest.raises(ValueError, match="#version 330"):
        web.to_glsl_es("#version 430\nvoid main() {}\n")
    with pytest.raises(ValueError, match="empty"):
        web.to_glsl_es("")


@pytest.mark.parametrize("algorithm", web.ALGORITHMS)
@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("m", [1, 2, 3, 6])
def test_exported_run_replays_what_the_package_drew(ctx, algorithm, packed, m):
    run = web.export_run(algorithm, m, packed, ctx=ctx)
    json.dumps(run)                                       # plain JSON
    rec = runs.record(algorithm, m, packed=packed, n=web.ASSEMBLY_COLUMNS, ctx=ctx)
    assert [d["kernel"] for d in run["draws"]] == [d.kernel for d in rec.draws]
    for d, r in zip(run["draws"], rec.draws):
        count = geo.rasterize(_shape(r), *r.size)[0]
        assert d["fragments"] == int(count.sum()) > 0
        assert np.array_equal(np.array(d["corners"]), r.corners) and d["size"] == list(r.size)
        for key, _name in d["inputs"].values():
            assert 0 <= key < len(run["textures"]) and key != d["target"]
    # the starting textures are the sample problem, laid out as the package lays it out
    lay = layout_for(m, packed)
    assert len(run["layout"]) == m * (m + 1) // 2
    assert all(0 <= x < lay.width and 0 <= y < lay.height for x, y in run["layout"])
    tex = {t["key"]: np.array(t["data"], np.float32).reshape(t["h"], t["w"]) for t in run["textures"]}
    i, j = np.tril_indices(m)
    if algorithm == "cholesky":
        C = runs.sample_problem("cholesky", m)
        x, y = np.array(run["layout"]).T
        assert np.array_equal(tex[run["reference"]["C"]][y, x], C[i, j])
    elif algorithm == "sparse-assembly":          # A rides on the points; its values come along for the check
        A, d2 = runs.sample_problem("sparse-assembly", m, web.ASSEMBLY_COLUMNS)
        assert np.array_equal(np.array(run["reference"]["A"]).reshape(A.shape), A)
        assert run["draws"][0]["primitive"] == "points"
    else:
        A, d2 = runs.sample_problem("assembly", m, web.ASSEMBLY_COLUMNS)
        assert np.array_equal(tex[run["reference"]["A"]], A)
        assert np.array_equal(tex[run["reference"]["d"]][0], d2)


def test_sizes_take_ranges():
    assert parse_sizes("1-3,7") == [1, 2, 3, 7]
    for bad in ("5-2", "-3", "a-b", "0-2"):
        with pytest.raises(ValueError):
            parse_sizes(bad)


# -- the page in a real browser ------------------------------------------------------------


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


needs_browser = pytest.mark.skipif(_chromium() is None,
                                   reason="no Chromium (Debian: apt-get install chromium; make test installs it)")


def _browse(url, *extra, budget_ms=30000):
    """Headless Chromium on `url` (software WebGL): the DOM after the page's scripts ran,
    or with `--screenshot=PATH` in `extra` a picture of it."""
    what = list(extra) if any(e.startswith("--screenshot") for e in extra) else ["--dump-dom", *extra]
    cmd = [_chromium(), "--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
           "--hide-scrollbars", f"--virtual-time-budget={budget_ms}", *what, url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _report(dom):
    m = re.search(r'<pre id="report"[^>]*data-done="1"[^>]*>(.*?)</pre>', dom, re.S)
    assert m, "the page's self-test did not finish:\n" + dom[-3000:]
    return json.loads(html.unescape(m.group(1)))


def _shape(d):
    """A recorded draw as the numpy rasterizer takes it: points or triangles."""
    if d.primitive == "points":
        return Points(d.corners, d.label, d.names)
    return geo.Geometry(d.corners, d.triangles, d.label, d.names)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("web")
    web.write(out, sizes=BROWSER_SIZES, progress=False)
    return out


@needs_browser
def test_page_runs_every_pass_in_chromium(page):
    report = _report(_browse((page / "index.html").as_uri() + "?selftest=1&sizes=" +
                             ",".join(map(str, BROWSER_SIZES))))
    assert "error" not in report, report.get("error")
    cases = {c["name"]: c for c in report["cases"]}
    assert len(cases) == len(web.ALGORITHMS) * 2 * len(BROWSER_SIZES)
    for algorithm in web.ALGORITHMS:
        for packed in (False, True):
            for m in BROWSER_SIZES:
                name = web.run_name(algorithm, packed, m)
                case = cases[name]
                rec = runs.record(algorithm, m, packed=packed, n=web.ASSEMBLY_COLUMNS)
                expected = [int(geo.rasterize(_shape(d), *d.size)[0].sum()) for d in rec.draws]
                assert case["fragments"] == expected, name          # the browser's GPU vs figures.raster
                assert case["relative"] is not None and case["relative"] <= 64 * m * 2.0 ** -24, name   # the page's own check
                values = np.array([np.nan if v is None else v for v in case["result"]], np.float64)
                tex = values.reshape(case["h"], case["w"])
                lay = layout_for(m, packed)
                i, j = np.tril_indices(m)
                out = np.zeros((m, m))
                out[i, j] = tex[lay.texel(i, j)[1], lay.texel(i, j)[0]]
                if algorithm in ("assembly", "sparse-assembly"):
                    check_adat(out, *runs.sample_problem(algorithm, m, web.ASSEMBLY_COLUMNS))
                else:
                    check_factor(out, runs.sample_problem("cholesky", m).astype(np.float64))


@needs_browser
def test_page_says_when_float_render_targets_are_missing(page):
    # the browser's own getExtension answers null for the extension, before the page loads
    src = (page / "index.html").read_text()
    hide = ("<script>(function(){const get=WebGL2RenderingContext.prototype.getExtension;"
            "WebGL2RenderingContext.prototype.getExtension=function(n){"
            "return n==='EXT_color_buffer_float'?null:get.call(this,n);};})();</script>")
    (page / "no-float.html").write_text(src.replace("<script src=\"data.js\">", hide + "<script src=\"data.js\">"))
    report = _report(_browse((page / "no-float.html").as_uri() + "?selftest=1&sizes=2"))
    assert "EXT_color_buffer_float" in report["error"] and not report["cases"]
    dom = _browse((page / "no-float.html").as_uri() + "?algorithm=cholesky&m=2")
    assert re.search(r'id="status"[^>]*class="error"[^>]*>[^<]*EXT_color_buffer_float', dom), dom[-2000:]


@needs_browser
def test_page_screenshots_of_three_steps(page):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, query in (("assembly-packed-7-step3", "algorithm=assembly&format=packed&m=7&step=4"),
                        ("cholesky-full-6-step5", "algorithm=cholesky&format=full&m=6&step=5&hover=3,4"),
                        ("cholesky-packed-7-step10", "algorithm=cholesky&format=packed&m=7&step=10&hover=2,5")):
        shot = ARTIFACTS / f"{name}.png"
        shot.unlink(missing_ok=True)
        _browse((page / "index.html").as_uri() + "?" + query, f"--screenshot={shot}", "--window-size=1400,1100",
                budget_ms=10000)
        assert shot.stat().st_size > 20000, f"{shot} looks empty"
