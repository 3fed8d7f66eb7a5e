"""The examples run and report success (they are what `make demo` shows)."""
import runpy
import sys

import pytest


@pytest.mark.parametrize("script, args", [
    ("examples/assemble_adat.py", ["5", "7"]),
    ("examples/cholesky_steps.py", ["4"]),
    ("examples/data_fitting.py", []),
    ("examples/qr_least_squares.py", ["6"]),
    ("examples/lssvm_digits.py", []),
    ("examples/tiled_cholesky.py", ["100", "32"]),
    ("examples/three_methods.py", ["40"]),
])
def test_example(ctx, script, args, tmp_path, monkeypatch, capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    if script.endswith("data_fitting.py"):
        args = [str(tmp_path / "fit.png")]
    monkeypatch.setattr(sys, "argv", [script] + args)
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(root / script), run_name="__main__")
    assert done.value.code == 0, capsys.readouterr().out
