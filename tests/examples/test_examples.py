"""The examples run and report success (they are what `make demo` shows), from a
temporary folder, and write nothing but what they are asked to: no file appears in
that folder unasked or in the checkout."""
import runpy
import sys

import pytest

from support import untracked_files

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("script, args, writes", [
    ("examples/assemble_adat.py", ["5", "7"], set()),
    ("examples/cholesky_steps.py", ["4"], set()),
    ("examples/data_fitting.py", ["fit.png"], {"fit.png"}),
    ("examples/qr_least_squares.py", ["6"], set()),
    ("examples/lssvm_digits.py", [], set()),
    ("examples/tiled_cholesky.py", ["100", "32"], set()),
    ("examples/three_methods.py", ["40"], set()),
    ("examples/sparse_least_squares.py", ["12"], set()),
])
def test_example(ctx, script, args, writes, tmp_path, monkeypatch, capsys):
    before = untracked_files(ROOT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [script] + args)
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(ROOT / script), run_name="__main__")
    assert done.value.code == 0, capsys.readouterr().out
    assert {p.name for p in tmp_path.iterdir()} == writes
    assert untracked_files(ROOT) == before
