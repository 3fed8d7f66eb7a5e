"""A lean core: `pip install .` brings only the design's packages and scipy; the
core calls import nothing optional, and a call that needs an extra names it."""
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPTIONAL = ("highspy", "sklearn", "matplotlib", "tqdm", "PIL")


def test_core_dependencies_are_lean():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {d.split(">")[0].split("=")[0].strip() for d in project["dependencies"]}
    assert names == {"moderngl", "glfw", "numpy", "pyrr", "scipy"}
    assert {"lp", "ml", "demo", "bench", "test", "all"} <= set(project["optional-dependencies"])


def _run(code, *args):
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_core_calls_import_nothing_optional():
    proc = _run("import sys, numpy as np, glgpgpu\n"
                "A = np.random.default_rng(0).random((6, 6)); C = A @ A.T + 6 * np.eye(6)\n"
                "L = glgpgpu.cholesky(C); x = glgpgpu.cho_solve(L, np.ones(6)); glgpgpu.adat(A, np.ones(6))\n"
                "glgpgpu.wls(A, np.ones(6), np.ones(6)); glgpgpu.qr(A)\n"
                f"print(sorted(m for m in {OPTIONAL!r} if m in sys.modules))")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout


def test_a_missing_extra_is_named():
    """`glgpgpu lp` without highspy: exit 2 and the extra to install."""
    proc = _run("import sys; sys.modules['highspy'] = None\n"
                "from glgpgpu.cli import main; sys.exit(main(['lp', sys.argv[1]]))",
                str(ROOT / "data" / "netlib" / "afiro.mps.gz"))
    assert proc.returncode == 2, proc.stderr
    assert "pip install 'glgpgpu[lp]'" in proc.stderr
