"""The library never touches matplotlib's global state (a notebook user's backend and
figure registry stay as they were): no matplotlib.use, no pyplot, in glgpgpu/."""
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "glgpgpu"


def test_no_backend_switch_and_no_pyplot():
    found = [f"{p.relative_to(PKG.parent)}:{i}" for p in sorted(PKG.rglob("*.py"))
             for i, line in enumerate(p.read_text().splitlines(), 1)
             if "matplotlib.use(" in line or ("pyplot" in line and "import" in line)]
    assert not found, "figures come from glgpgpu.teach.plotting: " + ", ".join(found)
