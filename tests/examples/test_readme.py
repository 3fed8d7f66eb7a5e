"""The README's Python snippet runs as pasted, from a temporary folder that sees the
clone's data/ (the snippet names data/netlib/afiro.mps.gz, as from the clone's root); the
library prints nothing while it does (HiGHS's banner included), and no file appears
there or in the checkout."""
import re
import subprocess
import sys
from pathlib import Path

from support import untracked_files

ROOT = Path(__file__).resolve().parents[2]


def test_readme_python_blocks_run_silently(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    assert blocks, "the README has a Python snippet"
    (tmp_path / "data").symlink_to(ROOT / "data")
    before = untracked_files(ROOT)
    for code in blocks:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                              cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert proc.stdout == "", f"the library printed: {proc.stdout[:500]!r}"
    assert [p.name for p in tmp_path.iterdir()] == ["data"]
    assert untracked_files(ROOT) == before
