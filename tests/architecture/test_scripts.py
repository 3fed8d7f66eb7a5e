"""Every script benchmarks/README.md and experiments/README.md list exists and
runs from a clean checkout, at least as far as printing its usage (--help)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def listed(folder: str):
    text = (ROOT / folder / "README.md").read_text()
    names = sorted({n for n in re.findall(r"`([\w.]+\.(?:py|sh))", text)})
    return [(folder, n) for n in names]


SCRIPTS = listed("benchmarks") + listed("experiments")


def test_the_readmes_list_every_script():
    for folder in ("benchmarks", "experiments"):
        on_disk = {p.name for p in (ROOT / folder).iterdir() if p.suffix in (".py", ".sh")}
        assert on_disk == {n for f, n in SCRIPTS if f == folder}, folder


@pytest.mark.parametrize("folder, name", SCRIPTS)
def test_script_prints_its_usage(folder, name):
    path = ROOT / folder / name
    cmd = ["bash", str(path), "--help"] if name.endswith(".sh") else [sys.executable, str(path), "--help"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.strip()) > 40, proc.stdout
